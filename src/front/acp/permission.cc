#include "front/acp/permission.h"

#include "front/acp/tool_calls.h"

namespace sepp::front::acp {
namespace {

using agent::PermissionAnswer;
using agent::PermissionChoice;

std::string Describe(const Json& request) {
  std::string what;
  for (const Json& w : request.value("widen", Json::array())) {
    if (!w.is_object()) continue;
    std::string kind = w.value("kind", ""), target = w.value("target", "");
    if (!what.empty()) what += ", ";
    if (kind == "domain") what += "connect to " + target;
    else if (kind == "write") what += "write " + target;
    else what += "read " + target;
  }
  return what.empty() ? "widen the sandbox" : what;
}

// A trust request (kind project_trust or extension): not a tool call's
// retry, so its toolCall is the request itself (id = the request id), with
// every file and its hash, or the extension's capabilities, as its text.
Json TrustParams(const std::string& session_id, const Json& request) {
  bool project = request.value("kind", "") == "project_trust";
  std::string subject = request.value("subject", "");
  std::string title = project ? "Trust the code of the project " + subject
                              : "Start the extension " + subject + " with its capabilities";
  std::string text = project ? "This project's code would run:\n" : "This extension would start:\n";
  Json locations = Json::array();
  for (const Json& i : request.value("items", Json::array())) {
    if (!i.is_object()) continue;
    text += "- " + i.value("detail", "") + ": " + i.value("path", "");
    if (!i.value("sha256", "").empty()) text += " (sha256 " + i.value("sha256", "") + ")";
    text += "\n";
    for (const Json& c : i.value("capabilities", Json::array()))
      if (c.is_string()) text += "    may: " + c.get<std::string>() + "\n";
    if (project) locations.push_back({{"path", i.value("path", "")}});
  }
  std::string why = request.value("justification", "");
  if (!why.empty()) text += "\n" + why;
  Json tool_call = {{"toolCallId", request.value("request_id", "")},
                    {"title", title},
                    {"kind", "execute"},
                    {"status", "pending"},
                    {"locations", locations},
                    {"content", {{{"type", "content"}, {"content", {{"type", "text"}, {"text", text}}}}}},
                    {"_meta", {{"sepp", {{"permission", request}}}}}};
  return {{"sessionId", session_id},
          {"toolCall", std::move(tool_call)},
          {"options",
           {{{"optionId", "allow"}, {"name", "Allow (remembered until it changes)"}, {"kind", "allow_always"}},
            {{"optionId", "deny"}, {"name", "Deny"}, {"kind", "reject_once"}}}}};
}

}  // namespace

Json PermissionRequestParams(const std::string& session_id, const Json& request,
                             const std::filesystem::path& cwd) {
  if (request.value("kind", "sandbox") != "sandbox") return TrustParams(session_id, request);
  std::string tool = request.value("tool", "");
  Json args = request.value("args", Json());
  std::string text = "Let " + (tool.empty() ? std::string("the command") : tool) + " " +
                     Describe(request) + "?";
  if (!request.value("parent_call_id", "").empty()) text = "A sub-agent asks: " + text;
  std::string why = request.value("justification", "");
  if (!why.empty()) text += "\n\nThe model says: " + why;
  std::string toml = request.value("policy_change", "");
  if (!toml.empty())
    text += "\n\n\"Always for this project\" saves this to the project's grants:\n" + toml;
  // A sub-agent's request is shown on the parent's call, the one the client
  // has (the sub-agent's own calls are not in its stream); _meta keeps both.
  std::string parent = request.value("parent_call_id", "");
  std::string own = request.value("call_id", "");
  Json tool_call = {{"toolCallId", parent.empty() ? own : parent},
                    {"title", "Allow: " + Describe(request)},
                    {"kind", ToolKind(tool)},
                    {"status", "pending"},
                    {"locations", ToolLocations(tool, args, cwd)},
                    {"content", {{{"type", "content"}, {"content", {{"type", "text"}, {"text", text}}}}}}};
  if (!args.is_null()) tool_call["rawInput"] = args;
  if (!parent.empty())
    tool_call["_meta"] = {{"sepp", {{"call_id", own}, {"parent_call_id", parent}}}};
  return {{"sessionId", session_id},
          {"toolCall", std::move(tool_call)},
          {"options",
           {{{"optionId", "allow_once"}, {"name", "Allow once"}, {"kind", "allow_once"}},
            {{"optionId", "allow_session"},
             {"name", "Allow for this session"},
             {"kind", "allow_always"}},
            {{"optionId", "allow_project"},
             {"name", "Always allow for this project"},
             {"kind", "allow_always"}},
            {{"optionId", "deny"}, {"name", "Deny"}, {"kind", "reject_once"}}}}};
}

PermissionAnswer AnswerFromClient(const Json& result, const Json& error) {
  PermissionAnswer a;
  a.choice = PermissionChoice::kDeny;
  a.source = "user";
  if (!error.is_null() || !result.is_object()) {
    a.source = "cancelled";
    a.message = "denied: the editor did not answer the permission request";
    return a;
  }
  Json outcome = result.value("outcome", Json());
  if (!outcome.is_object() || outcome.value("outcome", "") != "selected") {
    a.source = "cancelled";
    a.message = "denied: the permission request was cancelled";
    return a;
  }
  std::string option = outcome.value("optionId", "");
  if (option == "allow_once") a.choice = PermissionChoice::kAllowOnce;
  else if (option == "allow_session") a.choice = PermissionChoice::kAllowSession;
  else if (option == "allow_project" || option == "allow") a.choice = PermissionChoice::kAllowProject;
  else a.message = "denied by the user";
  return a;
}

}  // namespace sepp::front::acp
