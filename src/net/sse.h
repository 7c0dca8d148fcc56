// Server-Sent Events parser (the WHATWG event-stream format), incremental:
// feed bytes as they arrive, split anywhere, get whole events.
#pragma once
#include <functional>
#include <string>
#include <string_view>

namespace sepp::net {

struct SseEvent {
  std::string event;  // "message" if the stream gave none
  std::string data;   // data lines joined with '\n'
  std::string id;
};

class SseParser {
 public:
  explicit SseParser(std::function<void(const SseEvent&)> on_event);
  // Feeds a chunk; calls on_event for every event it completes.
  void Feed(std::string_view chunk);
  // At end of stream: an unterminated final event is dropped (per spec).
  // Returns true if the stream ended in the middle of an event.
  bool Finish();

 private:
  void ProcessLine(std::string_view line);
  std::function<void(const SseEvent&)> on_event_;
  std::string buffer_;
  SseEvent current_;
  bool has_data_ = false;
  bool skip_lf_ = false;
};

}  // namespace sepp::net
