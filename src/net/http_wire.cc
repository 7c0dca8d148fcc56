// HTTP/1.1 message syntax (RFC 9112), strict where leniency has caused
// request smuggling: no obs-fold, no whitespace before the colon, token
// characters only in names and methods, hex-only chunk sizes with a bound.
#include "net/http_wire.h"

#include <cctype>
#include <cstring>

namespace sepp::net {
namespace {

constexpr size_t kMaxLineBytes = 8192;

bool IsTokenChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("!#$%&'*+-.^_`|~", c) != nullptr;
}

bool IEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

std::string_view TrimOws(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

Error Malformed(std::string why) { return Error::Make("malformed HTTP message: " + why, "io"); }

bool ParseVersion(std::string_view v, int* major, int* minor) {
  if (v.size() != 8 || v.substr(0, 5) != "HTTP/" || v[6] != '.' || !std::isdigit(static_cast<unsigned char>(v[5])) ||
      !std::isdigit(static_cast<unsigned char>(v[7]))) {
    return false;
  }
  *major = v[5] - '0';
  *minor = v[7] - '0';
  return *major == 1;
}

}  // namespace

std::string FindHeader(const Headers& headers, std::string_view name) {
  for (const auto& [k, v] : headers) {
    if (IEquals(k, name)) return v;
  }
  return {};
}

bool HeaderHasToken(const Headers& headers, std::string_view name, std::string_view token) {
  for (const auto& [k, v] : headers) {
    if (!IEquals(k, name)) continue;
    std::string_view rest = v;
    while (!rest.empty()) {
      size_t comma = rest.find(',');
      if (IEquals(TrimOws(rest.substr(0, comma)), token)) return true;
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  return false;
}

size_t FindHeadEnd(std::string_view buf, size_t from) {
  size_t start = from > 3 ? from - 3 : 0;
  for (size_t i = buf.find('\n', start); i != std::string_view::npos; i = buf.find('\n', i + 1)) {
    // "\n\n" or "\n\r\n" ends the head.
    if (i + 1 < buf.size() && buf[i + 1] == '\n') return i + 2;
    if (i + 2 < buf.size() && buf[i + 1] == '\r' && buf[i + 2] == '\n') return i + 3;
  }
  return std::string_view::npos;
}

// Parses into *start_line and *headers, reusing their storage: a server
// that parses every request of a connection into one RequestHead does not
// allocate once the strings have grown to their usual size.
static Status ParseHeadInto(std::string_view head, std::string* start_line, Headers* headers) {
  size_t count = 0;
  bool first = true;
  while (!head.empty()) {
    size_t nl = head.find('\n');
    std::string_view line = head.substr(0, nl);
    head = nl == std::string_view::npos ? std::string_view() : head.substr(nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.size() > kMaxLineBytes) return Malformed("a header line is longer than 8 KiB");
    if (first) {
      if (line.empty()) return Malformed("the start line is empty");
      start_line->assign(line);
      first = false;
      continue;
    }
    if (line.empty()) break;  // the blank line
    if (line[0] == ' ' || line[0] == '\t') return Malformed("obsolete header line folding");
    size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) return Malformed("a header line has no name or colon");
    std::string_view name = line.substr(0, colon);
    for (char c : name) {
      if (!IsTokenChar(c)) return Malformed("invalid character in header name");
    }
    std::string_view value = TrimOws(line.substr(colon + 1));
    for (char c : value) {
      unsigned char u = static_cast<unsigned char>(c);
      if ((u < 0x20 && c != '\t') || u == 0x7f) return Malformed("control character in a header value");
    }
    if (count < headers->size()) {
      (*headers)[count].first.assign(name);
      (*headers)[count].second.assign(value);
    } else {
      headers->emplace_back(std::string(name), std::string(value));
    }
    ++count;
  }
  headers->resize(count);
  if (first) return Malformed("empty message head");
  return Ok();
}

Result<StatusLine> ParseStatusLine(std::string_view line) {
  StatusLine s;
  if (line.size() < 12 || !ParseVersion(line.substr(0, 8), &s.major, &s.minor) || line[8] != ' ') {
    return Malformed("bad status line");
  }
  for (int i = 9; i < 12; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(line[i]))) return Malformed("bad status code");
    s.status = s.status * 10 + (line[i] - '0');
  }
  if (s.status < 100) return Malformed("bad status code");
  if (line.size() > 12) {
    if (line[12] != ' ') return Malformed("bad status line");
    s.reason.assign(line.substr(13));
  }
  return s;
}

static Status ParseRequestLineInto(std::string_view line, RequestLine* r) {
  size_t sp1 = line.find(' ');
  if (sp1 == std::string_view::npos || sp1 == 0) return Malformed("bad request line");
  size_t sp2 = line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || sp2 == sp1 + 1) return Malformed("bad request line");
  std::string_view method = line.substr(0, sp1);
  std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  std::string_view version = line.substr(sp2 + 1);
  for (char c : method) {
    if (!IsTokenChar(c)) return Malformed("bad request method");
  }
  for (char c : target) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u == 0x7f) return Malformed("the request target contains a space or a control character");
  }
  if (!ParseVersion(version, &r->major, &r->minor)) return Malformed("unsupported HTTP version");
  r->method.assign(method);
  r->target.assign(target);
  return Ok();
}

Result<MessageHead> ParseHead(std::string_view head) {
  MessageHead out;
  if (Status s = ParseHeadInto(head, &out.start_line, &out.headers); !s.ok()) return s.error();
  return out;
}

Result<RequestLine> ParseRequestLine(std::string_view line) {
  RequestLine r;
  if (Status s = ParseRequestLineInto(line, &r); !s.ok()) return s.error();
  return r;
}

Status ParseRequestHeadInto(std::string_view text, RequestHead* out, std::string* start_line) {
  if (Status s = ParseHeadInto(text, start_line, &out->headers); !s.ok()) return s;
  if (Status s = ParseRequestLineInto(*start_line, &out->line); !s.ok()) return s;
  int lengths = 0, codings = 0;
  for (const auto& [name, value] : out->headers) {
    if (IEquals(name, "Content-Length")) {
      ++lengths;
      if (value.empty() || value.size() > 18 || value.find_first_not_of("0123456789") != std::string::npos)
        return Malformed("invalid Content-Length");
    }
    if (IEquals(name, "Transfer-Encoding")) ++codings;
  }
  if (lengths > 1) return Malformed("more than one Content-Length");
  if (codings > 1) return Malformed("more than one Transfer-Encoding");
  if (lengths && codings) return Malformed("both Transfer-Encoding and Content-Length");
  return Ok();
}

Result<RequestHead> ParseRequestHead(std::string_view text) {
  RequestHead out;
  std::string start_line;
  if (Status s = ParseRequestHeadInto(text, &out, &start_line); !s.ok()) return s.error();
  return out;
}

Result<size_t> ChunkedDecoder::Feed(std::string_view in, std::string* out) {
  size_t i = 0;
  while (i < in.size() && state_ != State::kDone) {
    switch (state_) {
      case State::kSize:
      case State::kTrailer: {
        size_t nl = in.find('\n', i);
        size_t take = (nl == std::string_view::npos ? in.size() : nl) - i;
        if (line_.size() + take > kMaxLineBytes) return Malformed("chunk size or trailer line too long");
        line_.append(in.substr(i, take));
        if (nl == std::string_view::npos) return in.size();
        i = nl + 1;
        std::string_view line = line_;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (state_ == State::kTrailer) {
          if (line.empty()) state_ = State::kDone;
          line_.clear();
          break;
        }
        size_t semi = line.find(';');
        std::string_view hex = TrimOws(line.substr(0, semi));
        if (hex.empty() || hex.size() > 15) return Malformed("bad chunk size");
        uint64_t size = 0;
        for (char c : hex) {
          int d = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
                  : (c >= 'a' && c <= 'f')                   ? c - 'a' + 10
                  : (c >= 'A' && c <= 'F')                   ? c - 'A' + 10
                                                             : -1;
          if (d < 0) return Malformed("bad chunk size");
          size = size * 16 + static_cast<uint64_t>(d);
        }
        line_.clear();
        remaining_ = size;
        state_ = size == 0 ? State::kTrailer : State::kData;
        break;
      }
      case State::kData: {
        size_t take = static_cast<size_t>(std::min<uint64_t>(remaining_, in.size() - i));
        out->append(in.substr(i, take));
        i += take;
        remaining_ -= take;
        if (remaining_ == 0) state_ = State::kDataCr;
        break;
      }
      case State::kDataCr:
        if (in[i] == '\r') {
          ++i;
          state_ = State::kDataLf;
        } else if (in[i] == '\n') {
          ++i;
          state_ = State::kSize;
        } else {
          return Malformed("chunk data not followed by CRLF");
        }
        break;
      case State::kDataLf:
        if (in[i] != '\n') return Malformed("chunk data not followed by CRLF");
        ++i;
        state_ = State::kSize;
        break;
      case State::kDone:
        break;
    }
  }
  return i;
}

}  // namespace sepp::net
