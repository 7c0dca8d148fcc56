#include "llm/wire.h"

#include <algorithm>

namespace sepp::llm::wire {

const Json* Get(const Json& j, std::string_view key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  if (it == j.end()) return nullptr;
  return &*it;
}

std::string Str(const Json& j, std::string_view key) {
  const Json* v = Get(j, key);
  if (!v || !v->is_string()) return {};
  return v->get<std::string>();
}

int64_t Int(const Json& j, std::string_view key) {
  const Json* v = Get(j, key);
  if (!v || !v->is_number()) return 0;
  if (v->is_number_float()) {
    double d = v->get<double>();
    if (!(d >= 0 && d < 9e15)) return 0;
    return static_cast<int64_t>(d);
  }
  return v->get<int64_t>();
}

bool IsObject(const Json& j, std::string_view key) {
  const Json* v = Get(j, key);
  return v && v->is_object();
}

Error Protocol(std::string_view api, const std::string& what) {
  return Error::Make("unexpected response from the " + std::string(api) + " API: " + what,
                     "protocol");
}

void SetArguments(ContentBlock* call, const std::string& raw) {
  call->arguments_error.clear();
  call->raw_arguments.clear();
  if (raw.find_first_not_of(" \t\r\n") == std::string::npos) {
    call->arguments = Json::object();
    return;
  }
  auto parsed = ParseJson(raw);
  if (!parsed) {
    call->arguments = nullptr;
    call->raw_arguments = raw;
    call->arguments_error = "the arguments are not valid JSON (" + parsed.error().message + ")";
    return;
  }
  if (!parsed->is_object()) {
    call->arguments = nullptr;
    call->raw_arguments = raw;
    call->arguments_error = "the arguments must be a JSON object";
    return;
  }
  call->arguments = std::move(*parsed);
}

std::vector<Message> NormalizeConversation(const std::vector<Message>& messages) {
  std::vector<Message> out;
  out.reserve(messages.size());
  std::vector<const ContentBlock*> pending;  // calls still waiting for a result
  auto answer_pending = [&] {
    for (const ContentBlock* call : pending) {
      out.push_back(Message::ToolResult(call->id, call->name,
                                        "the tool call was not run: the turn was interrupted",
                                        true));
    }
    pending.clear();
  };
  for (const auto& m : messages) {
    if (m.role == Role::kToolResult) {
      auto it = std::find_if(pending.begin(), pending.end(),
                             [&](const ContentBlock* c) { return c->id == m.tool_call_id; });
      if (it == pending.end()) continue;  // answers nothing: drop
      pending.erase(it);
      out.push_back(m);
      continue;
    }
    answer_pending();
    out.push_back(m);
    if (m.role == Role::kAssistant) pending = m.ToolCalls();
  }
  answer_pending();
  return out;
}

const std::vector<Message>& Normalized(const std::vector<Message>& messages,
                                       std::vector<Message>* fixed) {
  // NormalizeConversation's walk, only noting whether it would change anything.
  std::vector<const ContentBlock*> pending;
  bool normal = true;
  for (const auto& m : messages) {
    if (m.role == Role::kToolResult) {
      auto it = std::find_if(pending.begin(), pending.end(),
                             [&](const ContentBlock* c) { return c->id == m.tool_call_id; });
      if (it == pending.end()) {
        normal = false;  // an orphan result would be dropped
        break;
      }
      pending.erase(it);
      continue;
    }
    if (!pending.empty()) {
      normal = false;  // an unanswered call would get a result
      break;
    }
    if (m.role == Role::kAssistant)
      for (const auto& b : m.content)
        if (b.kind == ContentBlock::Kind::kToolCall) pending.push_back(&b);
  }
  if (normal && pending.empty()) return messages;
  *fixed = NormalizeConversation(messages);
  return *fixed;
}

std::string ArgumentsText(const ContentBlock& call) {
  if (!call.raw_arguments.empty()) return call.raw_arguments;
  if (call.arguments.is_null()) return "{}";
  return DumpJson(call.arguments);
}

void ReadOpenAiUsage(const Json& u, std::string_view input_key, std::string_view output_key,
                     Usage* usage) {
  if (!u.is_object()) return;
  int64_t in = Int(u, input_key);
  int64_t cached = 0;
  std::string details = std::string(input_key) + "_details";
  if (const Json* d = Get(u, details)) cached = Int(*d, "cached_tokens");
  if (cached > in) cached = in;
  usage->input = in - cached;
  usage->cache_read = cached;
  usage->output = Int(u, output_key);
}

StreamDecoder::StreamDecoder(std::string_view api, const StreamSink* sink, Endpoint ep)
    : sink_(sink), ep_(std::move(ep)), api_(api) {
  message_.role = Role::kAssistant;
  message_.model = ep_.model;
}

Status StreamDecoder::OnEvent(const net::SseEvent& event) {
  try {
    return Handle(event);
  } catch (const std::exception& e) {
    return Protocol(api_, std::string("malformed event: ") + e.what());
  }
}

Error StreamDecoder::Incomplete() const {
  return Error::Make("the stream from " + ep_.host + " ended before the response was complete",
                     "server");
}

}  // namespace sepp::llm::wire
