// The sidecar as a session uses it: the store, the session's scope, and
// the capture rule the agent applies to every tool result.
//
// A result over kCaptureBytes (24 KiB) or kCaptureLines (300 lines) is
// stored whole (redacted again here, whatever the tool did) and the model
// gets a receipt instead: the source id, its size, how to search it, and a
// preview of its first and last 40 lines (at most 8 KiB). Exempt: the
// sidecar's and memory's own tools (their output is already what the model
// asked for), `read` with an explicit offset or limit (the model wants
// exactly those lines, e.g. to edit them), and text that already is a
// receipt.
#pragma once
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "base/json.h"
#include "sidecar/store.h"

namespace sepp::sidecar {

inline constexpr size_t kCaptureBytes = 24 * 1024;
inline constexpr size_t kCaptureLines = 300;
inline constexpr const char* kReceiptMark = "[context-sidecar]";

// True when a result of this size goes to the sidecar.
bool OverThreshold(std::string_view text);
// True for calls whose result is never replaced by a receipt.
bool Exempt(const std::string& tool_name, const Json& args);

class Sidecar {
 public:
  // session_id is asked at each call: the session may change (new,
  // switch) while the sidecar lives. export_root: where context_export
  // writes (the session's scratch folder, else the workspace).
  Sidecar(std::shared_ptr<Store> store, std::string project,
          std::function<std::string()> session_id, std::filesystem::path export_root);

  Scope scope() const;
  Store& store() { return *store_; }
  const std::filesystem::path& export_root() const { return export_root_; }

  // The receipt that replaces the result, or nullopt when the result
  // stays as it is (under the threshold, exempt, or the store failed:
  // then *error says why). full_text is the whole output (for bash the
  // stream sepp read from the command, before any truncation); trailer
  // is what the receipt must still carry after the preview (bash's exit
  // code and sandbox notes).
  std::optional<std::string> Capture(const std::string& tool_name, const Json& args,
                                     std::string_view full_text, std::string_view trailer,
                                     std::string* error = nullptr);

 private:
  std::shared_ptr<Store> store_;
  std::string project_;
  std::function<std::string()> session_id_;
  std::filesystem::path export_root_;
};

// The receipt's preview: the first and last 40 lines, long lines cut, at
// most 8 KiB, with a marker of what is in between.
std::string Preview(std::string_view text);

}  // namespace sepp::sidecar
