#include "front/serve/universal_events.h"

#include <algorithm>

#include "base/clock.h"

namespace sepp::front::serve {
namespace {

using agent::EventType;

Json Item(const std::string& id, const char* kind, const char* role, const char* status,
          Json content) {
  return {{"item_id", id}, {"kind", kind}, {"role", role}, {"status", status},
          {"content", std::move(content)}};
}

// A string member of outside-shaped data that may be null or of another type.
std::string Str(const Json& j, const char* key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

Json TextPart(const std::string& text) { return {{"type", "text"}, {"text", text}}; }

// An assistant message's content blocks (llm/message.cc's JSON) as
// universal content parts.
Json MessageParts(const Json& message) {
  Json parts = Json::array();
  if (!message.is_object()) return parts;
  auto content = message.find("content");
  if (content == message.end() || !content->is_array()) return parts;
  for (const Json& b : *content) {
    const std::string type = Str(b, "type");
    if (type == "text") {
      parts.push_back(TextPart(Str(b, "text")));
    } else if (type == "thinking") {
      bool redacted = b.contains("redacted") && b["redacted"] == true;
      parts.push_back({{"type", "reasoning"},
                       {"text", Str(b, "thinking")},
                       {"visibility", redacted ? "private" : "public"}});
    } else if (type == "tool_call") {
      parts.push_back({{"type", "tool_call"},
                       {"name", Str(b, "name")},
                       {"arguments", DumpJson(b.contains("arguments") ? b["arguments"] : Json::object())},
                       {"call_id", Str(b, "id")}});
    }
  }
  return parts;
}

// The runtime's reason for a session's end in the universal vocabulary.
const char* EndReason(const std::string& sepp_reason) {
  if (sepp_reason == "error") return "error";
  if (sepp_reason == "aborted") return "terminated";
  return "completed";  // done, max_turns (the reason stays in metadata)
}

// question.* in sandbox-agent 0.1's shape ({question_id, prompt, options:
// string[], status: requested|answered|rejected, response?: string[][]})
// with sepp's typed fields beside it (fields, values, source).
Json QuestionData(const agent::Event& e) {
  const bool asked = e.type == EventType::kQuestionRequested;
  const Json& q = asked ? e.data : (e.data.is_object() ? e.data.value("question", Json::object()) : Json::object());
  Json fields = q.is_object() ? q.value("fields", Json::array()) : Json::array();
  if (!fields.is_array()) fields = Json::array();
  Json options = Json::array();
  if (!fields.empty() && fields[0].is_object() && fields[0].contains("options") && fields[0]["options"].is_array())
    for (const Json& o : fields[0]["options"]) options.push_back(Str(o, "label"));
  Json data = {{"question_id", Str(e.data, "question_id")},
               {"prompt", Str(q, "prompt")},
               {"options", std::move(options)},
               {"fields", fields},
               {"source", Str(q, "source")}};
  if (!e.call_id.empty()) data["call_id"] = e.call_id;
  if (asked) {
    data["status"] = "requested";
    if (e.data.contains("timeout_s")) data["timeout_s"] = e.data["timeout_s"];
    return data;
  }
  Json answer = e.data.is_object() ? e.data.value("answer", Json::object()) : Json::object();
  const bool answered = Str(answer, "status") == "answered";
  data["status"] = answered ? "answered" : "rejected";
  data["metadata"] = answer;
  if (answered) {
    Json values = answer.value("values", Json::object());
    Json response = Json::array();
    for (const Json& f : fields) {
      Json one = Json::array();
      auto v = values.find(Str(f, "name"));
      if (v != values.end()) {
        if (v->is_array())
          for (const Json& x : *v) one.push_back(x.is_string() ? x.get<std::string>() : x.dump());
        else
          one.push_back(v->is_string() ? v->get<std::string>() : v->dump());
      }
      response.push_back(std::move(one));
    }
    data["response"] = std::move(response);
    data["values"] = std::move(values);
  }
  return data;
}

}  // namespace

const char* UniversalPermissionStatus(const std::string& choice) {
  if (choice == "allow_once") return "accept";
  if (choice == "allow_session" || choice == "allow_project") return "accept_for_session";
  return "reject";
}

UniversalTranslator::UniversalTranslator(std::string session_id)
    : session_id_(std::move(session_id)) {}

Json UniversalTranslator::Make(const agent::Event& e, const std::string& type, Json data,
                               bool synthetic) {
  ++sequence_;
  Json j = {{"event_id", session_id_ + ":" + std::to_string(sequence_)},
            {"sequence", sequence_},
            {"time", Iso8601(e.time_ms ? e.time_ms : NowMs())},
            {"session_id", session_id_},
            {"source", synthetic ? "daemon" : "agent"},
            {"synthetic", synthetic},
            {"type", type},
            {"data", std::move(data)}};
  // A sub-agent's events: which tool call of the parent runs it.
  if (!e.parent_call_id.empty()) j["parent_call_id"] = e.parent_call_id;
  if (!e.child_session_id.empty()) j["child_session_id"] = e.child_session_id;
  return j;
}

std::string UniversalTranslator::NewItemId(const agent::Event& e, const char* kind) {
  std::string id = std::string(kind) + "-" + std::to_string(++next_item_);
  return e.child_session_id.empty() ? id : e.child_session_id + "/" + id;
}

void UniversalTranslator::CloseOpen(const agent::Event& e, Open& open, std::vector<Json>& out) {
  auto fail = [&](const std::string& id, const char* kind, const char* role) {
    out.push_back(Make(e, "item.completed",
                       {{"item", Item(id, kind, role, "failed", Json::array())}}, true));
  };
  if (!open.reasoning_id.empty()) fail(open.reasoning_id, "message", "assistant");
  if (!open.message_id.empty()) fail(open.message_id, "message", "assistant");
  for (const auto& id : open.results) fail(id, "tool_result", "tool");
  open = Open{};
}

std::vector<Json> UniversalTranslator::Translate(const agent::Event& e) {
  std::vector<Json> out;
  Open& open = open_[e.child_session_id];
  // Tool call ids are the model's; under a sub-agent they are prefixed with
  // its session so they cannot collide with the parent's.
  const std::string call =
      e.child_session_id.empty() ? e.call_id : e.child_session_id + "/" + e.call_id;
  const std::string result_id = "result-" + call;
  const std::string turn_id = "turn-" + std::to_string(e.turn);

  switch (e.type) {
    case EventType::kSessionStarted:
      out.push_back(Make(e, "session.started", {{"metadata", e.data}}, false));
      break;
    case EventType::kSessionEnded: {
      CloseOpen(e, open, out);
      std::string reason = Str(e.data, "reason");
      if (reason.empty()) reason = "done";
      Json data = {{"reason", EndReason(reason)},
                   {"terminated_by", reason == "aborted" ? "daemon" : "agent"},
                   {"metadata", e.data}};
      if (reason == "error" && e.data.contains("outcome"))
        data["message"] = Str(e.data["outcome"], "error");
      out.push_back(Make(e, "session.ended", std::move(data), false));
      break;
    }
    case EventType::kTurnStarted:
      out.push_back(Make(e, "turn.started", {{"phase", "started"}, {"turn_id", turn_id}}, false));
      break;
    case EventType::kTurnFinished: {
      CloseOpen(e, open, out);
      Json data = {{"phase", "ended"}, {"turn_id", turn_id}};
      if (!e.data.is_null()) data["metadata"] = e.data;
      out.push_back(Make(e, "turn.ended", std::move(data), false));
      break;
    }
    case EventType::kUserMessage: {
      // Entered the context whole: started and completed at once.
      std::string id = NewItemId(e, "user");
      Json parts = Json::array({TextPart(e.text)});
      out.push_back(Make(e, "item.started",
                         {{"item", Item(id, "message", "user", "in_progress", parts)}}, true));
      out.push_back(
          Make(e, "item.completed", {{"item", Item(id, "message", "user", "completed", parts)}}, false));
      break;
    }
    case EventType::kMessageDelta:
    case EventType::kThinkingDelta: {
      bool thinking = e.type == EventType::kThinkingDelta;
      std::string& id = thinking ? open.reasoning_id : open.message_id;
      if (id.empty()) {
        id = NewItemId(e, thinking ? "reasoning" : "msg");
        out.push_back(Make(
            e, "item.started",
            {{"item", Item(id, "message", "assistant", "in_progress", Json::array())}}, true));
      }
      out.push_back(Make(e, "item.delta", {{"item_id", id}, {"delta", e.text}}, false));
      break;
    }
    case EventType::kMessageCompleted: {
      // The thinking item completes with the thinking; the message with the
      // rest (text and tool calls).
      Json parts = MessageParts(e.message);
      Json reasoning = Json::array(), rest = Json::array();
      for (auto& p : parts) (p["type"] == "reasoning" ? reasoning : rest).push_back(p);
      if (!open.reasoning_id.empty()) {
        out.push_back(Make(
            e, "item.completed",
            {{"item", Item(open.reasoning_id, "message", "assistant", "completed", reasoning)}},
            false));
        open.reasoning_id.clear();
        reasoning = Json::array();
      }
      for (auto& p : reasoning) rest.push_back(p);  // thinking that was never streamed
      if (open.message_id.empty()) {
        open.message_id = NewItemId(e, "msg");
        out.push_back(Make(
            e, "item.started",
            {{"item", Item(open.message_id, "message", "assistant", "in_progress", Json::array())}},
            true));
      }
      const bool failed = e.message.is_object() && e.message.contains("error");
      Json item = Item(open.message_id, "message", "assistant", failed ? "failed" : "completed", rest);
      if (e.message.is_object() && e.message.contains("stop_reason")) item["stop_reason"] = e.message["stop_reason"];
      if (failed) item["error"] = e.message["error"];
      out.push_back(Make(e, "item.completed", {{"item", std::move(item)}}, false));
      open.message_id.clear();
      break;
    }
    case EventType::kToolStarted: {
      Json parts = Json::array({{{"type", "tool_call"},
                                 {"name", e.tool},
                                 {"arguments", DumpJson(e.args)},
                                 {"call_id", e.call_id}}});
      Json started = Item(call, "tool_call", "assistant", "in_progress", parts);
      if (!e.summary.empty()) started["summary"] = e.summary;
      out.push_back(Make(e, "item.started", {{"item", started}}, false));
      Json done = started;
      done["status"] = "completed";
      out.push_back(Make(e, "item.completed", {{"item", std::move(done)}}, true));
      Json result = Item(result_id, "tool_result", "tool", "in_progress", Json::array());
      result["parent_id"] = call;
      out.push_back(Make(e, "item.started", {{"item", std::move(result)}}, true));
      open.results.push_back(result_id);
      break;
    }
    case EventType::kToolOutput:
      out.push_back(Make(e, "item.delta", {{"item_id", result_id}, {"delta", e.text}}, false));
      break;
    case EventType::kToolFinished: {
      Json parts =
          Json::array({{{"type", "tool_result"}, {"call_id", e.call_id}, {"output", e.result}}});
      Json item = Item(result_id, "tool_result", "tool", e.is_error ? "failed" : "completed", parts);
      item["parent_id"] = call;
      item["metadata"] = {{"tool", e.tool},
                          {"truncated", e.truncated},
                          {"denied", e.denied},
                          {"denials", sandbox::DenialsToJson(e.denials)}};
      auto& r = open.results;
      r.erase(std::remove(r.begin(), r.end(), result_id), r.end());
      out.push_back(Make(e, "item.completed", {{"item", std::move(item)}}, false));
      break;
    }
    case EventType::kPermissionRequested:
      out.push_back(Make(e, "permission.requested",
                         {{"permission_id", Str(e.data, "request_id")},
                          // a trust request has no tool: its kind is the action
                          {"action", e.tool.empty() ? Str(e.data, "kind") : e.tool},
                          {"call_id", e.call_id},
                          {"status", "requested"},
                          {"metadata", e.data}},
                         false));
      break;
    case EventType::kPermissionResolved: {
      Json answer = e.data.is_object() && e.data.contains("answer") ? e.data["answer"] : Json::object();
      out.push_back(Make(e, "permission.resolved",
                         {{"permission_id", Str(e.data, "request_id")},
                          {"action", e.tool.empty() ? Str(e.data, "kind") : e.tool},
                          {"call_id", e.call_id},
                          {"status", UniversalPermissionStatus(Str(answer, "choice"))},
                          {"metadata", answer}},
                         false));
      break;
    }
    case EventType::kQuestionRequested:
    case EventType::kQuestionResolved:
      out.push_back(Make(e, agent::ToString(e.type), QuestionData(e), false));
      break;
    case EventType::kError: {
      Json data = {{"message", e.text}};
      if (!e.kind.empty()) data["code"] = e.kind;
      out.push_back(Make(e, "error", std::move(data), false));
      break;
    }
    case EventType::kSubscriberLagged:
      // The reader fell behind the live stream; it can replay from the log.
      out.push_back(Make(e, "error",
                         {{"message", "this stream fell behind the session and was cut off; "
                                      "read again from the last sequence you saw"},
                          {"code", "subscriber_lagged"},
                          {"details", e.data}},
                         true));
      break;
    case EventType::kCompaction:
    case EventType::kUsage:
    case EventType::kRetry:
    case EventType::kAgentStarted:
    case EventType::kAgentSettled:
    case EventType::kQueueUpdated:
    case EventType::kBackgroundFinished: {
      Json data = agent::ToJson(e);
      for (const char* k : {"type", "seq", "time_ms", "session_id", "parent_call_id",
                            "child_session_id"})
        data.erase(k);
      out.push_back(Make(e, std::string("sepp.") + agent::ToString(e.type), std::move(data), false));
      break;
    }
  }
  return out;
}

}  // namespace sepp::front::serve
