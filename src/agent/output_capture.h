// Where the agent hands oversized tool results to the output sidecar
// (sidecar/sidecar.h): after a call, before its result enters the context.
//
// The whole output is what the sidecar keeps: for a tool that streams its
// output through ToolContext::on_output and reports output_bytes (bash),
// that is the stream sepp itself read from the command's pipe, not the
// head and tail the tool kept; for every other tool it is the result text.
#pragma once
#include <string>
#include <string_view>

#include "base/json.h"
#include "sidecar/sidecar.h"
#include "tools/tool.h"

namespace sepp::agent {

// Most of one call's stream the agent holds for the sidecar (as much as
// bash saves to its output file); the rest is dropped, and said so.
inline constexpr size_t kMaxCapturedBytes = 64u << 20;

// Appends chunk to a call's captured stream, up to kMaxCapturedBytes.
void AppendCapped(std::string& captured, std::string_view chunk);

// Replaces result.text with the sidecar's receipt when the output is over
// the threshold (and the call is not exempt). A store failure leaves the
// result as it was, with a note.
void CaptureOversized(sidecar::Sidecar& sidecar, const std::string& tool_name, const Json& args,
                      const std::string& streamed, tools::ToolResult& result);

}  // namespace sepp::agent
