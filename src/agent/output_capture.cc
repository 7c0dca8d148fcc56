#include "agent/output_capture.h"

#include "base/strings.h"

namespace sepp::agent {

namespace {
constexpr std::string_view kCapMark = "\n[... the output went on; the sidecar keeps its first 64 MiB ...]\n";
}

void AppendCapped(std::string& captured, std::string_view chunk) {
  if (captured.size() >= kMaxCapturedBytes) return;
  size_t room = kMaxCapturedBytes - captured.size();
  if (chunk.size() <= room) {
    captured.append(chunk);
  } else {
    captured.append(chunk.substr(0, Utf8SafePrefix(chunk, room)));
    captured.append(kCapMark);
  }
}

void CaptureOversized(sidecar::Sidecar& sidecar, const std::string& tool_name, const Json& args,
                      const std::string& streamed, tools::ToolResult& result) {
  bool from_stream = result.truncated && !streamed.empty() && result.details.is_object() &&
                     result.details.contains("output_bytes");
  std::string trailer;
  if (from_stream) {
    // What the result said after the output: the sandbox's refusals and
    // the command's outcome (exit code, signal, timeout).
    for (const auto& d : result.denials) trailer += "[sandbox] " + d.text + "\n";
    trailer += result.details.value("outcome", "");
  }
  std::string error;
  auto receipt = sidecar.Capture(tool_name, args, from_stream ? std::string_view(streamed)
                                                              : std::string_view(result.text),
                                 trailer, &error);
  if (receipt) {
    result.text = std::move(*receipt);
    return;
  }
  if (!error.empty())
    result.text += "\n[the context sidecar could not store this output: " + error + "]";
}

}  // namespace sepp::agent
