#include "front/acp/line_reader.h"

#include <cerrno>
#include <cstring>
#include <unistd.h>

namespace sepp::front::jsonrpc {

std::optional<Line> LineReader::Next() {
  for (;;) {
    size_t nl = buf_.find('\n', scan_);
    if (nl != std::string::npos) {
      Line line;
      if (skipping_) {
        skipping_ = false;
        line.too_long = true;
      } else if (nl > max_line_) {
        line.too_long = true;
      } else {
        line.text.assign(buf_, 0, nl);
        if (!line.text.empty() && line.text.back() == '\r') line.text.pop_back();
      }
      buf_.erase(0, nl + 1);
      scan_ = 0;
      return line;
    }
    scan_ = buf_.size();
    if (buf_.size() > max_line_) {  // keep no more of an over-long line
      skipping_ = true;
      buf_.clear();
      scan_ = 0;
    }
    if (eof_) {
      if (skipping_) {
        skipping_ = false;
        buf_.clear();
        scan_ = 0;
        return Line{{}, true};
      }
      if (buf_.empty()) return std::nullopt;
      Line last{std::move(buf_), false};
      buf_.clear();
      scan_ = 0;
      if (!last.text.empty() && last.text.back() == '\r') last.text.pop_back();
      return last;
    }
    char chunk[65536];
    ssize_t n = read(fd_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      eof_ = true;
      continue;
    }
    buf_.append(chunk, static_cast<size_t>(n));
  }
}

}  // namespace sepp::front::jsonrpc
