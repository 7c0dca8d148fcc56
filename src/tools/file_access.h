// FileAccess: another place the file tools read and write text files, used
// instead of the disk when a front end supplies one (ToolContext.file_access).
// An editor speaking ACP offers its buffers this way (fs/read_text_file,
// fs/write_text_file), so a read sees unsaved changes and an edit lands in
// the buffer the user is looking at.
//
// Only the transport changes: the tools check every path with their
// PathGuard first, exactly as for the disk, so a FileAccess is never asked
// for a denied path (a secret) or to write outside the write roots. Calls
// through a FileAccess run in sepp's own process (the editor is reached
// through the front end), not in the session's tool worker.
#pragma once
#include <filesystem>
#include <string>

#include "base/cancel.h"
#include "base/result.h"

namespace sepp::tools {

class FileAccess {
 public:
  virtual ~FileAccess() = default;
  // Which directions go through here; the other one stays on the disk.
  virtual bool reads() const = 0;
  virtual bool writes() const = 0;
  // The whole text of path (absolute, already allowed by the guard). Errors
  // carry a message for the model; kind "cancelled" when cancel fired,
  // "timeout" when no answer came in time. Thread-safe.
  virtual Result<std::string> ReadText(const std::filesystem::path& path, CancelToken* cancel) = 0;
  // Replaces the whole text of path (creating it when the other side can).
  virtual Result<void> WriteText(const std::filesystem::path& path, const std::string& content,
                                 CancelToken* cancel) = 0;
};

}  // namespace sepp::tools
