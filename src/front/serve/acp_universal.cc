#include "front/serve/acp_universal.h"

#include <algorithm>

#include "base/clock.h"
#include "base/secrets.h"
#include "tools/diff.h"

namespace sepp::front::serve {
namespace {

constexpr size_t kMaxCallId = 256;

Json Item(const std::string& id, const char* kind, const char* role, const char* status,
          Json content) {
  return {{"item_id", id}, {"kind", kind}, {"role", role}, {"status", status},
          {"content", std::move(content)}};
}

// A member that must be a string when present: nullopt when absent or
// null, false in *ok when it is something else.
std::optional<std::string> OptStr(const Json& j, const char* key, bool* ok) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  if (!it->is_string()) {
    *ok = false;
    return std::nullopt;
  }
  return it->get<std::string>();
}

bool ValidUpdateName(const std::string& s) {
  if (s.empty() || s.size() > 64) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; });
}

// The text of ACP content blocks ({type: text, text}); other blocks
// (images, resources) have no text.
bool BlockText(const Json& block, std::string* text) {
  if (!block.is_object()) return false;
  bool ok = true;
  auto type = OptStr(block, "type", &ok);
  if (!ok || !type) return false;
  if (*type == "text") {
    auto t = OptStr(block, "text", &ok);
    if (!ok || !t) return false;
    *text += *t;
  }
  return true;
}

// ACP's stop reasons as the runtime's outcome status.
const char* SettledStatus(const std::string& stop_reason, bool failed) {
  if (failed) return "error";
  if (stop_reason == "cancelled") return "aborted";
  if (stop_reason == "max_turn_requests") return "max_turns";
  return "done";  // end_turn, max_tokens, refusal (kept in stop_reason)
}

}  // namespace

AcpUniversalTranslator::AcpUniversalTranslator(std::string session_id, std::string agent)
    : session_id_(std::move(session_id)), agent_(std::move(agent)) {}

Json AcpUniversalTranslator::Make(const std::string& type, Json data, bool synthetic) {
  ++sequence_;
  return {{"event_id", session_id_ + ":" + std::to_string(sequence_)},
          {"sequence", sequence_},
          {"time", Iso8601(NowMs())},
          {"session_id", session_id_},
          {"source", synthetic ? "daemon" : "agent"},
          {"synthetic", synthetic},
          {"type", type},
          // What the adapter sent may hold a key (its own, echoed by a
          // command): masked here, whole strings; streams below.
          {"data", RedactJson(data)}};
}

std::string AcpUniversalTranslator::NewItemId(const char* kind) {
  return std::string(kind) + "-" + std::to_string(++next_item_);
}

void AcpUniversalTranslator::Protocol(const std::string& what, std::vector<Json>& out) {
  ++protocol_errors_;
  if (protocol_errors_ > kMaxProtocolErrors) return;
  std::string message = "agent " + agent_ + " sent " + what + "; it was ignored";
  if (protocol_errors_ == kMaxProtocolErrors)
    message += " (further protocol errors of this session are not reported)";
  out.push_back(Make("error", {{"message", message}, {"code", "agent_protocol"}}, true));
}

std::vector<Json> AcpUniversalTranslator::Started(const std::string& native_session_id,
                                                  const std::string& cwd, const Json& result) {
  native_id_ = native_session_id;
  Json metadata = {{"agent", agent_}, {"native_session_id", native_session_id}, {"cwd", cwd}};
  if (result.is_object()) {
    for (const char* k : {"modes", "models"})
      if (result.contains(k) && result[k].is_object()) metadata[k] = result[k];
    if (result.contains("models") && result["models"].is_object() &&
        result["models"].value("currentModelId", Json()).is_string())
      metadata["model"] = result["models"]["currentModelId"];
  }
  std::vector<Json> out;
  out.push_back(Make("session.started", {{"metadata", std::move(metadata)}}, false));
  return out;
}

std::vector<Json> AcpUniversalTranslator::PromptSent(const std::string& text) {
  std::vector<Json> out;
  if (in_turn_) CloseTurn(out);  // the caller sends one prompt at a time; be safe
  in_turn_ = true;
  ++turn_;
  out.push_back(Make("turn.started", {{"phase", "started"}, {"turn_id", "turn-" + std::to_string(turn_)}}, true));
  std::string id = NewItemId("user");
  Json parts = Json::array({{{"type", "text"}, {"text", text}}});
  out.push_back(Make("item.started", {{"item", Item(id, "message", "user", "in_progress", parts)}}, true));
  out.push_back(Make("item.completed", {{"item", Item(id, "message", "user", "completed", parts)}}, true));
  return out;
}

void AcpUniversalTranslator::Chunk(bool thinking, const Json& update, std::vector<Json>& out) {
  std::string text;
  auto content = update.find("content");
  if (content == update.end() || !BlockText(*content, &text)) {
    Protocol(std::string(thinking ? "an agent_thought_chunk" : "an agent_message_chunk") +
                 " whose content is not a content block ({\"type\": \"text\", \"text\": ...})",
             out);
    return;
  }
  if (text.empty()) return;
  Message& m = thinking ? thinking_ : message_;
  if (m.id.empty()) {
    m.id = NewItemId(thinking ? "reasoning" : "msg");
    m.redactor = std::make_unique<StreamRedactor>();
    out.push_back(Make("item.started",
                       {{"item", Item(m.id, "message", "assistant", "in_progress", Json::array())}}, true));
  }
  m.text += text;
  std::string shown = m.redactor->Push(text);
  if (!shown.empty()) out.push_back(Make("item.delta", {{"item_id", m.id}, {"delta", shown}}, false));
}

void AcpUniversalTranslator::CloseMessage(Message& m, std::vector<Json>& out) {
  if (m.id.empty()) return;
  std::string rest = m.redactor->Flush();
  if (!rest.empty()) out.push_back(Make("item.delta", {{"item_id", m.id}, {"delta", rest}}, false));
  Json part = &m == &thinking_ ? Json{{"type", "reasoning"}, {"text", m.text}, {"visibility", "public"}}
                               : Json{{"type", "text"}, {"text", m.text}};
  out.push_back(Make("item.completed",
                     {{"item", Item(m.id, "message", "assistant", "completed", Json::array({part}))}}, true));
  m = Message{};
}

void AcpUniversalTranslator::CloseMessages(std::vector<Json>& out) {
  CloseMessage(thinking_, out);
  CloseMessage(message_, out);
}

AcpUniversalTranslator::ToolCall* AcpUniversalTranslator::OpenCall(const std::string& call_id,
                                                                   const Json& fields,
                                                                   std::vector<Json>& out) {
  if (auto it = calls_.find(call_id); it != calls_.end()) return &it->second;
  if (calls_.size() >= kMaxOpenToolCalls) {
    Protocol("more than " + std::to_string(kMaxOpenToolCalls) + " tool calls open at once", out);
    return nullptr;
  }
  // What the assistant said before the call is complete.
  CloseMessages(out);
  ToolCall& c = calls_[call_id];
  c.call_id = call_id;
  c.status = "pending";
  c.redactor = std::make_unique<StreamRedactor>();
  call_order_.push_back(call_id);
  // What the announcement says of the call already (wrong types are
  // reported by ApplyCall, which reads the same fields).
  if (fields.is_object()) {
    bool ok = true;
    if (auto t = OptStr(fields, "title", &ok)) c.title = *t;
    if (auto k = OptStr(fields, "kind", &ok)) c.kind = *k;
    if (fields.contains("rawInput") && !fields["rawInput"].is_null()) c.raw_input = fields["rawInput"];
  }
  Json call = Item(call_id, "tool_call", "assistant", "in_progress",
                   Json::array({{{"type", "tool_call"},
                                 {"name", c.kind.empty() ? "other" : c.kind},
                                 {"arguments", DumpJson(c.raw_input.is_null() ? Json::object() : c.raw_input)},
                                 {"call_id", call_id}}}));
  if (!c.title.empty()) call["summary"] = c.title;
  out.push_back(Make("item.started", {{"item", std::move(call)}}, false));
  Json result = Item("result-" + call_id, "tool_result", "tool", "in_progress", Json::array());
  result["parent_id"] = call_id;
  out.push_back(Make("item.started", {{"item", std::move(result)}}, true));
  return &c;
}

bool AcpUniversalTranslator::ApplyCall(ToolCall& c, const Json& u, std::vector<Json>& out,
                                       std::string* why) {
  bool ok = true;
  auto title = OptStr(u, "title", &ok);
  auto kind = OptStr(u, "kind", &ok);
  auto status = OptStr(u, "status", &ok);
  if (!ok) {
    *why = "title, kind and status must be strings";
    return false;
  }
  if (status && *status != "pending" && *status != "in_progress" && *status != "completed" &&
      *status != "failed") {
    *why = "an unknown tool call status \"" + status->substr(0, 32) + "\"";
    return false;
  }
  if (u.contains("content") && !u["content"].is_null() && !u["content"].is_array()) {
    *why = "content that is not an array";
    return false;
  }
  if (u.contains("locations") && !u["locations"].is_null() && !u["locations"].is_array()) {
    *why = "locations that are not an array";
    return false;
  }
  if (title) c.title = *title;
  if (kind) c.kind = *kind;
  if (u.contains("rawInput") && !u["rawInput"].is_null()) c.raw_input = u["rawInput"];
  if (u.contains("rawOutput") && !u["rawOutput"].is_null()) c.raw_output = u["rawOutput"];
  if (u.contains("locations") && u["locations"].is_array()) c.locations = u["locations"];
  if (u.contains("content") && u["content"].is_array()) {
    // The content replaces what was shown: the text becomes a delta when it
    // grew at its end, and the whole new text otherwise.
    std::string text;
    Json files = Json::array();
    for (const Json& block : u["content"]) {
      if (!block.is_object()) continue;
      const std::string type = block.value("type", Json()).is_string() ? block["type"].get<std::string>() : "";
      if (type == "content" && block.contains("content")) {
        std::string t;
        if (BlockText(block["content"], &t)) {
          if (!text.empty() && !t.empty() && text.back() != '\n') text += "\n";
          text += t;
        }
      } else if (type == "diff") {
        bool fine = true;
        auto path = OptStr(block, "path", &fine);
        auto old_text = OptStr(block, "oldText", &fine);
        auto new_text = OptStr(block, "newText", &fine);
        if (!fine || !path || !new_text) continue;
        std::string diff = tools::UnifiedDiff(old_text.value_or(""), *new_text, *path, *path);
        files.push_back({{"type", "file_ref"},
                         {"path", *path},
                         {"action", old_text ? "patch" : "write"},
                         {"diff", diff}});
      } else if (type == "terminal") {
        // A terminal of the client's: sepp serve offers none (terminal: false).
      }
    }
    if (!files.empty()) c.files = std::move(files);
    std::string delta = text.size() >= c.output.size() && text.compare(0, c.output.size(), c.output) == 0
                            ? text.substr(c.output.size())
                            : text;
    c.output = std::move(text);
    if (!delta.empty()) {
      std::string shown = c.redactor->Push(delta);
      if (!shown.empty())
        out.push_back(Make("item.delta", {{"item_id", "result-" + c.call_id}, {"delta", shown}}, false));
    }
  }
  if (status) c.status = *status;
  // The call itself is complete once its input is known or it runs (as
  // sepp's own calls are when they start); its result goes on.
  const bool has_input = !c.raw_input.is_null() && !(c.raw_input.is_object() && c.raw_input.empty());
  if (!c.call_done && (has_input || c.status != "pending")) CompleteCallItem(c, false, out);
  if (c.status == "completed" || c.status == "failed")
    CompleteCall(c, c.status == "failed" ? "failed" : "completed", false, out);
  return true;
}

void AcpUniversalTranslator::CompleteCallItem(ToolCall& c, bool synthetic, std::vector<Json>& out) {
  Json call = Item(c.call_id, "tool_call", "assistant", "completed",
                   Json::array({{{"type", "tool_call"},
                                 {"name", c.kind.empty() ? "other" : c.kind},
                                 {"arguments", DumpJson(c.raw_input.is_null() ? Json::object() : c.raw_input)},
                                 {"call_id", c.call_id}}}));
  if (!c.title.empty()) call["summary"] = c.title;
  call["metadata"] = {{"kind", c.kind}, {"title", c.title}, {"locations", c.locations}};
  out.push_back(Make("item.completed", {{"item", std::move(call)}}, synthetic));
  c.call_done = true;
}

void AcpUniversalTranslator::CompleteCall(ToolCall& c, const char* status, bool synthetic,
                                          std::vector<Json>& out) {
  std::string rest = c.redactor->Flush();
  const std::string result_id = "result-" + c.call_id;
  if (!rest.empty()) out.push_back(Make("item.delta", {{"item_id", result_id}, {"delta", rest}}, false));
  // A call never given input nor run completes with its result.
  if (!c.call_done) CompleteCallItem(c, true, out);
  Json parts = Json::array({{{"type", "tool_result"}, {"call_id", c.call_id}, {"output", c.output}}});
  for (const Json& f : c.files) parts.push_back(f);
  Json result = Item(result_id, "tool_result", "tool", status, std::move(parts));
  result["parent_id"] = c.call_id;
  // Title and input as they ended up (an update may change them after the
  // call item completed).
  Json meta = {{"tool", c.kind}, {"status", c.status}, {"title", c.title},
               {"arguments", c.raw_input.is_null() ? Json::object() : c.raw_input}};
  if (!c.raw_output.is_null()) meta["raw_output"] = c.raw_output;
  result["metadata"] = std::move(meta);
  out.push_back(Make("item.completed", {{"item", std::move(result)}}, synthetic));
  const std::string id = c.call_id;  // c dies with the erase
  call_order_.erase(std::remove(call_order_.begin(), call_order_.end(), id), call_order_.end());
  calls_.erase(id);
}

void AcpUniversalTranslator::CloseTurn(std::vector<Json>& out) {
  CloseMessages(out);
  // A call the turn left open never finished.
  for (const std::string& id : std::vector<std::string>(call_order_)) {
    auto it = calls_.find(id);
    if (it != calls_.end()) CompleteCall(it->second, "failed", true, out);
  }
  calls_.clear();
  call_order_.clear();
}

std::vector<Json> AcpUniversalTranslator::Update(const Json& params) {
  std::vector<Json> out;
  if (!params.is_object() || !params.contains("update") || !params["update"].is_object()) {
    Protocol("a session/update without an update object", out);
    return out;
  }
  if (native_id_.empty() || params.value("sessionId", Json()) != native_id_) {
    Protocol("a session/update for a session it was not asked to run", out);
    return out;
  }
  const Json& u = params["update"];
  bool ok = true;
  auto name = OptStr(u, "sessionUpdate", &ok);
  if (!ok || !name || !ValidUpdateName(*name)) {
    Protocol("a session/update without a valid sessionUpdate", out);
    return out;
  }
  if (*name == "agent_message_chunk" || *name == "agent_thought_chunk") {
    Chunk(*name == "agent_thought_chunk", u, out);
  } else if (*name == "user_message_chunk") {
    // The agent repeats the user's words only when it replays a loaded
    // session; PromptSent already recorded them.
  } else if (*name == "tool_call" || *name == "tool_call_update") {
    auto id = OptStr(u, "toolCallId", &ok);
    if (!ok || !id || id->empty() || id->size() > kMaxCallId) {
      Protocol("a " + *name + " without a valid toolCallId", out);
      return out;
    }
    ToolCall* c = OpenCall(*id, u, out);
    if (!c) return out;
    std::string why;
    if (!ApplyCall(*c, u, out, &why)) Protocol("a " + *name + " with " + why, out);
  } else if (*name == "usage_update") {
    Json data = {{"context", u}};
    data["context"].erase("sessionUpdate");
    out.push_back(Make("sepp.usage", std::move(data), false));
  } else {
    // plan, available_commands_update, current_mode_update, ...: no
    // universal counterpart; kept for clients that know ACP.
    Json data = u;
    data.erase("sessionUpdate");
    out.push_back(Make("acp." + *name, std::move(data), false));
  }
  return out;
}

std::vector<Json> AcpUniversalTranslator::PermissionRequested(const std::string& permission_id,
                                                              const Json& params) {
  std::vector<Json> out;
  std::string call_id, action;
  if (params.is_object() && params.contains("toolCall") && params["toolCall"].is_object()) {
    const Json& tc = params["toolCall"];
    bool ok = true;
    auto id = OptStr(tc, "toolCallId", &ok);
    if (ok && id && !id->empty() && id->size() <= kMaxCallId) {
      call_id = *id;
      if (ToolCall* c = OpenCall(call_id, tc, out)) {
        std::string why;
        Json fields = tc;
        fields.erase("status");  // asking is not finishing
        (void)ApplyCall(*c, fields, out, &why);
        action = c->title.empty() ? c->kind : c->title;
      }
    }
  }
  Json options = params.is_object() && params.contains("options") && params["options"].is_array()
                     ? params["options"] : Json::array();
  out.push_back(Make("permission.requested",
                     {{"permission_id", permission_id},
                      {"action", action.empty() ? "tool call" : action},
                      {"call_id", call_id},
                      {"status", "requested"},
                      {"metadata", {{"options", options},
                                    {"toolCall", params.is_object() ? params.value("toolCall", Json()) : Json()}}}},
                     false));
  return out;
}

std::vector<Json> AcpUniversalTranslator::PermissionResolved(const std::string& permission_id,
                                                             const std::string& status,
                                                             const Json& metadata) {
  std::vector<Json> out;
  out.push_back(Make("permission.resolved",
                     {{"permission_id", permission_id}, {"status", status}, {"metadata", metadata}}, true));
  return out;
}

std::vector<Json> AcpUniversalTranslator::PromptEnded(const Json& result, const Json& error) {
  std::vector<Json> out;
  CloseTurn(out);
  const bool failed = !error.is_null();
  std::string stop_reason;
  if (!failed && result.is_object() && result.value("stopReason", Json()).is_string())
    stop_reason = result["stopReason"].get<std::string>();
  std::string error_message;
  if (failed) {
    error_message = error.is_object() && error.value("message", Json()).is_string()
                        ? error["message"].get<std::string>()
                        : std::string("the agent answered the prompt with an error");
    Json data = {{"message", error_message}};
    if (error.is_object() && error.contains("code")) data["code"] = error["code"];
    out.push_back(Make("error", std::move(data), false));
  } else if (stop_reason.empty()) {
    Protocol("an answer to session/prompt without a stopReason", out);
  }
  Json ended = {{"phase", "ended"}, {"turn_id", "turn-" + std::to_string(turn_)}};
  if (!stop_reason.empty()) ended["metadata"] = {{"stop_reason", stop_reason}};
  out.push_back(Make("turn.ended", std::move(ended), true));
  // ACP's usage of the prompt (unstable in the protocol): the runtime's
  // names, so a client reads one shape.
  if (!failed && result.is_object() && result.contains("usage") && result["usage"].is_object()) {
    const Json& u = result["usage"];
    auto n = [&](const char* k) { return u.value(k, Json()).is_number_integer() ? u[k].get<int64_t>() : 0; };
    out.push_back(Make("sepp.usage",
                       {{"usage", {{"input", n("inputTokens")},
                                   {"output", n("outputTokens")},
                                   {"cache_read", n("cachedReadTokens")},
                                   {"cache_write", n("cachedWriteTokens")}}},
                        {"acp", u}},
                       false));
  }
  Json outcome = {{"status", SettledStatus(stop_reason, failed)}, {"turns", turn_}};
  if (!stop_reason.empty()) outcome["stop_reason"] = stop_reason;
  if (failed) outcome["error"] = Redact(error_message);
  out.push_back(Make("sepp.agent.settled", {{"outcome", std::move(outcome)}}, true));
  in_turn_ = false;
  return out;
}

std::vector<Json> AcpUniversalTranslator::Failure(const std::string& message, const std::string& code) {
  std::vector<Json> out;
  out.push_back(Make("error", {{"message", message}, {"code", code}}, true));
  return out;
}

std::vector<Json> AcpUniversalTranslator::Ended(const std::string& reason, const std::string& by,
                                                const std::string& message) {
  std::vector<Json> out;
  CloseTurn(out);
  Json data = {{"reason", reason}, {"terminated_by", by}, {"metadata", {{"agent", agent_}}}};
  if (!message.empty()) data["message"] = message;
  out.push_back(Make("session.ended", std::move(data), true));
  in_turn_ = false;
  return out;
}

std::vector<Json> AcpUniversalTranslator::Malformed(const std::string& what) {
  std::vector<Json> out;
  Protocol(what, out);
  return out;
}

}  // namespace sepp::front::serve
