// Anthropic Messages API codec.
//
// Request: {"model","max_tokens","system":[{text, cache_control}],
//   "messages":[{"role":"user"|"assistant","content":[blocks]}],
//   "tools":[{"name","description","input_schema"}], "stream",
//   "thinking":{"type":"enabled","budget_tokens"}}.
// Our assistant blocks map to text / thinking (with signature) /
// redacted_thinking (data) / tool_use (input object). Tool results become
// user-role tool_result blocks; consecutive tool results share one user
// message, as the API requires all results of one turn together. The system
// prompt and the last message carry cache_control so that each turn reuses
// the cached prefix of the previous one.
//
// Stream: message_start (model, input usage) → per block content_block_start
// / content_block_delta (text_delta, thinking_delta, signature_delta,
// input_json_delta) / content_block_stop → message_delta (stop_reason,
// output usage) → message_stop. ping is ignored, error carries
// {"error":{"type","message"}} (overloaded_error is retryable). Unknown
// event and delta types are ignored: the API adds them over time.
#include "llm/anthropic.h"

#include <map>

#include "llm/models.h"
#include "llm/openai_responses.h"

namespace sepp::llm::anthropic {
namespace {

using wire::Get;
using wire::Int;
using wire::Str;

constexpr std::string_view kApi = "Anthropic Messages";

Json Ephemeral() { return Json{{"type", "ephemeral"}}; }

Json AssistantBlocks(const Message& m) {
  Json blocks = Json::array();
  for (const auto& b : m.content) {
    switch (b.kind) {
      case ContentBlock::Kind::kText:
        if (!b.text.empty()) blocks.push_back({{"type", "text"}, {"text", b.text}});
        break;
      case ContentBlock::Kind::kThinking:
        // Unsigned thinking, or another API's reasoning, cannot be verified
        // by the API and would be rejected: leave it out.
        if (b.signature.empty() || b.signature.rfind(openai_responses::kReasoningTag, 0) == 0) break;
        if (b.redacted) {
          blocks.push_back({{"type", "redacted_thinking"}, {"data", b.signature}});
        } else {
          blocks.push_back(
              {{"type", "thinking"}, {"thinking", b.text}, {"signature", b.signature}});
        }
        break;
      case ContentBlock::Kind::kToolCall:
        blocks.push_back({{"type", "tool_use"},
                          {"id", b.id},
                          {"name", b.name},
                          {"input", b.arguments.is_object() ? b.arguments : Json::object()}});
        break;
    }
  }
  return blocks;
}

Json ToolResultBlock(const Message& m) {
  Json content = Json::array();
  for (const auto& b : m.content) {
    if (b.kind == ContentBlock::Kind::kText && !b.text.empty()) {
      content.push_back({{"type", "text"}, {"text", b.text}});
    }
  }
  Json block = {{"type", "tool_result"}, {"tool_use_id", m.tool_call_id}};
  if (!content.empty()) block["content"] = std::move(content);
  if (m.is_error) block["is_error"] = true;
  return block;
}

}  // namespace

Json ConversationItems(const std::vector<Message>& messages, size_t begin, size_t end) {
  Json out = Json::array();
  bool last_was_tool_result = false;
  for (size_t i = begin; i < end; ++i) {
    const Message& m = messages[i];
    if (m.role == Role::kToolResult) {
      if (last_was_tool_result) {
        out.back()["content"].push_back(ToolResultBlock(m));
      } else {
        out.push_back({{"role", "user"}, {"content", Json::array({ToolResultBlock(m)})}});
      }
      last_was_tool_result = true;
      continue;
    }
    last_was_tool_result = false;
    if (m.role == Role::kAssistant) {
      Json blocks = AssistantBlocks(m);
      if (blocks.empty()) continue;  // e.g. an aborted turn: the API rejects empty content
      out.push_back({{"role", "assistant"}, {"content", std::move(blocks)}});
    } else {
      Json blocks = Json::array();
      for (const auto& b : m.content) {
        if (b.kind == ContentBlock::Kind::kText && !b.text.empty()) {
          blocks.push_back({{"type", "text"}, {"text", b.text}});
        }
      }
      if (blocks.empty()) continue;
      out.push_back({{"role", "user"}, {"content", std::move(blocks)}});
    }
  }
  return out;
}

void MarkCacheBreakpoint(Json* items) {
  // Cache everything up to the newest message.
  if (!items->empty() && !items->back()["content"].empty()) {
    items->back()["content"].back()["cache_control"] = Ephemeral();
  }
}

namespace {

StopReason MapStopReason(const std::string& reason, std::string* error) {
  if (reason == "max_tokens" || reason == "model_context_window_exceeded") {
    return StopReason::kLength;
  }
  if (reason == "tool_use") return StopReason::kToolUse;
  if (reason == "refusal") {
    *error = "the model declined to continue (refusal)";
    return StopReason::kError;
  }
  return StopReason::kStop;  // end_turn, stop_sequence, pause_turn, unknown
}

void ReadUsage(const Json& u, Usage* usage) {
  if (!u.is_object()) return;
  if (Get(u, "input_tokens")) usage->input = Int(u, "input_tokens");
  if (Get(u, "output_tokens")) usage->output = Int(u, "output_tokens");
  if (Get(u, "cache_read_input_tokens")) usage->cache_read = Int(u, "cache_read_input_tokens");
  if (Get(u, "cache_creation_input_tokens")) {
    usage->cache_write = Int(u, "cache_creation_input_tokens");
  }
}

Failure ErrorEvent(const Json& j, const Endpoint& ep) {
  const Json* err = Get(j, "error");
  if (!err || !err->is_object()) {
    return Failure{wire::Protocol(kApi, "an error event without an error object"), false};
  }
  return ClassifyErrorObject(ep, Str(*err, "type"), "", Str(*err, "message"));
}

// Builds one content block from a block object (content_block_start or a
// whole response). Tool-call input may be filled later by deltas.
Result<ContentBlock> BlockFromJson(const Json& cb) {
  std::string type = Str(cb, "type");
  if (type == "text") {
    const Json* t = Get(cb, "text");
    if (t && !t->is_string()) return wire::Protocol(kApi, "text is not a string");
    return ContentBlock::Text(Str(cb, "text"));
  }
  if (type == "thinking") return ContentBlock::Thinking(Str(cb, "thinking"), Str(cb, "signature"));
  if (type == "redacted_thinking") return ContentBlock::RedactedThinking(Str(cb, "data"));
  if (type == "tool_use") {
    std::string id = Str(cb, "id"), name = Str(cb, "name");
    if (id.empty() || name.empty()) return wire::Protocol(kApi, "a tool_use block without id or name");
    const Json* input = Get(cb, "input");
    ContentBlock call = ContentBlock::ToolCall(id, name, Json::object());
    if (input && input->is_object()) call.arguments = *input;
    return call;
  }
  if (type.empty()) return wire::Protocol(kApi, "a content block without a type");
  // server_tool_use, web_search_tool_result, ...: not ours; keep nothing.
  return Error::Make("skip", "skip");
}

class Decoder : public wire::StreamDecoder {
 public:
  Decoder(const StreamSink* sink, Endpoint ep) : StreamDecoder(kApi, sink, std::move(ep)) {}


  Result<Message> Finish() override {
    // A stream cut after message_delta lost nothing but message_stop.
    if (!done_ && !saw_stop_reason_) {
      return Incomplete();
    }
    for (auto& [index, open] : open_) CloseBlock(open);
    open_.clear();
    return message_;
  }

 private:
  struct Open {
    size_t position;      // into message_.content
    std::string partial;  // tool_use: accumulated input_json_delta
    bool has_partial = false;
  };

  Status Handle(const net::SseEvent& event) override {
    if (event.data.empty() && event.event == "ping") return Ok();
    auto parsed = ParseJson(event.data);
    if (!parsed) return wire::Protocol(kApi, "an event whose data is not JSON");
    const Json& j = *parsed;
    if (!j.is_object()) return wire::Protocol(kApi, "an event whose data is not an object");
    std::string type = Str(j, "type");
    if (type.empty()) type = event.event;

    if (type == "ping") return Ok();
    if (type == "error") return ErrorEvent(j, ep_).error;
    if (type == "message_start") {
      const Json* m = Get(j, "message");
      if (!m || !m->is_object()) return wire::Protocol(kApi, "message_start without a message");
      std::string model = Str(*m, "model");
      if (!model.empty()) message_.model = model;
      if (const Json* u = Get(*m, "usage")) ReadUsage(*u, &message_.usage);
      started_ = true;
      return Ok();
    }
    if (!started_) return wire::Protocol(kApi, "\"" + type + "\" before message_start");
    if (type == "content_block_start") return BlockStart(j);
    if (type == "content_block_delta") return BlockDelta(j);
    if (type == "content_block_stop") {
      const Json* idx = Get(j, "index");
      if (!idx || !idx->is_number_integer()) return wire::Protocol(kApi, "content_block_stop without an index");
      auto it = open_.find(idx->get<int64_t>());
      if (it == open_.end()) return Ok();  // a skipped block type
      CloseBlock(it->second);
      open_.erase(it);
      return Ok();
    }
    if (type == "message_delta") {
      const Json* d = Get(j, "delta");
      if (d && d->is_object()) {
        std::string reason = Str(*d, "stop_reason");
        if (!reason.empty()) {
          message_.stop_reason = MapStopReason(reason, &message_.error);
          saw_stop_reason_ = true;
        }
      }
      if (const Json* u = Get(j, "usage")) ReadUsage(*u, &message_.usage);
      return Ok();
    }
    if (type == "message_stop") {
      done_ = true;
      return Ok();
    }
    return Ok();  // new event types: ignore
  }

  Status BlockStart(const Json& j) {
    const Json* idx = Get(j, "index");
    const Json* cb = Get(j, "content_block");
    if (!idx || !idx->is_number_integer() || !cb || !cb->is_object()) {
      return wire::Protocol(kApi, "content_block_start without index or content_block");
    }
    auto block = BlockFromJson(*cb);
    if (!block) return block.error().kind == "skip" ? Ok() : Status(block.error());
    if (block->kind == ContentBlock::Kind::kText && !block->text.empty() && sink_ &&
        sink_->on_text) {
      sink_->on_text(block->text);
    }
    if (block->kind == ContentBlock::Kind::kThinking && !block->text.empty() && sink_ &&
        sink_->on_thinking) {
      sink_->on_thinking(block->text);
    }
    int64_t index = idx->get<int64_t>();
    if (open_.count(index)) return wire::Protocol(kApi, "a content block index started twice");
    message_.content.push_back(std::move(*block));
    open_[index] = Open{message_.content.size() - 1, {}, false};
    return Ok();
  }

  Status BlockDelta(const Json& j) {
    const Json* idx = Get(j, "index");
    const Json* d = Get(j, "delta");
    if (!idx || !idx->is_number_integer() || !d || !d->is_object()) {
      return wire::Protocol(kApi, "content_block_delta without index or delta");
    }
    auto it = open_.find(idx->get<int64_t>());
    if (it == open_.end()) return Ok();  // delta of a skipped or unknown block
    ContentBlock& b = message_.content[it->second.position];
    std::string type = Str(*d, "type");
    auto field = [&](const char* name) -> Result<std::string> {
      const Json* v = Get(*d, name);
      if (!v || !v->is_string()) {
        return wire::Protocol(kApi, type + " without a string \"" + name + "\"");
      }
      return v->get<std::string>();
    };
    auto expect = [&](ContentBlock::Kind kind) -> Status {
      if (b.kind != kind) return wire::Protocol(kApi, type + " for a block of another type");
      return Ok();
    };
    if (type == "text_delta") {
      auto text = field("text");
      if (!text) return text.error();
      if (auto s = expect(ContentBlock::Kind::kText); !s) return s;
      b.text += *text;
      if (sink_ && sink_->on_text && !text->empty()) sink_->on_text(*text);
    } else if (type == "thinking_delta") {
      auto text = field("thinking");
      if (!text) return text.error();
      if (auto s = expect(ContentBlock::Kind::kThinking); !s) return s;
      b.text += *text;
      if (sink_ && sink_->on_thinking && !text->empty()) sink_->on_thinking(*text);
    } else if (type == "signature_delta") {
      auto sig = field("signature");
      if (!sig) return sig.error();
      if (auto s = expect(ContentBlock::Kind::kThinking); !s) return s;
      b.signature += *sig;
    } else if (type == "input_json_delta") {
      auto part = field("partial_json");
      if (!part) return part.error();
      if (auto s = expect(ContentBlock::Kind::kToolCall); !s) return s;
      it->second.partial += *part;
      it->second.has_partial = true;
    }
    return Ok();  // citations_delta and new delta types: ignore
  }

  void CloseBlock(Open& open) {
    ContentBlock& b = message_.content[open.position];
    if (b.kind != ContentBlock::Kind::kToolCall) return;
    if (open.has_partial) wire::SetArguments(&b, open.partial);
    if (sink_ && sink_->on_tool_call) sink_->on_tool_call(b);
  }

  std::map<int64_t, Open> open_;
  bool started_ = false;
  bool saw_stop_reason_ = false;
};

}  // namespace

Json FixedMembers(const Request& request) {
  Json fixed = Json::object();
  if (!request.system.empty()) {
    fixed["system"] = Json::array(
        {{{"type", "text"}, {"text", request.system}, {"cache_control", Ephemeral()}}});
  }
  if (!request.tools.empty()) {
    Json tools = Json::array();
    for (const auto& t : request.tools) {
      Json schema = t.parameters.is_object() ? t.parameters : Json{{"type", "object"}};
      tools.push_back({{"name", t.name}, {"description", t.description}, {"input_schema", schema}});
    }
    fixed["tools"] = std::move(tools);
  }
  return fixed;
}

Json BuildRequest(const Request& request, wire::Members members) {
  ModelInfo info = LookupModel("anthropic", request.model);
  int max_tokens = request.max_tokens;
  if (max_tokens <= 0) {
    // Long non-streamed requests are refused by the API; keep them short.
    max_tokens = std::min(info.max_output, request.stream ? 32000 : 16384);
  }
  Json body = Json::object();
  body["model"] = request.model;
  // Models known not to think reject the thinking parameter.
  if (request.thinking_budget > 0 && info.supports_thinking) {
    int budget = std::max(1024, request.thinking_budget);
    if (max_tokens <= budget) max_tokens = budget + 4096;
    body["thinking"] = {{"type", "enabled"}, {"budget_tokens", budget}};
  }
  body["max_tokens"] = max_tokens;
  if (members != wire::Members::kNoConversation) {
    std::vector<Message> fixed;
    const std::vector<Message>& conversation = wire::Normalized(request.messages, &fixed);
    Json items = ConversationItems(conversation, 0, conversation.size());
    MarkCacheBreakpoint(&items);
    body["messages"] = std::move(items);
  }
  if (request.stream) body["stream"] = true;
  if (members == wire::Members::kAll) body.update(FixedMembers(request));
  return body;
}

net::Headers RequestHeaders(const std::string& api_key, bool stream) {
  net::Headers h = {{"x-api-key", api_key},
                    {"anthropic-version", "2023-06-01"},
                    {"content-type", "application/json"}};
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
    if (Str(j, "type") == "error") return ErrorEvent(j, ep).error;
    const Json* content = Get(j, "content");
    if (!content || !content->is_array()) return wire::Protocol(kApi, "the response has no content array");
    Message m;
    m.role = Role::kAssistant;
    m.model = Str(j, "model").empty() ? ep.model : Str(j, "model");
    for (const auto& cb : *content) {
      if (!cb.is_object()) return wire::Protocol(kApi, "a content block is not an object");
      auto block = BlockFromJson(cb);
      if (!block) {
        if (block.error().kind == "skip") continue;
        return block.error();
      }
      if (block->kind == ContentBlock::Kind::kToolCall) {
        const Json* input = Get(cb, "input");
        if (input && !input->is_object()) {
          block->arguments = nullptr;
          block->raw_arguments = DumpJson(*input);
          block->arguments_error = "the arguments must be a JSON object";
        }
      }
      m.content.push_back(std::move(*block));
    }
    m.stop_reason = MapStopReason(Str(j, "stop_reason"), &m.error);
    if (const Json* u = Get(j, "usage")) ReadUsage(*u, &m.usage);
    return m;
  } catch (const std::exception& e) {
    return wire::Protocol(kApi, std::string("malformed response: ") + e.what());
  }
}

}  // namespace sepp::llm::anthropic
