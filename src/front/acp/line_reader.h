// Reads newline-delimited messages from a file descriptor (ACP's stdio
// framing). A line longer than the limit is skipped to its end and reported
// once, so a hostile client can neither exhaust memory nor desynchronise the
// stream; a last line without '\n' before EOF still counts.
#pragma once
#include <cstddef>
#include <optional>
#include <string>

namespace sepp::front::jsonrpc {

struct Line {
  std::string text;       // without the '\n' (and without a '\r' before it)
  bool too_long = false;  // text is empty; the line was skipped
};

class LineReader {
 public:
  LineReader(int fd, size_t max_line) : fd_(fd), max_line_(max_line) {}
  // Blocks for the next line; nullopt at EOF or on a read error.
  std::optional<Line> Next();

 private:
  int fd_;
  size_t max_line_;
  std::string buf_;
  size_t scan_ = 0;        // bytes of buf_ already searched for '\n'
  bool skipping_ = false;  // inside an over-long line
  bool eof_ = false;
};

}  // namespace sepp::front::jsonrpc
