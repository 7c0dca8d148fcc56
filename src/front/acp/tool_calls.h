// How sepp's tool calls look to an ACP client: the `tool_call` that opens
// one (kind, title, locations, raw input) and the `tool_call_update` that
// closes it (status, and content: a diff for edit and write, the output for
// bash and the others). Pure functions of the call, so live turns and the
// history replayed by session/load show a call the same way.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>

#include "base/json.h"

namespace sepp::front::acp {

// ACP's ToolKind for a sepp tool: read, edit, search, execute, think, other.
const char* ToolKind(std::string_view tool);

// [{path, line?}]: the file a call is about, absolute (relative paths are
// taken from cwd); empty for calls that name no file.
Json ToolLocations(std::string_view tool, const Json& args, const std::filesystem::path& cwd);

// The session/update that opens a call. title: a one-line summary.
Json ToolCallStarted(const std::string& call_id, std::string_view tool, const std::string& title,
                     const Json& args, const std::filesystem::path& cwd);

// A running call's output so far (bash streams it): a tool_call_update that
// keeps the call in_progress and replaces its content with that text.
Json ToolCallProgress(const std::string& call_id, const std::string& output_so_far);

// The session/update that closes it. details: the tool's details for front
// ends (may be null, e.g. in replayed history).
Json ToolCallFinished(const std::string& call_id, std::string_view tool, const Json& args,
                      const std::string& result, bool is_error, const Json& details,
                      const std::filesystem::path& cwd);

// Text of a tool's output as shown to the client: at most this many bytes
// (the model saw the same result; a client needs no more to render it).
constexpr size_t kMaxShownOutput = 64 * 1024;

}  // namespace sepp::front::acp
