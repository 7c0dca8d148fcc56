// sepp's event stream as ACP `session/update` payloads, and a session's
// history as the updates session/load replays. Pure: no I/O, no state but
// what the caller passes, so the same mapping serves `sepp --acp` and the
// HTTP server's ACP route.
#pragma once
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "agent/events.h"
#include "base/json.h"
#include "base/result.h"
#include "llm/message.h"

namespace sepp::front::acp {

// What a mapping needs to know about the session.
struct UpdateContext {
  std::filesystem::path cwd;
  int64_t context_window = 0;  // for usage_update's size; 0: unknown
  // A tool call's one-line title ("read src/main.cc"); empty: the tool name.
  std::function<std::string(const std::string& tool, const Json& args)> title;
};

// The `update` object for one event, or nothing for events ACP has no
// place for (turn boundaries, retries: the prompt's answer carries the end).
// tool.finished needs the call's arguments, which the caller keeps from
// tool.started (args_of_call).
std::optional<Json> UpdateForEvent(const agent::Event& e, const UpdateContext& ctx,
                                   const Json& args_of_call);

// The updates that replay a conversation: user text as user_message_chunk,
// thinking and text as agent_thought_chunk / agent_message_chunk, each tool
// call as tool_call and its result as tool_call_update.
std::vector<Json> HistoryUpdates(const std::vector<llm::Message>& history,
                                 const UpdateContext& ctx);

// The text of an ACP prompt (ContentBlock[]) as sepp's user message: text
// blocks as they are, resource links as "@uri", embedded text resources
// inlined with their uri. Error when there is nothing usable in it.
Result<std::string> PromptText(const Json& blocks);

}  // namespace sepp::front::acp
