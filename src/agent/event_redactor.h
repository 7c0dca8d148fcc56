// Every event passes through this before any front end sees it, so no
// registered secret reaches stdout, stderr, --output json, stream-json or a
// protocol client, whether a model wrote it or a tool printed it.
//
// Text that streams (message and thinking deltas, a tool call's output)
// goes through a StreamRedactor per stream, so a secret split across two
// deltas or two reads is caught: the tail that could be the start of one
// is held back and comes out in the stream's next event. A stream is
// flushed (an extra delta with what was held) before any event that is not
// part of it: deltas before message.completed or a tool call, a tool's
// output before its tool.finished. Every other string field is redacted
// whole.
#pragma once
#include <map>
#include <string>

#include "agent/events.h"
#include "base/stream_redactor.h"

namespace sepp::agent {

class EventRedactor {
 public:
  explicit EventRedactor(EventSink sink) : sink_(std::move(sink)) {}
  // Not thread-safe: the agent calls it under its emit lock.
  void operator()(const Event& e);

 private:
  struct Stream {
    StreamRedactor redactor;
    Event last{EventType::kMessageDelta};  // the stream's type, turn, call id
  };
  void Pass(Stream& stream, const Event& e);
  void FlushDeltas();
  void FlushToolOutput(const std::string& call_id);
  void Send(Event e, std::string text);

  EventSink sink_;
  Stream message_, thinking_;
  bool message_open_ = false, thinking_open_ = false;
  std::map<std::string, Stream> tool_output_;  // by call id
};

}  // namespace sepp::agent
