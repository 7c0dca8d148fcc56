// Strict JSONL framing for RPC input: records end at LF (a preceding CR is
// dropped); nothing else splits a record (U+2028/2029 are ordinary text).
// A record longer than max_bytes is not buffered: it is skipped to its LF
// and reported once as too long, so one hostile line cannot exhaust memory.
#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace sepp::front::rpc {

class LineReader {
 public:
  // on_line(line, too_long): too_long lines arrive with only their first
  // bytes (up to 200) so the error can quote them.
  using OnLine = std::function<void(std::string_view line, bool too_long)>;
  LineReader(size_t max_bytes, OnLine on_line) : max_(max_bytes), on_line_(std::move(on_line)) {}

  // Feeds bytes as they arrive.
  void Feed(std::string_view data);
  // End of input: a last record without LF still counts.
  void Finish();

 private:
  void Emit();
  size_t max_;
  OnLine on_line_;
  std::string buf_;
  bool too_long_ = false;
};

}  // namespace sepp::front::rpc
