// HTTP/1.1 message syntax shared by the client and the server: finding and
// parsing a message head, and decoding a chunked body incrementally.
#pragma once
#include <string>
#include <string_view>

#include "base/result.h"
#include "net/http_client.h"

namespace sepp::net {

// Case-insensitive header lookup; the first match, or "" if absent.
std::string FindHeader(const Headers& headers, std::string_view name);
bool HeaderHasToken(const Headers& headers, std::string_view name, std::string_view token);

// Where the head ends in buf (the index just past the blank line), or npos.
// Accepts CRLF and bare LF line ends. Scans from `from` (minus a few bytes),
// so callers re-scanning a growing buffer stay linear.
size_t FindHeadEnd(std::string_view buf, size_t from = 0);

struct MessageHead {
  std::string start_line;
  Headers headers;
};

// Parses the head (start line + header lines, with or without the blank
// line). Rejects obsolete line folding, names with spaces or bad characters,
// lines without a colon and control characters in values.
Result<MessageHead> ParseHead(std::string_view head);

struct StatusLine {
  int major = 1, minor = 1;
  int status = 0;
  std::string reason;
};
Result<StatusLine> ParseStatusLine(std::string_view line);

struct RequestLine {
  std::string method, target;
  int major = 1, minor = 1;
};
Result<RequestLine> ParseRequestLine(std::string_view line);

// A request's head as the server and the sandbox's egress proxy both read
// it: ParseHead + ParseRequestLine, and the body framing made unambiguous
// (no Content-Length with Transfer-Encoding, no second Content-Length or
// Transfer-Encoding, Content-Length in digits only), so that no two readers
// of one message can disagree where it ends.
struct RequestHead {
  RequestLine line;
  Headers headers;
};
Result<RequestHead> ParseRequestHead(std::string_view head);
// The same into *out (and the start line into *start_line), reusing their
// storage: no allocation once a connection's strings have their usual size.
Status ParseRequestHeadInto(std::string_view head, RequestHead* out, std::string* start_line);

// Incremental decoder for Transfer-Encoding: chunked. Feed() takes any
// split of the input and appends the decoded payload to *out. Bytes after
// the last chunk and trailers are left unconsumed: Feed() returns how many
// bytes of `in` it used.
class ChunkedDecoder {
 public:
  Result<size_t> Feed(std::string_view in, std::string* out);
  bool done() const { return state_ == State::kDone; }

 private:
  enum class State { kSize, kData, kDataCr, kDataLf, kTrailer, kDone };
  State state_ = State::kSize;
  std::string line_;       // size line or trailer line being collected
  uint64_t remaining_ = 0; // bytes left in the current chunk
};

}  // namespace sepp::net
