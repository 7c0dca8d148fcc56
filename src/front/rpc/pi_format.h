// sepp's data in the shapes of pi's RPC protocol (pi 1.6: docs/rpc.md,
// rpc-commands.md, json.md, message-types.md of @earendil-works/pi-coding-agent).
// Pure functions; the stateful event translation is in pi_events.h.
#pragma once
#include <cstdint>
#include <string>

#include "base/json.h"
#include "base/json_text.h"
#include "llm/message.h"
#include "runtime/agent_session.h"

namespace sepp::front::rpc {

// pi's Usage: {input, output, cacheRead, cacheWrite, totalTokens, cost{...}}.
// sepp keeps no prices, so every cost is 0.
Json PiUsage(const llm::Usage& u);
// "stop" | "length" | "toolUse" | "error" | "aborted".
const char* PiStopReason(llm::StopReason s);
// A message as pi's AgentMessage (user / assistant / toolResult).
// timestamp_ms: 0 when unknown.
Json PiMessage(const llm::Message& m, const std::string& provider, int64_t timestamp_ms);
// The same as text (DumpJson(PiMessage(...))), written directly: the event
// stream writes one per message.
void AppendPiMessage(std::string& out, const llm::Message& m, const std::string& provider,
                     int64_t timestamp_ms);
// DumpJson(PiUsage(u)), written directly.
void AppendPiUsage(std::string& out, const llm::Usage& u);
// A tool call's arguments as pi has them: the object, or {} when the model's
// were not an object.
const Json& PiToolArguments(const llm::ContentBlock& call);
// A sepp session entry ({type, id, parentId, timestamp, ...}) with its
// message, if any, in pi's form.
Json PiEntry(const Json& entry, const std::string& provider);
// The Model object of rpc-commands.md.
Json PiModel(const std::string& provider, const std::string& model_id);
// pi's API name for a provider ("anthropic-messages", "openai-completions",
// "openai-responses").
std::string PiApi(const std::string& provider);

}  // namespace sepp::front::rpc
