#include "front/rpc/line_reader.h"

namespace sepp::front::rpc {

void LineReader::Emit() {
  std::string_view line = buf_;
  if (!too_long_ && !line.empty() && line.back() == '\r') line.remove_suffix(1);
  on_line_(line, too_long_);
  buf_.clear();
  too_long_ = false;
}

void LineReader::Feed(std::string_view data) {
  while (!data.empty()) {
    size_t nl = data.find('\n');
    std::string_view part = data.substr(0, nl);
    if (!too_long_) {
      if (buf_.size() + part.size() > max_) {
        // Keep a prefix for the error message, drop the rest up to the LF.
        if (buf_.size() < 200) buf_.append(part.substr(0, 200 - buf_.size()));
        too_long_ = true;
      } else {
        buf_.append(part);
      }
    }
    if (nl == std::string_view::npos) return;
    Emit();
    data.remove_prefix(nl + 1);
  }
}

void LineReader::Finish() {
  if (!buf_.empty() || too_long_) Emit();
}

}  // namespace sepp::front::rpc
