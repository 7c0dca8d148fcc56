#include "agent/event_redactor.h"

#include "base/secrets.h"

namespace sepp::agent {
namespace {

// True if a string or a key in value holds a registered secret; when false,
// RedactJson(value) == value.
bool HasSecret(const Json& value) {
  switch (value.type()) {
    case Json::value_t::string: return ContainsSecret(value.get_ref<const std::string&>());
    case Json::value_t::array:
      for (const auto& v : value.get_ref<const Json::array_t&>())
        if (HasSecret(v)) return true;
      return false;
    case Json::value_t::object:
      for (const auto& [k, v] : value.get_ref<const Json::object_t&>())
        if (ContainsSecret(k) || HasSecret(v)) return true;
      return false;
    default: return false;
  }
}

}  // namespace

void EventRedactor::operator()(const Event& e) {
  if (!sink_) return;
  switch (e.type) {
    case EventType::kMessageDelta:
      if (thinking_open_) FlushDeltas();
      message_open_ = true;
      Pass(message_, e);
      return;
    case EventType::kThinkingDelta:
      if (message_open_) FlushDeltas();
      thinking_open_ = true;
      Pass(thinking_, e);
      return;
    case EventType::kToolOutput:
      Pass(tool_output_[e.call_id], e);
      return;
    default:
      break;
  }
  FlushDeltas();
  if (e.type == EventType::kToolFinished) FlushToolOutput(e.call_id);
  // Most events hold no secret: they pass as they are, not copied.
  bool secret = ContainsSecret(e.text) || ContainsSecret(e.kind) || ContainsSecret(e.summary) ||
                ContainsSecret(e.result) || HasSecret(e.args) || HasSecret(e.message) ||
                HasSecret(e.data);
  if (!secret) {
    sink_(e);
    return;
  }
  Event out = e;
  out.text = Redact(e.text);
  out.kind = Redact(e.kind);
  out.summary = Redact(e.summary);
  out.result = Redact(e.result);
  out.args = RedactJson(e.args);
  out.message = RedactJson(e.message);
  out.data = RedactJson(e.data);
  sink_(out);
}

void EventRedactor::Pass(Stream& stream, const Event& e) {
  stream.last = e;
  stream.last.text.clear();
  std::string text = stream.redactor.Push(e.text);
  // A delta wholly held back is sent later, with the next one; an empty
  // delta that was empty to begin with still goes out.
  if (text.empty() && !e.text.empty()) return;
  Send(e, std::move(text));
}

void EventRedactor::FlushDeltas() {
  if (message_open_) {
    if (std::string rest = message_.redactor.Flush(); !rest.empty()) Send(message_.last, rest);
    message_open_ = false;
  }
  if (thinking_open_) {
    if (std::string rest = thinking_.redactor.Flush(); !rest.empty()) Send(thinking_.last, rest);
    thinking_open_ = false;
  }
}

void EventRedactor::FlushToolOutput(const std::string& call_id) {
  auto it = tool_output_.find(call_id);
  if (it == tool_output_.end()) return;
  if (std::string rest = it->second.redactor.Flush(); !rest.empty()) Send(it->second.last, rest);
  tool_output_.erase(it);
}

void EventRedactor::Send(Event e, std::string text) {
  e.text = std::move(text);
  // Whatever else a delta carries (it should carry nothing else) is redacted too.
  e.summary = Redact(e.summary);
  e.args = RedactJson(e.args);
  e.data = RedactJson(e.data);
  sink_(e);
}

}  // namespace sepp::agent
