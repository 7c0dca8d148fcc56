// OpenAI chat completions codec.
//
// Request: {"model","messages":[{"role":"system","content"},
//   {"role":"user","content"}, {"role":"assistant","content"|null,
//   "tool_calls":[{"id","type":"function","function":{"name","arguments"}}]},
//   {"role":"tool","tool_call_id","content"}], "tools":[{"type":"function",
//   "function":{"name","description","parameters"}}], "stream",
//   "stream_options":{"include_usage":true}, "max_completion_tokens"}.
// Thinking blocks cannot be sent back through this API and are dropped.
//
// Stream: "data: {chunk}" lines; chunk.choices[0].delta carries content,
// reasoning (some servers) and tool_calls deltas keyed by index: the first
// delta of a call brings id and function.name, later ones fragments of
// function.arguments. finish_reason arrives on the last content chunk; with
// include_usage a final chunk has "choices":[] and "usage"; then
// "data: [DONE]". An {"error":{..}} chunk is a mid-stream failure.
// Usage: prompt_tokens includes cached tokens; we report input without
// them and cache_read separately, as Anthropic does, so totals agree.
#include "llm/openai_chat.h"

#include <algorithm>
#include <map>
#include <optional>

#include "llm/models.h"

namespace sepp::llm::openai_chat {
namespace {

using wire::Get;
using wire::Int;
using wire::Str;

constexpr std::string_view kApi = "OpenAI chat completions";

Json ChatMessages(const Request& r) {
  Json out = Json::array();
  if (!r.system.empty()) out.push_back({{"role", "system"}, {"content", r.system}});
  std::vector<Message> fixed;
  const std::vector<Message>& conversation = wire::Normalized(r.messages, &fixed);
  for (Json& item : ConversationItems(conversation, 0, conversation.size())) out.push_back(std::move(item));
  return out;
}

StopReason MapFinish(const std::string& reason, bool has_calls, std::string* error) {
  if (reason == "length") return StopReason::kLength;
  if (reason == "tool_calls" || reason == "function_call") return StopReason::kToolUse;
  if (reason == "content_filter") {
    *error = "the response was stopped by the provider's content filter";
    return StopReason::kError;
  }
  // stop, eos, unknown: some servers say "stop" even after tool calls.
  return has_calls ? StopReason::kToolUse : StopReason::kStop;
}

void ReadUsage(const Json& u, Usage* usage) {
  wire::ReadOpenAiUsage(u, "prompt_tokens", "completion_tokens", usage);
}

Failure ErrorObject(const Json& err, const Endpoint& ep) {
  if (err.is_string()) return ClassifyErrorObject(ep, "", "", err.get<std::string>());
  if (!err.is_object()) return Failure{wire::Protocol(kApi, "an error that is not an object"), false};
  std::string code;
  if (const Json* c = Get(err, "code")) {
    if (c->is_string()) code = c->get<std::string>();
    if (c->is_number_integer() && c->get<int64_t>() == 429) code = "rate_limit_exceeded";
  }
  return ClassifyErrorObject(ep, Str(err, "type"), code, Str(err, "message"));
}

std::string ReasoningText(const Json& obj) {
  std::string r = Str(obj, "reasoning_content");
  if (r.empty()) r = Str(obj, "reasoning");
  return r;
}

class Decoder : public wire::StreamDecoder {
 public:
  Decoder(const StreamSink* sink, Endpoint ep) : StreamDecoder(kApi, sink, std::move(ep)) {}


  Result<Message> Finish() override {
    if (!done_ && !finish_seen_) {
      return Incomplete();
    }
    if (auto s = CloseCalls(); !s) return s.error();
    message_.stop_reason = MapFinish(finish_reason_, !message_.ToolCalls().empty(), &message_.error);
    return message_;
  }

 private:
  struct Call {
    size_t position;
    std::string arguments;
  };

  Status Handle(const net::SseEvent& event) override {
    std::string_view data = event.data;
    if (data == "[DONE]") {
      done_ = true;
      return Ok();
    }
    if (data.empty()) return Ok();  // keep-alive
    auto parsed = ParseJson(data);
    if (!parsed) return wire::Protocol(kApi, "a chunk that is not JSON");
    const Json& j = *parsed;
    if (!j.is_object()) return wire::Protocol(kApi, "a chunk that is not an object");
    if (const Json* err = Get(j, "error"); err && !err->is_null()) return ErrorObject(*err, ep_).error;
    std::string model = Str(j, "model");
    if (!model.empty()) message_.model = model;
    if (const Json* u = Get(j, "usage"); u && u->is_object()) ReadUsage(*u, &message_.usage);
    const Json* choices = Get(j, "choices");
    if (!choices || choices->is_null()) return Ok();
    if (!choices->is_array()) return wire::Protocol(kApi, "choices is not an array");
    for (const auto& choice : *choices) {
      if (!choice.is_object()) return wire::Protocol(kApi, "a choice is not an object");
      if (Int(choice, "index") != 0) continue;  // we ask for one choice
      if (const Json* delta = Get(choice, "delta"); delta && !delta->is_null()) {
        if (!delta->is_object()) return wire::Protocol(kApi, "delta is not an object");
        if (auto s = Delta(*delta); !s) return s;
      }
      const Json* fr = Get(choice, "finish_reason");
      if (fr && fr->is_string()) {
        finish_reason_ = fr->get<std::string>();
        finish_seen_ = true;
        if (auto s = CloseCalls(); !s) return s;
      }
    }
    return Ok();
  }

  Status Delta(const Json& delta) {
    const Json* content = Get(delta, "content");
    if (content && !content->is_null() && !content->is_string()) {
      return wire::Protocol(kApi, "delta.content is not a string");
    }
    std::string reasoning = ReasoningText(delta);
    if (!reasoning.empty()) {
      Block(&thinking_pos_, ContentBlock::Kind::kThinking).text += reasoning;
      if (sink_ && sink_->on_thinking) sink_->on_thinking(reasoning);
    }
    if (content && content->is_string() && !content->get_ref<const std::string&>().empty()) {
      const std::string& text = content->get_ref<const std::string&>();
      Block(&text_pos_, ContentBlock::Kind::kText).text += text;
      if (sink_ && sink_->on_text) sink_->on_text(text);
    }
    if (const Json* tc = Get(delta, "tool_calls"); tc && !tc->is_null()) {
      if (!tc->is_array()) return wire::Protocol(kApi, "tool_calls is not an array");
      int64_t position = 0;
      for (const auto& d : *tc) {
        if (!d.is_object()) return wire::Protocol(kApi, "a tool call delta is not an object");
        const Json* idx = Get(d, "index");
        int64_t index = idx && idx->is_number_integer() ? idx->get<int64_t>() : position;
        ++position;
        const Json* fn = Get(d, "function");
        if (fn && !fn->is_null() && !fn->is_object()) {
          return wire::Protocol(kApi, "a tool call's function is not an object");
        }
        if (auto s = CallDelta(index, Str(d, "id"), fn ? *fn : Json::object()); !s) return s;
      }
    }
    if (const Json* fc = Get(delta, "function_call"); fc && fc->is_object()) {
      // The pre-tools API: one call, no id.
      if (auto s = CallDelta(-1, "", *fc); !s) return s;
    }
    return Ok();
  }

  Status CallDelta(int64_t index, const std::string& id, const Json& fn) {
    const Json* args = Get(fn, "arguments");
    if (args && !args->is_null() && !args->is_string()) {
      return wire::Protocol(kApi, "tool call arguments are not a string");
    }
    auto it = calls_.find(index);
    // Some servers reuse index 0 for every call but give each its own id.
    if (it != calls_.end() && !id.empty() && !message_.content[it->second.position].id.empty() &&
        message_.content[it->second.position].id != id) {
      retired_.push_back(it->second);
      calls_.erase(it);
      it = calls_.end();
    }
    if (it == calls_.end()) {
      if (calls_closed_) return wire::Protocol(kApi, "a tool call after finish_reason");
      message_.content.push_back(ContentBlock::ToolCall(id, "", Json::object()));
      it = calls_.emplace(index, Call{message_.content.size() - 1, {}}).first;
      order_.push_back(index);
    }
    ContentBlock& b = message_.content[it->second.position];
    if (b.id.empty()) b.id = id;
    b.name += Str(fn, "name");
    if (args && args->is_string()) it->second.arguments += args->get<std::string>();
    return Ok();
  }

  Status CloseCalls() {
    if (calls_closed_) return Ok();
    calls_closed_ = true;
    std::vector<Call> all = retired_;
    for (int64_t index : order_) {
      if (calls_.count(index)) all.push_back(calls_[index]);
    }
    std::sort(all.begin(), all.end(),
              [](const Call& a, const Call& b) { return a.position < b.position; });
    for (auto& call : all) {
      ContentBlock& b = message_.content[call.position];
      if (b.name.empty()) return wire::Protocol(kApi, "a tool call without a function name");
      if (b.id.empty()) b.id = "call_" + std::to_string(call.position);
      wire::SetArguments(&b, call.arguments);
      if (sink_ && sink_->on_tool_call) sink_->on_tool_call(b);
    }
    return Ok();
  }

  ContentBlock& Block(std::optional<size_t>* pos, ContentBlock::Kind kind) {
    if (!*pos) {
      ContentBlock b;
      b.kind = kind;
      message_.content.push_back(std::move(b));
      *pos = message_.content.size() - 1;
    }
    return message_.content[**pos];
  }

  std::optional<size_t> text_pos_, thinking_pos_;
  std::map<int64_t, Call> calls_;
  std::vector<int64_t> order_;
  std::vector<Call> retired_;
  bool calls_closed_ = false;
  std::string finish_reason_;
  bool finish_seen_ = false;
};

}  // namespace

Json ConversationItems(const std::vector<Message>& messages, size_t begin, size_t end) {
  Json out = Json::array();
  for (size_t i = begin; i < end; ++i) {
    const Message& m = messages[i];
    switch (m.role) {
      case Role::kUser:
        out.push_back({{"role", "user"}, {"content", m.Text()}});
        break;
      case Role::kToolResult:
        out.push_back(
            {{"role", "tool"}, {"tool_call_id", m.tool_call_id}, {"content", m.Text()}});
        break;
      case Role::kAssistant: {
        std::string text = m.Text();
        Json calls = Json::array();
        for (const auto* c : m.ToolCalls()) {
          calls.push_back({{"id", c->id},
                           {"type", "function"},
                           {"function", {{"name", c->name}, {"arguments", wire::ArgumentsText(*c)}}}});
        }
        if (text.empty() && calls.empty()) break;  // nothing the API would accept
        Json msg = {{"role", "assistant"}};
        msg["content"] = text.empty() ? Json(nullptr) : Json(text);
        if (!calls.empty()) msg["tool_calls"] = std::move(calls);
        out.push_back(std::move(msg));
        break;
      }
    }
  }
  return out;
}

Json LeadItems(const Request& request) {
  Json out = Json::array();
  if (!request.system.empty()) out.push_back({{"role", "system"}, {"content", request.system}});
  return out;
}

Json FixedMembers(const Request& request) {
  Json fixed = Json::object();
  if (!request.tools.empty()) {
    Json tools = Json::array();
    for (const auto& t : request.tools) {
      Json schema = t.parameters.is_object() ? t.parameters : Json{{"type", "object"}};
      tools.push_back({{"type", "function"},
                       {"function",
                        {{"name", t.name}, {"description", t.description}, {"parameters", schema}}}});
    }
    fixed["tools"] = std::move(tools);
  }
  return fixed;
}

Json BuildRequest(const Request& request, const Options& options, wire::Members members) {
  Json body = Json::object();
  body["model"] = request.model;
  if (members != wire::Members::kNoConversation) body["messages"] = ChatMessages(request);
  if (request.max_tokens > 0) {
    body[options.legacy_max_tokens ? "max_tokens" : "max_completion_tokens"] = request.max_tokens;
  }
  if (request.thinking_budget > 0 && LookupModel("openai", request.model).supports_thinking) {
    int b = request.thinking_budget;
    body["reasoning_effort"] = b <= 4096 ? "low" : b <= 16384 ? "medium" : "high";
  }
  if (request.stream) {
    body["stream"] = true;
    body["stream_options"] = {{"include_usage", true}};
  }
  if (members == wire::Members::kAll) body.update(FixedMembers(request));
  return body;
}

net::Headers RequestHeaders(const std::string& api_key, bool stream) {
  net::Headers h = {{"content-type", "application/json"}};
  if (!api_key.empty()) h.emplace_back("authorization", "Bearer " + api_key);
  if (stream) h.emplace_back("accept", "text/event-stream");
  return h;
}

std::unique_ptr<wire::StreamDecoder> NewStreamDecoder(const StreamSink* sink, const Endpoint& ep) {
  return std::make_unique<Decoder>(sink, ep);
}

Result<Message> ParseResponse(std::string_view body, const Endpoint& ep) {
  auto parsed = ParseJson(body);
  if (!parsed) return wire::Protocol(kApi, "the response is not JSON");
  try {
    const Json& j = *parsed;
    if (!j.is_object()) return wire::Protocol(kApi, "the response is not an object");
    if (const Json* err = Get(j, "error"); err && !err->is_null()) return ErrorObject(*err, ep).error;
    const Json* choices = Get(j, "choices");
    if (!choices || !choices->is_array() || choices->empty() || !(*choices)[0].is_object()) {
      return wire::Protocol(kApi, "the response has no choices");
    }
    const Json& choice = (*choices)[0];
    const Json* msg = Get(choice, "message");
    if (!msg || !msg->is_object()) return wire::Protocol(kApi, "the choice has no message");
    Message m;
    m.role = Role::kAssistant;
    m.model = Str(j, "model").empty() ? ep.model : Str(j, "model");
    std::string reasoning = ReasoningText(*msg);
    if (!reasoning.empty()) m.content.push_back(ContentBlock::Thinking(reasoning, ""));
    const Json* content = Get(*msg, "content");
    if (content && !content->is_null() && !content->is_string()) {
      return wire::Protocol(kApi, "message.content is not a string");
    }
    std::string text = Str(*msg, "content");
    if (!text.empty()) m.content.push_back(ContentBlock::Text(text));
    if (const Json* calls = Get(*msg, "tool_calls"); calls && !calls->is_null()) {
      if (!calls->is_array()) return wire::Protocol(kApi, "tool_calls is not an array");
      for (const auto& c : *calls) {
        const Json* fn = Get(c, "function");
        if (!fn || !fn->is_object() || Str(*fn, "name").empty()) {
          return wire::Protocol(kApi, "a tool call without a function name");
        }
        std::string id = Str(c, "id");
        if (id.empty()) id = "call_" + std::to_string(m.content.size());
        ContentBlock b = ContentBlock::ToolCall(id, Str(*fn, "name"), Json::object());
        const Json* args = Get(*fn, "arguments");
        if (args && args->is_object()) {
          b.arguments = *args;  // some local servers send an object
        } else {
          wire::SetArguments(&b, Str(*fn, "arguments"));
        }
        m.content.push_back(std::move(b));
      }
    }
    bool has_calls = !m.ToolCalls().empty();
    m.stop_reason = MapFinish(Str(choice, "finish_reason"), has_calls, &m.error);
    if (const Json* u = Get(j, "usage")) ReadUsage(*u, &m.usage);
    return m;
  } catch (const std::exception& e) {
    return wire::Protocol(kApi, std::string("malformed response: ") + e.what());
  }
}

}  // namespace sepp::llm::openai_chat
