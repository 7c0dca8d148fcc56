#include "front/rpc/pi_format.h"

#include "llm/models.h"

namespace sepp::front::rpc {

Json PiUsage(const llm::Usage& u) {
  return {{"input", u.input},
          {"output", u.output},
          {"cacheRead", u.cache_read},
          {"cacheWrite", u.cache_write},
          {"totalTokens", u.total()},
          {"cost", {{"input", 0}, {"output", 0}, {"cacheRead", 0}, {"cacheWrite", 0}, {"total", 0}}}};
}

const char* PiStopReason(llm::StopReason s) {
  switch (s) {
    case llm::StopReason::kStop: return "stop";
    case llm::StopReason::kLength: return "length";
    case llm::StopReason::kToolUse: return "toolUse";
    case llm::StopReason::kError: return "error";
    case llm::StopReason::kAborted: return "aborted";
  }
  return "stop";
}

std::string PiApi(const std::string& provider) {
  if (provider == "openai" || provider == "local") return "openai-completions";
  if (provider == "openai-responses") return "openai-responses";
  return "anthropic-messages";
}

void AppendPiUsage(std::string& out, const llm::Usage& u) {
  JsonObjectText o(out);
  o.Int("cacheRead", u.cache_read).Int("cacheWrite", u.cache_write);
  o.Raw("cost", R"({"cacheRead":0,"cacheWrite":0,"input":0,"output":0,"total":0})");
  o.Int("input", u.input).Int("output", u.output).Int("totalTokens", u.total());
  o.Close();
}

const Json& PiToolArguments(const llm::ContentBlock& call) {
  static const Json empty = Json::object();
  return call.arguments.is_object() ? call.arguments : empty;
}

namespace {

// [{"text":..,"type":"text"}, ...] of the message's text blocks.
void AppendTextBlocks(std::string& out, const llm::Message& m) {
  out += '[';
  bool first = true;
  for (const auto& b : m.content) {
    if (b.kind != llm::ContentBlock::Kind::kText) continue;
    if (!first) out += ',';
    first = false;
    out += R"({"text":)";
    AppendJsonString(out, b.text);
    out += R"(,"type":"text"})";
  }
  out += ']';
}

}  // namespace

// Members in key order (DumpJson's): the text is what the tree would dump.
void AppendPiMessage(std::string& out, const llm::Message& m, const std::string& provider,
                     int64_t timestamp_ms) {
  JsonObjectText o(out);
  switch (m.role) {
    case llm::Role::kUser:
      AppendTextBlocks(o.Key("content"), m);
      o.Str("role", "user").Int("timestamp", timestamp_ms);
      break;
    case llm::Role::kToolResult:
      AppendTextBlocks(o.Key("content"), m);
      o.Bool("isError", m.is_error).Str("role", "toolResult").Int("timestamp", timestamp_ms);
      o.Str("toolCallId", m.tool_call_id).Str("toolName", m.tool_name);
      break;
    case llm::Role::kAssistant: {
      o.Str("api", PiApi(provider));
      std::string& c = o.Key("content");
      c += '[';
      bool first = true;
      for (const auto& b : m.content) {
        if (!first) c += ',';
        first = false;
        JsonObjectText block(c);
        switch (b.kind) {
          case llm::ContentBlock::Kind::kText:
            block.Str("text", b.text).Str("type", "text");
            break;
          case llm::ContentBlock::Kind::kThinking:
            if (b.redacted) block.Bool("redacted", true);
            block.Str("thinking", b.redacted ? std::string_view() : std::string_view(b.text));
            if (!b.signature.empty()) block.Str("thinkingSignature", b.signature);
            block.Str("type", "thinking");
            break;
          case llm::ContentBlock::Kind::kToolCall:
            block.Value("arguments", PiToolArguments(b)).Str("id", b.id).Str("name", b.name);
            block.Str("type", "toolCall");
            break;
        }
        block.Close();
      }
      c += ']';
      if (!m.error.empty()) o.Str("errorMessage", m.error);
      o.Str("model", m.model).Str("provider", provider).Str("role", "assistant");
      o.Str("stopReason", PiStopReason(m.stop_reason)).Int("timestamp", timestamp_ms);
      AppendPiUsage(o.Key("usage"), m.usage);
      break;
    }
  }
  o.Close();
}

Json PiMessage(const llm::Message& m, const std::string& provider, int64_t timestamp_ms) {
  std::string text;
  AppendPiMessage(text, m, provider, timestamp_ms);
  auto j = ParseJson(text);
  return j.ok() ? std::move(*j) : Json::object();
}

Json PiEntry(const Json& entry, const std::string& provider) {
  Json e = entry;
  if (e.value("type", "") == "message" && e.contains("message")) {
    auto m = llm::MessageFromJson(e["message"]);
    if (m.ok()) e["message"] = PiMessage(*m, provider, 0);
  }
  if (e.contains("parentId") && e["parentId"].is_string() && e["parentId"].get<std::string>().empty())
    e["parentId"] = nullptr;
  return e;
}

Json PiModel(const std::string& provider, const std::string& model_id) {
  llm::ModelInfo info = llm::LookupModel(provider, model_id);
  return {{"id", model_id},
          {"name", model_id},
          {"api", PiApi(provider)},
          {"provider", provider},
          {"baseUrl", ""},
          {"reasoning", info.supports_thinking},
          {"input", {"text"}},
          {"contextWindow", info.context_window},
          {"maxTokens", info.max_output},
          {"cost", {{"input", 0}, {"output", 0}, {"cacheRead", 0}, {"cacheWrite", 0}}}};
}

}  // namespace sepp::front::rpc
