// The user's own commands (RPC "bash", the TUI's !cmd) in the model's
// context, the way pi puts them there: each run is a "bash_execution"
// session entry, and unless it was excluded the model reads it as a user
// message ("Ran `cmd`" and the output in a fence) from the next prompt on.
// The live session (AgentSession::RunBash) and a resumed one
// (SessionBinding::RebuildContext) build that message here, so both read
// the same.
#pragma once
#include "base/json.h"
#include "llm/message.h"

namespace sepp::runtime {

// The entry's payload: {command, output, exit_code, cancelled, truncated,
// full_output_path?, exclude_from_context}.
struct UserBash {
  std::string command;
  std::string output;  // redacted, without the outcome line
  int exit_code = -1;
  bool cancelled = false;
  bool truncated = false;
  std::string full_output_path;
  bool exclude_from_context = false;
};

Json UserBashEntry(const UserBash& run);
// From an entry as stored; missing or mistyped fields read as their defaults.
UserBash UserBashFromEntry(const Json& payload);

// pi's text: "Ran `cmd`\n```\n<output>\n```", "(no output)", then
// "(command cancelled)" or "Command exited with code N", and where the full
// output was saved when it was truncated.
llm::Message UserBashMessage(const UserBash& run);

}  // namespace sepp::runtime
