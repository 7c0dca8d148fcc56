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

namespace {

Json TextBlock(const std::string& t) { return {{"type", "text"}, {"text", t}}; }

}  // namespace

Json PiMessage(const llm::Message& m, const std::string& provider, int64_t timestamp_ms) {
  switch (m.role) {
    case llm::Role::kUser: {
      Json content = Json::array();
      for (const auto& b : m.content)
        if (b.kind == llm::ContentBlock::Kind::kText) content.push_back(TextBlock(b.text));
      return {{"role", "user"}, {"content", content}, {"timestamp", timestamp_ms}};
    }
    case llm::Role::kToolResult: {
      Json content = Json::array();
      for (const auto& b : m.content)
        if (b.kind == llm::ContentBlock::Kind::kText) content.push_back(TextBlock(b.text));
      return {{"role", "toolResult"}, {"toolCallId", m.tool_call_id}, {"toolName", m.tool_name},
              {"content", content},   {"isError", m.is_error},        {"timestamp", timestamp_ms}};
    }
    case llm::Role::kAssistant: {
      Json content = Json::array();
      for (const auto& b : m.content) {
        switch (b.kind) {
          case llm::ContentBlock::Kind::kText: content.push_back(TextBlock(b.text)); break;
          case llm::ContentBlock::Kind::kThinking: {
            Json t = {{"type", "thinking"}, {"thinking", b.redacted ? "" : b.text}};
            if (!b.signature.empty()) t["thinkingSignature"] = b.signature;
            if (b.redacted) t["redacted"] = true;
            content.push_back(t);
            break;
          }
          case llm::ContentBlock::Kind::kToolCall:
            content.push_back({{"type", "toolCall"},
                               {"id", b.id},
                               {"name", b.name},
                               {"arguments", b.arguments.is_object() ? b.arguments : Json::object()}});
            break;
        }
      }
      Json j = {{"role", "assistant"},    {"content", content},
                {"api", PiApi(provider)}, {"provider", provider},
                {"model", m.model},       {"usage", PiUsage(m.usage)},
                {"stopReason", PiStopReason(m.stop_reason)}, {"timestamp", timestamp_ms}};
      if (!m.error.empty()) j["errorMessage"] = m.error;
      return j;
    }
  }
  return Json::object();
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
