#include "runtime/user_bash.h"

namespace sepp::runtime {

Json UserBashEntry(const UserBash& run) {
  Json j = {{"command", run.command},
            {"output", run.output},
            {"exit_code", run.exit_code},
            {"cancelled", run.cancelled},
            {"truncated", run.truncated},
            {"exclude_from_context", run.exclude_from_context}};
  if (!run.full_output_path.empty()) j["full_output_path"] = run.full_output_path;
  return j;
}

UserBash UserBashFromEntry(const Json& p) {
  UserBash r;
  if (!p.is_object()) return r;
  auto str = [&](const char* k) {
    auto it = p.find(k);
    return it != p.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  auto flag = [&](const char* k) {
    auto it = p.find(k);
    return it != p.end() && it->is_boolean() && it->get<bool>();
  };
  r.command = str("command");
  r.output = str("output");
  r.full_output_path = str("full_output_path");
  if (auto it = p.find("exit_code"); it != p.end() && it->is_number_integer())
    r.exit_code = static_cast<int>(it->get<int64_t>());
  r.cancelled = flag("cancelled");
  r.truncated = flag("truncated");
  r.exclude_from_context = flag("exclude_from_context");
  return r;
}

llm::Message UserBashMessage(const UserBash& run) {
  std::string text = "Ran `" + run.command + "`\n";
  std::string out = run.output;
  if (!out.empty() && out.back() == '\n') out.pop_back();
  text += out.empty() ? "(no output)" : "```\n" + out + "\n```";
  if (run.cancelled)
    text += "\n\n(command cancelled)";
  else if (run.exit_code != 0)
    text += "\n\nCommand exited with code " + std::to_string(run.exit_code);
  if (run.truncated && !run.full_output_path.empty())
    text += "\n\n[Output truncated. Full output: " + run.full_output_path + "]";
  return llm::Message::User(std::move(text));
}

}  // namespace sepp::runtime
