// Server-Sent Events, as the WHATWG HTML standard ("event stream
// interpretation") defines them:
//
//   stream = [BOM] *event ; lines end in CRLF, LF or CR
//   a line ":..."          is a comment (providers send keep-alives this way)
//   a line "field: value"  sets a field; one space after the colon is dropped
//   a line "field"         is a field with an empty value
//   an empty line          dispatches the event if any data line was seen
//
// Fields: event (type), data (appended + '\n'), id (ignored if it contains
// NUL; persists across events), retry (digits only). Unknown fields are
// ignored. Bytes are passed through untouched (UTF-8 decoding is the
// consumer's business), so NUL bytes in data survive.
//
// Feed() scans only the new bytes for line ends, so a huge line fed in tiny
// pieces costs linear time; the partial line waits in buffer_.
#include "net/sse.h"

#include <utility>

namespace sepp::net {

std::string FormatSseEvent(const SseEvent& e) {
  auto single_line = [](std::string_view v) {
    std::string out;
    for (char c : v) {
      if (c != '\r' && c != '\n') out.push_back(c);
    }
    return out;
  };
  std::string out;
  if (!e.id.empty()) out += "id: " + single_line(e.id) + "\n";
  if (!e.event.empty() && e.event != "message") out += "event: " + single_line(e.event) + "\n";
  std::string_view data = e.data;
  for (;;) {
    size_t end = data.find_first_of("\r\n");
    out += "data: ";
    out.append(data.substr(0, end));
    out += "\n";
    if (end == std::string_view::npos) break;
    if (data[end] == '\r' && end + 1 < data.size() && data[end + 1] == '\n') ++end;
    data.remove_prefix(end + 1);
  }
  out += "\n";
  return out;
}

SseParser::SseParser(std::function<void(const SseEvent&)> on_event, size_t max_event_bytes)
    : on_event_(std::move(on_event)), max_event_bytes_(max_event_bytes) {}

void SseParser::Feed(std::string_view chunk) {
  if (too_big_) return;
  size_t i = 0;
  if (skip_lf_ && !chunk.empty()) {
    // The previous chunk ended in CR; a LF right after it belongs to it.
    if (chunk[0] == '\n') i = 1;
    skip_lf_ = false;
  }
  while (i < chunk.size()) {
    size_t end = i;  // a plain loop: several times faster than find_first_of
    while (end < chunk.size() && chunk[end] != '\n' && chunk[end] != '\r') ++end;
    if (end == chunk.size()) {
      if (buffer_.size() + current_.data.size() + (end - i) > max_event_bytes_) return Overflow();
      buffer_.append(chunk.substr(i));
      return;
    }
    if (buffer_.size() + current_.data.size() + (end - i) > max_event_bytes_) return Overflow();
    if (buffer_.empty()) {
      ProcessLine(chunk.substr(i, end - i));
    } else {
      buffer_.append(chunk.substr(i, end - i));
      std::string line = std::move(buffer_);
      buffer_.clear();
      ProcessLine(line);
    }
    if (chunk[end] == '\r') {
      if (end + 1 < chunk.size()) {
        if (chunk[end + 1] == '\n') ++end;
      } else {
        skip_lf_ = true;
      }
    }
    i = end + 1;
  }
}

void SseParser::Overflow() {
  too_big_ = true;
  buffer_.clear();
  buffer_.shrink_to_fit();
  current_ = SseEvent{};
  has_data_ = false;
}

bool SseParser::Finish() {
  bool mid_event = !buffer_.empty() || has_data_ || !current_.event.empty();
  buffer_.clear();
  current_ = SseEvent{};
  has_data_ = false;
  skip_lf_ = false;
  return mid_event;
}

void SseParser::ProcessLine(std::string_view line) {
  if (first_line_) {
    first_line_ = false;
    if (line.substr(0, 3) == "\xEF\xBB\xBF") line.remove_prefix(3);
  }
  if (line.empty()) {
    if (has_data_) {
      if (!current_.data.empty() && current_.data.back() == '\n') current_.data.pop_back();
      if (current_.event.empty()) current_.event = "message";
      current_.id = last_id_;
      on_event_(current_);
    }
    // clear() rather than a fresh SseEvent: the strings keep their capacity.
    current_.event.clear();
    current_.data.clear();
    has_data_ = false;
    return;
  }
  if (line[0] == ':') return;  // comment

  std::string_view field = line;
  std::string_view value;
  size_t colon = line.find(':');
  if (colon != std::string_view::npos) {
    field = line.substr(0, colon);
    value = line.substr(colon + 1);
    if (!value.empty() && value[0] == ' ') value.remove_prefix(1);
  }

  if (field == "event") {
    current_.event.assign(value);
  } else if (field == "data") {
    current_.data.append(value);
    current_.data.push_back('\n');
    has_data_ = true;
  } else if (field == "id") {
    if (value.find('\0') == std::string_view::npos) last_id_.assign(value);
  } else if (field == "retry") {
    if (value.empty() || value.size() > 15) return;
    long ms = 0;
    for (char c : value) {
      if (c < '0' || c > '9') return;
      ms = ms * 10 + (c - '0');
    }
    retry_ms_ = ms;
  }
}

}  // namespace sepp::net
