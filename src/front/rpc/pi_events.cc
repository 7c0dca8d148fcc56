#include "front/rpc/pi_events.h"

#include "front/rpc/pi_format.h"
#include "llm/message.h"

namespace sepp::front::rpc {
namespace {

using agent::EventType;

// Partial tool output as pi reports it: the latest text, bounded so that a
// long-running command costs linear bytes on the wire, not quadratic.
constexpr size_t kPartialTail = 16 * 1024;

Json TextContent(const std::string& t) { return Json::array({{{"type", "text"}, {"text", t}}}); }

// pi's usage of a message still streaming: all zeros. Built once (every
// streamed delta carries it; nlohmann's initializer lists are slow).
const Json& NoUsage() {
  static const Json usage = PiUsage({});
  return usage;
}

}  // namespace

Json PiEventMapper::Update(Json assistant_event) const {
  return {{"type", "message_update"},
          {"usage", NoUsage()},
          {"assistantMessageEvent", std::move(assistant_event)}};
}

void PiEventMapper::StartAssistant(std::vector<Json>& out) {
  if (assistant_open_) return;
  assistant_open_ = true;
  block_kind_.clear();
  block_index_ = -1;
  block_text_.clear();
  out.push_back({{"type", "message_start"},
                 {"message",
                  {{"role", "assistant"}, {"content", Json::array()}, {"api", PiApi(provider_)},
                   {"provider", provider_}, {"model", model_}, {"usage", NoUsage()},
                   {"stopReason", "pending"}, {"timestamp", now_ms_}}}});
}

void PiEventMapper::CloseBlock(std::vector<Json>& out) {
  if (block_kind_.empty()) return;
  out.push_back(Update({{"type", block_kind_ + "_end"},
                        {"contentIndex", block_index_},
                        {"content", block_text_}}));
  block_kind_.clear();
  block_text_.clear();
}

void PiEventMapper::Delta(std::vector<Json>& out, const std::string& kind, const std::string& text) {
  StartAssistant(out);
  if (block_kind_ != kind) {
    CloseBlock(out);
    block_kind_ = kind;
    ++block_index_;
    out.push_back(Update({{"type", kind + "_start"}, {"contentIndex", block_index_}}));
  }
  block_text_ += text;
  out.push_back(Update({{"type", kind + "_delta"}, {"contentIndex", block_index_}, {"delta", text}}));
}

void PiEventMapper::EndTurnIfOpen(std::vector<Json>& out, const char* stop_reason,
                                  const std::string& error) {
  if (!turn_open_) return;
  if (assistant_open_ || last_assistant_.is_null()) {
    // The model call did not complete (an error, an abort): pi still ends
    // the assistant message, with its stop reason.
    StartAssistant(out);
    CloseBlock(out);
    Json m = {{"role", "assistant"}, {"content", Json::array()}, {"api", PiApi(provider_)},
              {"provider", provider_}, {"model", model_}, {"usage", NoUsage()},
              {"stopReason", stop_reason}, {"timestamp", now_ms_}};
    if (!error.empty()) m["errorMessage"] = error;
    out.push_back({{"type", "message_end"}, {"message", m}});
    run_messages_.push_back(m);
    last_assistant_ = m;
    assistant_open_ = false;
  }
  out.push_back({{"type", "turn_end"}, {"message", last_assistant_}, {"toolResults", tool_results_}});
  turn_open_ = false;
}

std::vector<Json> PiEventMapper::Map(const agent::Event& e) {
  std::vector<Json> out;
  if (!e.parent_call_id.empty()) return out;
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
      out.push_back({{"type", "agent_start"}});
      break;
    case EventType::kUserMessage:
      pending_users_.push_back({{"role", "user"}, {"content", TextContent(e.text)}, {"timestamp", now_ms_}});
      break;
    case EventType::kTurnStarted:
      turn_open_ = true;
      assistant_open_ = false;
      last_assistant_ = nullptr;
      tool_results_ = Json::array();
      out.push_back({{"type", "turn_start"}});
      for (Json& u : pending_users_) {
        out.push_back({{"type", "message_start"}, {"message", u}});
        out.push_back({{"type", "message_end"}, {"message", u}});
        run_messages_.push_back(std::move(u));
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
      Json pm = PiMessage(*m, provider_, now_ms_);
      const Json& content = pm["content"];
      for (size_t i = 0; i < content.size(); ++i) {
        const Json& b = content[i];
        if (b.value("type", "") != "toolCall") continue;
        int idx = static_cast<int>(i);
        out.push_back(Update({{"type", "toolcall_start"}, {"contentIndex", idx},
                              {"id", b["id"]}, {"toolName", b["name"]}}));
        out.push_back(Update({{"type", "toolcall_delta"}, {"contentIndex", idx},
                              {"delta", DumpJson(b["arguments"])}}));
        out.push_back(Update({{"type", "toolcall_end"}, {"contentIndex", idx}, {"toolCall", b}}));
      }
      out.push_back({{"type", "message_end"}, {"message", pm}});
      if (retry_attempt_ > 0) {
        out.push_back({{"type", "auto_retry_end"}, {"success", true}, {"attempt", retry_attempt_ + 1}});
        retry_attempt_ = 0;
      }
      run_messages_.push_back(pm);
      last_assistant_ = pm;
      assistant_open_ = false;
      break;
    }
    case EventType::kToolStarted:
      calls_[e.call_id] = {e.args, now_ms_, {}};
      out.push_back({{"type", "tool_execution_start"}, {"toolCallId", e.call_id},
                     {"toolName", e.tool}, {"args", e.args}});
      break;
    case EventType::kToolOutput: {
      Call& c = calls_[e.call_id];
      c.output += e.text;
      if (c.output.size() > 2 * kPartialTail) c.output.erase(0, c.output.size() - kPartialTail);
      out.push_back({{"type", "tool_execution_update"}, {"toolCallId", e.call_id},
                     {"toolName", e.tool}, {"args", c.args},
                     {"partialResult", {{"content", TextContent(c.output)}, {"details", Json::object()}}}});
      break;
    }
    case EventType::kToolFinished: {
      Call c = calls_[e.call_id];
      calls_.erase(e.call_id);
      Json details = e.data.is_object() && e.data.contains("details") ? e.data["details"] : Json::object();
      out.push_back({{"type", "tool_execution_end"}, {"toolCallId", e.call_id}, {"toolName", e.tool},
                     {"result", {{"content", TextContent(e.result)}, {"details", details}}},
                     {"isError", e.is_error}, {"durationMs", now_ms_ - c.started_ms}});
      Json tr = {{"role", "toolResult"}, {"toolCallId", e.call_id}, {"toolName", e.tool},
                 {"content", TextContent(e.result)}, {"details", details},
                 {"isError", e.is_error}, {"timestamp", now_ms_}};
      out.push_back({{"type", "message_start"}, {"message", tr}});
      out.push_back({{"type", "message_end"}, {"message", tr}});
      run_messages_.push_back(tr);
      tool_results_.push_back(std::move(tr));
      break;
    }
    case EventType::kTurnFinished:
      EndTurnIfOpen(out, "stop", "");
      break;
    case EventType::kError:
      if (e.kind == "max_turns") break;
      EndTurnIfOpen(out, "error", e.text);
      break;
    case EventType::kRetry:
      retry_attempt_ = e.data.value("attempt", 1);
      out.push_back({{"type", "auto_retry_start"}, {"attempt", retry_attempt_}, {"maxAttempts", 4},
                     {"delayMs", static_cast<int64_t>(e.data.value("delay_s", 0.0) * 1000)},
                     {"errorMessage", e.text}});
      break;
    case EventType::kCompaction: {
      const char* reason = turn_open_ ? "threshold" : "manual";
      out.push_back({{"type", "compaction_start"}, {"reason", reason}});
      out.push_back({{"type", "compaction_end"}, {"reason", reason},
                     {"result", {{"tokensBefore", e.data.value("tokens_before", 0)},
                                 {"estimatedTokensAfter", e.data.value("tokens_after", 0)},
                                 {"details", Json::object()}}},
                     {"aborted", false}, {"willRetry", false}});
      break;
    }
    case EventType::kBackgroundFinished: {  // sepp's extension (docs/rpc.md)
      Json details = e.data.is_object() && e.data.contains("details") ? e.data["details"] : Json::object();
      out.push_back({{"type", "background_agent_end"}, {"toolCallId", e.call_id}, {"toolName", e.tool},
                     {"result", {{"content", TextContent(e.result)}, {"details", details}}},
                     {"isError", e.is_error}});
      break;
    }
    case EventType::kQueueUpdated:
      out.push_back({{"type", "queue_update"},
                     {"steering", e.data.value("steering", Json::array())},
                     {"followUp", e.data.value("follow_up", Json::array())}});
      break;
    case EventType::kAgentSettled: {
      Json outcome = e.data.value("outcome", Json::object());
      std::string status = outcome.value("status", "done");
      bool aborted = status == "aborted";
      EndTurnIfOpen(out, aborted ? "aborted" : "error", outcome.value("error", ""));
      if (retry_attempt_ > 0) {
        out.push_back({{"type", "auto_retry_end"}, {"success", false}, {"attempt", retry_attempt_},
                       {"finalError", outcome.value("error", "")}});
        retry_attempt_ = 0;
      }
      out.push_back({{"type", "agent_end"}, {"messages", run_messages_}, {"willRetry", false}});
      out.push_back({{"type", "agent_settled"}, {"aborted", aborted}});
      run_messages_.clear();
      pending_users_.clear();
      break;
    }
    default:
      break;
  }
  return out;
}

}  // namespace sepp::front::rpc
