#include "front/rpc/pi_events.h"

#include "front/rpc/pi_format.h"
#include "llm/message.h"

namespace sepp::front::rpc {
namespace {

using agent::EventType;

// Partial tool output as pi reports it: the latest text, bounded so that a
// long-running command costs linear bytes on the wire, not quadratic.
constexpr size_t kPartialTail = 16 * 1024;

// pi's usage of a message still streaming: all zeros (every streamed delta
// carries it).
const std::string& NoUsage() {
  static const std::string usage = [] {
    std::string u;
    AppendPiUsage(u, {});
    return u;
  }();
  return usage;
}

// Every record is an object whose members are written in key order, so the
// text is what DumpJson of the same tree writes. A message_update is
//   {"assistantMessageEvent":{<members>,"type":<type>},"type":"message_update","usage":<zeros>}
// ("type" sorts after every member an assistant event has).
void OpenUpdate(std::string& out) { out += R"({"assistantMessageEvent":{)"; }
void CloseUpdate(std::string& out, std::string_view kind, std::string_view suffix) {
  out += R"(,"type":")";
  out += kind;
  out += suffix;
  out += R"("},"type":"message_update","usage":)";
  out += NoUsage();
  out += "}\n";
}

// [{"text":<t>,"type":"text"}]
void AppendTextContent(std::string& out, std::string_view t) {
  out += R"([{"text":)";
  AppendJsonString(out, t);
  out += R"(,"type":"text"}])";
}

// {"message":<message>,"type":"message_start"} and its message_end.
void MessageStartEnd(std::string& out, const std::string& message) {
  for (const char* type : {"message_start", "message_end"}) {
    out += R"({"message":)";
    out += message;
    out += R"(,"type":")";
    out += type;
    out += "\"}\n";
  }
}

void Line(std::string& out, const Json& record) {
  AppendJson(out, record);
  out += '\n';
}

}  // namespace

void PiEventMapper::AddRunMessage(const std::string& message) {
  if (!run_messages_.empty()) run_messages_ += ',';
  run_messages_ += message;
}

void PiEventMapper::StartAssistant(std::string& out) {
  if (assistant_open_) return;
  assistant_open_ = true;
  block_kind_ = nullptr;
  block_index_ = -1;
  block_text_.clear();
  out += R"({"message":)";
  JsonObjectText m(out);
  m.Str("api", PiApi(provider_)).Raw("content", "[]").Str("model", model_).Str("provider", provider_);
  m.Str("role", "assistant").Str("stopReason", "pending").Int("timestamp", now_ms_);
  m.Raw("usage", NoUsage());
  m.Close();
  out += R"(,"type":"message_start"})" "\n";
}

void PiEventMapper::CloseBlock(std::string& out) {
  if (!block_kind_) return;
  OpenUpdate(out);
  out += R"("content":)";
  AppendJsonString(out, block_text_);
  out += R"(,"contentIndex":)";
  AppendJsonInt(out, block_index_);
  CloseUpdate(out, block_kind_, "_end");
  block_kind_ = nullptr;
  block_text_.clear();
}

void PiEventMapper::Delta(std::string& out, const char* kind, const std::string& text) {
  StartAssistant(out);
  if (!block_kind_ || std::string_view(block_kind_) != kind) {
    CloseBlock(out);
    block_kind_ = kind;
    ++block_index_;
    OpenUpdate(out);
    out += R"("contentIndex":)";
    AppendJsonInt(out, block_index_);
    CloseUpdate(out, kind, "_start");
  }
  block_text_ += text;
  OpenUpdate(out);
  out += R"("contentIndex":)";
  AppendJsonInt(out, block_index_);
  out += R"(,"delta":)";
  AppendJsonString(out, text);
  CloseUpdate(out, kind, "_delta");
}

void PiEventMapper::EndTurnIfOpen(std::string& out, const char* stop_reason, const std::string& error) {
  if (!turn_open_) return;
  if (assistant_open_ || last_assistant_.empty()) {
    // The model call did not complete (an error, an abort): pi still ends
    // the assistant message, with its stop reason.
    StartAssistant(out);
    CloseBlock(out);
    std::string m;
    JsonObjectText o(m);
    o.Str("api", PiApi(provider_)).Raw("content", "[]");
    if (!error.empty()) o.Str("errorMessage", error);
    o.Str("model", model_).Str("provider", provider_).Str("role", "assistant");
    o.Str("stopReason", stop_reason).Int("timestamp", now_ms_).Raw("usage", NoUsage());
    o.Close();
    out += R"({"message":)";
    out += m;
    out += R"(,"type":"message_end"})" "\n";
    AddRunMessage(m);
    last_assistant_ = std::move(m);
    assistant_open_ = false;
  }
  out += R"({"message":)";
  out += last_assistant_;
  out += R"(,"toolResults":[)";
  out += tool_results_;
  out += R"(],"type":"turn_end"})" "\n";
  turn_open_ = false;
}

void PiEventMapper::Map(const agent::Event& e, std::string* out_text) {
  std::string& out = *out_text;
  if (!e.parent_call_id.empty()) return;
  now_ms_ = e.time_ms;
  switch (e.type) {
    case EventType::kSessionStarted:
      if (e.data.is_object()) {
        model_ = e.data.value("model", model_);
        provider_ = e.data.value("provider", provider_);
      }
      break;
    case EventType::kAgentStarted:
      run_messages_.clear();
      out += R"({"type":"agent_start"})" "\n";
      break;
    case EventType::kUserMessage: {
      std::string u = R"({"content":)";
      AppendTextContent(u, e.text);
      u += R"(,"role":"user","timestamp":)";
      AppendJsonInt(u, now_ms_);
      u += '}';
      pending_users_.push_back(std::move(u));
      break;
    }
    case EventType::kTurnStarted:
      turn_open_ = true;
      assistant_open_ = false;
      last_assistant_.clear();
      tool_results_.clear();
      out += R"({"type":"turn_start"})" "\n";
      for (const std::string& u : pending_users_) {
        MessageStartEnd(out, u);
        AddRunMessage(u);
      }
      pending_users_.clear();
      break;
    case EventType::kThinkingDelta:
      Delta(out, "thinking", e.text);
      break;
    case EventType::kMessageDelta:
      Delta(out, "text", e.text);
      break;
    case EventType::kMessageCompleted: {
      StartAssistant(out);
      CloseBlock(out);
      auto m = llm::MessageFromJson(e.message);
      if (!m.ok()) break;
      if (!m->model.empty()) model_ = m->model;
      std::string pm;
      AppendPiMessage(pm, *m, provider_, now_ms_);
      // pi's content has one entry per block, in order: a call's index is
      // its block's.
      for (size_t i = 0; i < m->content.size(); ++i) {
        const llm::ContentBlock& b = m->content[i];
        if (b.kind != llm::ContentBlock::Kind::kToolCall) continue;
        const Json& args = PiToolArguments(b);
        OpenUpdate(out);
        out += R"("contentIndex":)";
        AppendJsonInt(out, static_cast<int64_t>(i));
        out += R"(,"id":)";
        AppendJsonString(out, b.id);
        out += R"(,"toolName":)";
        AppendJsonString(out, b.name);
        CloseUpdate(out, "toolcall", "_start");
        OpenUpdate(out);
        out += R"("contentIndex":)";
        AppendJsonInt(out, static_cast<int64_t>(i));
        out += R"(,"delta":)";
        AppendJsonString(out, DumpJson(args));
        CloseUpdate(out, "toolcall", "_delta");
        OpenUpdate(out);
        out += R"("contentIndex":)";
        AppendJsonInt(out, static_cast<int64_t>(i));
        out += R"(,"toolCall":)";
        JsonObjectText call(out);
        call.Value("arguments", args).Str("id", b.id).Str("name", b.name).Str("type", "toolCall");
        call.Close();
        CloseUpdate(out, "toolcall", "_end");
      }
      out += R"({"message":)";
      out += pm;
      out += R"(,"type":"message_end"})" "\n";
      if (retry_attempt_ > 0) {
        out += R"({"attempt":)";
        AppendJsonInt(out, retry_attempt_ + 1);
        out += R"(,"success":true,"type":"auto_retry_end"})" "\n";
        retry_attempt_ = 0;
      }
      AddRunMessage(pm);
      last_assistant_ = std::move(pm);
      assistant_open_ = false;
      break;
    }
    case EventType::kToolStarted: {
      calls_[e.call_id] = {e.args, now_ms_, {}};
      JsonObjectText o(out);
      o.Value("args", e.args).Str("toolCallId", e.call_id).Str("toolName", e.tool);
      o.Str("type", "tool_execution_start");
      o.Close();
      out += '\n';
      break;
    }
    case EventType::kToolOutput: {
      Call& c = calls_[e.call_id];
      c.output += e.text;
      if (c.output.size() > 2 * kPartialTail) c.output.erase(0, c.output.size() - kPartialTail);
      JsonObjectText o(out);
      o.Value("args", c.args);
      std::string& p = o.Key("partialResult");
      p += R"({"content":)";
      AppendTextContent(p, c.output);
      p += R"(,"details":{}})";
      o.Str("toolCallId", e.call_id).Str("toolName", e.tool).Str("type", "tool_execution_update");
      o.Close();
      out += '\n';
      break;
    }
    case EventType::kToolFinished: {
      int64_t started_ms = 0;
      if (auto it = calls_.find(e.call_id); it != calls_.end()) {
        started_ms = it->second.started_ms;
        calls_.erase(it);
      }
      static const Json kNoDetails = Json::object();
      const Json& details =
          e.data.is_object() && e.data.contains("details") ? e.data["details"] : kNoDetails;
      std::string content;
      AppendTextContent(content, e.result);
      std::string details_text;
      AppendJson(details_text, details);
      {
        JsonObjectText o(out);
        o.Int("durationMs", now_ms_ - started_ms).Bool("isError", e.is_error);
        std::string& r = o.Key("result");
        r += R"({"content":)";
        r += content;
        r += R"(,"details":)";
        r += details_text;
        r += '}';
        o.Str("toolCallId", e.call_id).Str("toolName", e.tool).Str("type", "tool_execution_end");
        o.Close();
        out += '\n';
      }
      std::string tr;
      JsonObjectText o(tr);
      o.Raw("content", content).Raw("details", details_text).Bool("isError", e.is_error);
      o.Str("role", "toolResult").Int("timestamp", now_ms_).Str("toolCallId", e.call_id);
      o.Str("toolName", e.tool);
      o.Close();
      MessageStartEnd(out, tr);
      AddRunMessage(tr);
      if (!tool_results_.empty()) tool_results_ += ',';
      tool_results_ += tr;
      break;
    }
    case EventType::kTurnFinished:
      EndTurnIfOpen(out, "stop", "");
      break;
    case EventType::kError:
      if (e.kind == "max_turns") break;
      EndTurnIfOpen(out, "error", e.text);
      break;
    case EventType::kRetry: {
      retry_attempt_ = e.data.value("attempt", 1);
      JsonObjectText o(out);
      o.Int("attempt", retry_attempt_);
      o.Int("delayMs", static_cast<int64_t>(e.data.value("delay_s", 0.0) * 1000));
      o.Str("errorMessage", e.text).Int("maxAttempts", 4).Str("type", "auto_retry_start");
      o.Close();
      out += '\n';
      break;
    }
    case EventType::kCompaction: {
      const char* reason = turn_open_ ? "threshold" : "manual";
      Line(out, {{"type", "compaction_start"}, {"reason", reason}});
      Line(out, {{"type", "compaction_end"}, {"reason", reason},
                 {"result", {{"tokensBefore", e.data.value("tokens_before", 0)},
                             {"estimatedTokensAfter", e.data.value("tokens_after", 0)},
                             {"details", Json::object()}}},
                 {"aborted", false}, {"willRetry", false}});
      break;
    }
    case EventType::kBackgroundFinished: {  // sepp's extension (docs/rpc.md)
      Json details = e.data.is_object() && e.data.contains("details") ? e.data["details"] : Json::object();
      Json content = Json::array({Json{{"text", e.result}, {"type", "text"}}});
      Line(out, {{"type", "background_agent_end"}, {"toolCallId", e.call_id}, {"toolName", e.tool},
                 {"result", {{"content", content}, {"details", details}}}, {"isError", e.is_error}});
      break;
    }
    case EventType::kQueueUpdated:
      Line(out, {{"type", "queue_update"},
                 {"steering", e.data.value("steering", Json::array())},
                 {"followUp", e.data.value("follow_up", Json::array())}});
      break;
    case EventType::kAgentSettled: {
      Json outcome = e.data.value("outcome", Json::object());
      std::string status = outcome.value("status", "done");
      bool aborted = status == "aborted";
      EndTurnIfOpen(out, aborted ? "aborted" : "error", outcome.value("error", ""));
      if (retry_attempt_ > 0) {
        JsonObjectText o(out);
        o.Int("attempt", retry_attempt_).Str("finalError", outcome.value("error", ""));
        o.Bool("success", false).Str("type", "auto_retry_end");
        o.Close();
        out += '\n';
        retry_attempt_ = 0;
      }
      out += R"({"messages":[)";
      out += run_messages_;
      out += R"(],"type":"agent_end","willRetry":false})" "\n";
      out += aborted ? R"({"aborted":true,"type":"agent_settled"})" "\n"
                     : R"({"aborted":false,"type":"agent_settled"})" "\n";
      run_messages_.clear();
      pending_users_.clear();
      break;
    }
    default:
      break;
  }
}

}  // namespace sepp::front::rpc
