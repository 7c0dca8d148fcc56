// OpenAI Responses API codec.
//
// Request: {"model","instructions","input":[
//   {"type":"message","role":"user","content":[{"type":"input_text","text"}]},
//   {"type":"reasoning","summary":[{"type":"summary_text","text"}],"encrypted_content"},
//   {"type":"message","role":"assistant","content":[{"type":"output_text","text"}]},
//   {"type":"function_call","call_id","name","arguments"},
//   {"type":"function_call_output","call_id","output"}],
//  "tools":[{"type":"function","name","description","parameters","strict":false}],
//  "stream","store":false,"max_output_tokens","reasoning","include"}.
// strict is false on purpose: strict mode demands schemas that close every
// object, which tool schemas written by hand and by MCP servers rarely do.
//
// Stream: every event's data is an object whose "type" names it.
// response.output_item.added opens an item at output_index (message,
// function_call with call_id and name, reasoning); response.output_text.delta
// and response.function_call_arguments.delta/.done fill it;
// response.reasoning_summary_text.delta streams thinking;
// response.output_item.done closes it with its final form;
// response.completed / response.incomplete end the stream with usage;
// response.failed and error carry failures. Others are ignored.
#include "llm/openai_responses.h"

#include <map>

#include "llm/models.h"
#include "llm/openai_chat.h"

namespace sepp::llm::openai_responses {
namespace {

using wire::Get;
using wire::Int;
using wire::Str;

constexpr std::string_view kApi = "OpenAI Responses";

bool IsOurReasoning(const ContentBlock& b) {
  return b.kind == ContentBlock::Kind::kThinking && b.signature.rfind(kReasoningTag, 0) == 0;
}

void AppendAssistant(const Message& m, Json* input) {
  std::string pending_text;
  auto flush = [&] {
    if (pending_text.empty()) return;
    input->push_back({{"type", "message"},
                      {"role", "assistant"},
                      {"content", Json::array({{{"type", "output_text"}, {"text", pending_text}}})}});
    pending_text.clear();
  };
  for (const auto& b : m.content) {
    switch (b.kind) {
      case ContentBlock::Kind::kText:
        pending_text += b.text;
        break;
      case ContentBlock::Kind::kThinking: {
        if (!IsOurReasoning(b)) break;
        flush();
        Json summary = Json::array();
        if (!b.text.empty()) summary.push_back({{"type", "summary_text"}, {"text", b.text}});
        input->push_back({{"type", "reasoning"},
                          {"summary", std::move(summary)},
                          {"encrypted_content", b.signature.substr(kReasoningTag.size())}});
        break;
      }
      case ContentBlock::Kind::kToolCall:
        flush();
        input->push_back({{"type", "function_call"},
                          {"call_id", b.id},
                          {"name", b.name},
                          {"arguments", wire::ArgumentsText(b)}});
        break;
    }
  }
  flush();
}

StopReason MapIncomplete(const std::string& reason, std::string* error) {
  if (reason == "content_filter") {
    *error = "the response was stopped by the provider's content filter";
    return StopReason::kError;
  }
  return StopReason::kLength;  // max_output_tokens and anything else
}

void ReadUsage(const Json& u, Usage* usage) {
  wire::ReadOpenAiUsage(u, "input_tokens", "output_tokens", usage);
}

Failure FailureFrom(const Json& err, const Endpoint& ep) {
  if (!err.is_object()) {
    return Failure{wire::Protocol(kApi, "a failure without an error object"), false};
  }
  return ClassifyErrorObject(ep, Str(err, "type"), Str(err, "code"), Str(err, "message"));
}

std::string SummaryText(const Json& item) {
  std::string out;
  const Json* summary = Get(item, "summary");
  if (!summary || !summary->is_array()) return out;
  for (const auto& part : *summary) {
    if (!out.empty()) out += "\n\n";
    out += Str(part, "text");
  }
  return out;
}

std::string MessageText(const Json& item) {
  std::string out;
  const Json* content = Get(item, "content");
  if (!content || !content->is_array()) return out;
  for (const auto& part : *content) {
    std::string type = Str(part, "type");
    if (type == "output_text") out += Str(part, "text");
    if (type == "refusal") out += Str(part, "refusal");
  }
  return out;
}

// A finished output item as a content block; false if not one of ours.
Result<bool> ItemToBlock(const Json& item, ContentBlock* out) {
  if (!item.is_object()) return wire::Protocol(kApi, "an output item is not an object");
  std::string type = Str(item, "type");
  if (type == "message") {
    *out = ContentBlock::Text(MessageText(item));
    return true;
  }
  if (type == "function_call") {
    std::string call_id = Str(item, "call_id"), name = Str(item, "name");
    if (call_id.empty() || name.empty()) {
      return wire::Protocol(kApi, "a function_call item without call_id or name");
    }
    const Json* args = Get(item, "arguments");
    if (args && !args->is_string() && !args->is_null()) {
      return wire::Protocol(kApi, "function_call arguments are not a string");
    }
    *out = ContentBlock::ToolCall(call_id, name, Json::object());
    wire::SetArguments(out, Str(item, "arguments"));
    return true;
  }
  if (type == "reasoning") {
    std::string encrypted = Str(item, "encrypted_content");
    *out = ContentBlock::Thinking(SummaryText(item),
                                  encrypted.empty() ? "" : std::string(kReasoningTag) + encrypted);
    return true;
  }
  if (type.empty()) return wire::Protocol(kApi, "an output item without a type");
  return false;  // web_search_call, file_search_call, ...: not ours
}

class Decoder : public wire::StreamDecoder {
 public:
  Decoder(const StreamSink* sink, Endpoint ep) : StreamDecoder(kApi, sink, std::move(ep)) {}


  Result<Message> Finish() override {
    if (!done_) {
      return Incomplete();
    }
    for (auto& [index, item] : items_) {
      if (auto s = Close(item, nullptr); !s) return s.error();
    }
    // Drop empty text blocks of messages that said nothing.
    std::vector<ContentBlock> kept;
    for (auto& b : message_.content) {
      if (b.kind == ContentBlock::Kind::kText && b.text.empty()) continue;
      if (b.kind == ContentBlock::Kind::kThinking && b.text.empty() && b.signature.empty()) continue;
      kept.push_back(std::move(b));
    }
    message_.content = std::move(kept);
    if (message_.stop_reason == StopReason::kStop && !message_.ToolCalls().empty()) {
      message_.stop_reason = StopReason::kToolUse;
    }
    return message_;
  }

 private:
  struct Item {
    size_t position;
    std::string arguments;
    bool closed = false;
  };

  Status Handle(const net::SseEvent& event) override {
    if (event.data.empty() || event.data == "[DONE]") return Ok();
    auto parsed = ParseJson(event.data);
    if (!parsed) return wire::Protocol(kApi, "an event whose data is not JSON");
    const Json& j = *parsed;
    if (!j.is_object()) return wire::Protocol(kApi, "an event whose data is not an object");
    std::string type = Str(j, "type");
    if (type.empty()) type = event.event;

    if (type == "error") {
      const Json* inner = Get(j, "error");
      return FailureFrom(inner && inner->is_object() ? *inner : j, ep_).error;
    }
    if (type == "response.failed") {
      const Json* r = Get(j, "response");
      const Json* err = r ? Get(*r, "error") : nullptr;
      if (!err) return wire::Protocol(kApi, "response.failed without an error");
      return FailureFrom(*err, ep_).error;
    }
    if (type == "response.created" || type == "response.in_progress") {
      if (const Json* r = Get(j, "response")) {
        std::string model = Str(*r, "model");
        if (!model.empty()) message_.model = model;
      }
      return Ok();
    }
    if (type == "response.output_item.added") {
      const Json* item = Get(j, "item");
      const Json* idx = Get(j, "output_index");
      if (!item || !item->is_object() || !idx || !idx->is_number_integer()) {
        return wire::Protocol(kApi, "output_item.added without item or output_index");
      }
      ContentBlock b;
      auto ours = ItemToBlock(Opening(*item), &b);
      if (!ours) return ours.error();
      if (!*ours) return Ok();
      int64_t index = idx->get<int64_t>();
      if (items_.count(index)) return wire::Protocol(kApi, "an output_index added twice");
      message_.content.push_back(std::move(b));
      items_[index] = Item{message_.content.size() - 1, Str(*item, "arguments")};
      return Ok();
    }
    if (type == "response.output_text.delta" || type == "response.refusal.delta") {
      auto* item = Find(j, ContentBlock::Kind::kText);
      if (!item) return wire::Protocol(kApi, type + " for an unknown or non-message item");
      const Json* delta = Get(j, "delta");
      if (!delta || !delta->is_string()) return wire::Protocol(kApi, type + " without a string delta");
      const std::string& text = delta->get_ref<const std::string&>();
      message_.content[item->position].text += text;
      if (sink_ && sink_->on_text && !text.empty()) sink_->on_text(text);
      return Ok();
    }
    if (type == "response.reasoning_summary_text.delta") {
      auto* item = Find(j, ContentBlock::Kind::kThinking);
      if (!item) return Ok();
      const Json* delta = Get(j, "delta");
      if (!delta || !delta->is_string()) return wire::Protocol(kApi, type + " without a string delta");
      const std::string& text = delta->get_ref<const std::string&>();
      message_.content[item->position].text += text;
      if (sink_ && sink_->on_thinking && !text.empty()) sink_->on_thinking(text);
      return Ok();
    }
    if (type == "response.function_call_arguments.delta" ||
        type == "response.function_call_arguments.done") {
      auto* item = Find(j, ContentBlock::Kind::kToolCall);
      if (!item) return wire::Protocol(kApi, type + " for an unknown or non-call item");
      bool is_delta = type.back() == 'a';
      const Json* text = Get(j, is_delta ? "delta" : "arguments");
      if (!text || !text->is_string()) return wire::Protocol(kApi, type + " without a string");
      if (is_delta) {
        item->arguments += text->get<std::string>();
      } else {
        item->arguments = text->get<std::string>();
      }
      return Ok();
    }
    if (type == "response.output_item.done") {
      const Json* idx = Get(j, "output_index");
      const Json* item = Get(j, "item");
      if (!idx || !idx->is_number_integer() || !item || !item->is_object()) {
        return wire::Protocol(kApi, "output_item.done without item or output_index");
      }
      auto it = items_.find(idx->get<int64_t>());
      if (it == items_.end()) return Ok();  // an item type we skip
      return Close(it->second, item);
    }
    if (type == "response.completed" || type == "response.incomplete") {
      const Json* r = Get(j, "response");
      if (!r || !r->is_object()) return wire::Protocol(kApi, type + " without a response");
      if (const Json* u = Get(*r, "usage")) ReadUsage(*u, &message_.usage);
      std::string model = Str(*r, "model");
      if (!model.empty()) message_.model = model;
      if (type == "response.incomplete") {
        std::string reason;
        if (const Json* d = Get(*r, "incomplete_details")) reason = Str(*d, "reason");
        message_.stop_reason = MapIncomplete(reason, &message_.error);
      }
      done_ = true;
      return Ok();
    }
    return Ok();
  }

  // output_item.added carries the item as it starts: text and arguments
  // still empty; what follows fills them.
  static Json Opening(const Json& item) {
    Json copy = item;
    if (copy.contains("arguments")) copy["arguments"] = "";
    if (copy.contains("content")) copy["content"] = Json::array();
    return copy;
  }

  Item* Find(const Json& j, ContentBlock::Kind kind) {
    const Json* idx = Get(j, "output_index");
    if (!idx || !idx->is_number_integer()) return nullptr;
    auto it = items_.find(idx->get<int64_t>());
    if (it == items_.end()) return nullptr;
    if (message_.content[it->second.position].kind != kind) return nullptr;
    return &it->second;
  }

  // final: the item from output_item.done (authoritative), or null at the end.
  Status Close(Item& item, const Json* final) {
    if (item.closed) return Ok();
    item.closed = true;
    ContentBlock& b = message_.content[item.position];
    if (final) {
      ContentBlock done_block;
      auto ours = ItemToBlock(*final, &done_block);
      if (!ours) return ours.error();
      if (*ours && done_block.kind == b.kind) {
        // Keep streamed text if the final item omits it.
        if (b.kind == ContentBlock::Kind::kToolCall) {
          if (!Get(*final, "arguments")) wire::SetArguments(&done_block, item.arguments);
          b = std::move(done_block);
        } else {
          if (done_block.text.empty()) done_block.text = b.text;
          b = std::move(done_block);
        }
      }
    } else if (b.kind == ContentBlock::Kind::kToolCall) {
      wire::SetArguments(&b, item.arguments);
    }
    if (b.kind == ContentBlock::Kind::kToolCall && sink_ && sink_->on_tool_call) sink_->on_tool_call(b);
    return Ok();
  }

  std::map<int64_t, Item> items_;
};

}  // namespace

Json ConversationItems(const std::vector<Message>& messages, size_t begin, size_t end) {
  Json input = Json::array();
  for (size_t i = begin; i < end; ++i) {
    const Message& m = messages[i];
    switch (m.role) {
      case Role::kUser:
        input.push_back({{"type", "message"},
                         {"role", "user"},
                         {"content", Json::array({{{"type", "input_text"}, {"text", m.Text()}}})}});
        break;
      case Role::kAssistant:
        AppendAssistant(m, &input);
        break;
      case Role::kToolResult:
        input.push_back(
            {{"type", "function_call_output"}, {"call_id", m.tool_call_id}, {"output", m.Text()}});
        break;
    }
  }
  return input;
}

Json FixedMembers(const Request& request) {
  Json fixed = Json::object();
  if (!request.system.empty()) fixed["instructions"] = request.system;
  if (!request.tools.empty()) {
    Json tools = Json::array();
    for (const auto& t : request.tools) {
      Json schema = t.parameters.is_object() ? t.parameters : Json{{"type", "object"}};
      tools.push_back({{"type", "function"},
                       {"name", t.name},
                       {"description", t.description},
                       {"parameters", schema},
                       {"strict", false}});
    }
    fixed["tools"] = std::move(tools);
  }
  return fixed;
}

Json BuildRequest(const Request& request, wire::Members members) {
  Json body = Json::object();
  body["model"] = request.model;
  if (members != wire::Members::kNoConversation) {
    std::vector<Message> fixed;
    const std::vector<Message>& conversation = wire::Normalized(request.messages, &fixed);
    body["input"] = ConversationItems(conversation, 0, conversation.size());
  }
  if (request.max_tokens > 0) body["max_output_tokens"] = request.max_tokens;
  if (request.thinking_budget > 0 && LookupModel("openai", request.model).supports_thinking) {
    int b = request.thinking_budget;
    body["reasoning"] = {{"effort", b <= 4096 ? "low" : b <= 16384 ? "medium" : "high"},
                         {"summary", "auto"}};
    body["include"] = Json::array({"reasoning.encrypted_content"});
  }
  body["store"] = false;
  if (request.stream) body["stream"] = true;
  if (members == wire::Members::kAll) body.update(FixedMembers(request));
  return body;
}

net::Headers RequestHeaders(const std::string& api_key, bool stream) {
  return openai_chat::RequestHeaders(api_key, stream);
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
    if (const Json* err = Get(j, "error"); err && !err->is_null()) return FailureFrom(*err, ep).error;
    const Json* output = Get(j, "output");
    if (!output || !output->is_array()) return wire::Protocol(kApi, "the response has no output array");
    Message m;
    m.role = Role::kAssistant;
    m.model = Str(j, "model").empty() ? ep.model : Str(j, "model");
    for (const auto& item : *output) {
      ContentBlock b;
      auto ours = ItemToBlock(item, &b);
      if (!ours) return ours.error();
      if (!*ours) continue;
      if (b.kind == ContentBlock::Kind::kText && b.text.empty()) continue;
      m.content.push_back(std::move(b));
    }
    if (Str(j, "status") == "incomplete") {
      std::string reason;
      if (const Json* d = Get(j, "incomplete_details")) reason = Str(*d, "reason");
      m.stop_reason = MapIncomplete(reason, &m.error);
    } else if (!m.ToolCalls().empty()) {
      m.stop_reason = StopReason::kToolUse;
    }
    if (const Json* u = Get(j, "usage")) ReadUsage(*u, &m.usage);
    return m;
  } catch (const std::exception& e) {
    return wire::Protocol(kApi, std::string("malformed response: ") + e.what());
  }
}

}  // namespace sepp::llm::openai_responses
