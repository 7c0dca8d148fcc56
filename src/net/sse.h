// Server-Sent Events parser (the WHATWG event-stream format), incremental:
// feed bytes as they arrive, split anywhere, get whole events.
#pragma once
#include <functional>
#include <string>
#include <string_view>

namespace sepp::net {

// id is the stream's last event ID at dispatch time (it persists across
// events until an "id" field changes it).
struct SseEvent {
  std::string event;  // "message" if the stream gave none
  std::string data;   // data lines joined with '\n'
  std::string id;
};

// Formats one event for the wire (for servers: `sepp serve`, the fake
// provider). Data is split into one "data:" line per line (CR, LF and CRLF
// all count as line ends, so the parser gives back the data with '\n'
// line ends); "event" is left out when empty or "message"; "id" when empty.
// CR/LF in event or id would break the framing and are dropped.
std::string FormatSseEvent(const SseEvent& event);

// One event (its data, or a line still being collected) may hold at most
// this many bytes: a stream that sends more is broken or hostile, and
// collecting it would take memory without limit.
constexpr size_t kMaxSseEventBytes = 16u << 20;  // 16 MiB

class SseParser {
 public:
  explicit SseParser(std::function<void(const SseEvent&)> on_event,
                     size_t max_event_bytes = kMaxSseEventBytes);
  // Feeds a chunk; calls on_event for every event it completes. Once an
  // event outgrows max_event_bytes the parser drops it and everything after
  // (too_big() turns true): the caller ends the stream with an error.
  void Feed(std::string_view chunk);
  bool too_big() const { return too_big_; }
  // At end of stream: an unterminated final event is dropped (per spec).
  // Returns true if the stream ended in the middle of an event.
  bool Finish();

  // The last "retry" value the stream sent, in milliseconds; -1 if none.
  long retry_ms() const { return retry_ms_; }

 private:
  void ProcessLine(std::string_view line);
  void Overflow();
  std::function<void(const SseEvent&)> on_event_;
  size_t max_event_bytes_;
  bool too_big_ = false;
  std::string buffer_;
  SseEvent current_;
  bool has_data_ = false;
  bool skip_lf_ = false;
  bool first_line_ = true;   // a UTF-8 BOM may open the stream
  std::string last_id_;      // persists across events, as the spec says
  long retry_ms_ = -1;
};

}  // namespace sepp::net
