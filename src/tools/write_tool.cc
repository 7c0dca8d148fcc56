// write: create or replace a file with the given content.
//
// The write is atomic (a temporary file renamed over the target), parent
// folders are created, and an existing file keeps its permission bits. A
// symlink is written through (its target is replaced, the link stays).
// With a front end's file access (file_access.h) the content goes there
// instead (an editor's buffer), after the same checks.
#include <sys/stat.h>
#include <optional>

#include "base/fd.h"
#include "base/file.h"
#include "base/strings.h"
#include "tools/access.h"
#include "tools/args.h"
#include "tools/file_access.h"
#include "tools/files.h"
#include "tools/frecency.h"
#include "tools/safe_open.h"
#include "tools/truncate.h"

namespace sepp::tools {
namespace {

class WriteTool : public Tool {
 public:
  std::string name() const override { return "write"; }
  bool runs_in_worker() const override { return true; }
  bool uses(const FileAccess& access) const override { return access.writes(); }

  std::string description() const override {
    return "Write a file: creates it (and missing parent folders) or replaces its whole "
           "content. Keeps the permissions of an existing file. For changes to part of an "
           "existing file prefer edit.";
  }

  Json parameters() const override {
    return Json::parse(R"({
      "type": "object",
      "properties": {
        "path": {"type": "string", "description": "File to write, relative to the working directory or absolute."},
        "content": {"type": "string", "description": "The complete new content of the file."}
      },
      "required": ["path", "content"],
      "additionalProperties": false
    })");
  }

  std::string Summary(const Json& args) const override {
    return SummaryLine("write", StringOr(args, "path"));
  }

 private:
  ToolResult Run(const Json& args, ToolContext& ctx) override {
    if (auto st = CheckArgsObject(args); !st) return ErrorResult(st.error().message);
    auto path_arg = RequiredPath(args, "path");
    if (!path_arg) return ErrorResult(path_arg.error().message);
    auto content = RequiredString(args, "content");
    if (!content) return ErrorResult(content.error().message);
    if (path_arg->back() == '/')
      return ErrorResult("Invalid argument \"path\": " + *path_arg +
                         " names a folder; give the path of a file.");

    std::filesystem::path path = ResolveToolPath(ctx, *path_arg);
    std::optional<PathGuard> own_guard;
    const PathGuard& guard = GuardOf(ctx, &own_guard);
    if (auto denial = guard.CheckWrite(path)) return DeniedResult(std::move(*denial));
    std::string shown = ShowPath(ctx, path);
    path = WriteDestination(path);
    auto update_lock = LockFileForUpdate(path);  // see edit: one change at a time per file
    if (ctx.file_access && ctx.file_access->writes()) {
      std::error_code ec;
      bool on_disk = std::filesystem::exists(path, ec);  // "Created" as the disk sees it
      if (auto w = ctx.file_access->WriteText(path, *content, ctx.cancel); !w)
        return ErrorResult("Cannot write " + shown + ": " + w.error().message + ".");
      return Written(shown, *content, on_disk);
    }
    struct stat st;
    bool existed = ::stat(path.c_str(), &st) == 0;
    if (existed && S_ISDIR(st.st_mode))
      return ErrorResult(shown + " is a directory; give a file path to write.");
    if (existed && !S_ISREG(st.st_mode))
      return ErrorResult(shown + " is not a regular file; refusing to replace it.");
    int mode = existed ? static_cast<int>(st.st_mode & 07777) : 0644;

    if (auto w = WriteFileAtomic(path, *content, mode); !w)
      return ErrorResult("Cannot write " + shown + ": " + FirstReason(w.error().message) + ".");
    if (existed) ::chmod(path.c_str(), static_cast<mode_t>(mode));  // the umask may have cut bits

    RecordFileUse(path.string(), FileUse::kChange);  // file_search ranks by it
    return Written(shown, *content, existed);
  }

  static ToolResult Written(const std::string& shown, const std::string& content, bool existed) {
    size_t lines = CountLines(content);
    ToolResult r;
    r.text = std::string(existed ? "Wrote " : "Created ") + shown + ": " +
             std::to_string(content.size()) + " bytes, " + std::to_string(lines) +
             (lines == 1 ? " line." : " lines.");
    r.details = {{"path", shown}, {"bytes", content.size()}, {"lines", lines}, {"created", !existed}};
    return r;
  }

  // WriteFileAtomic's messages start with the (temporary) path; the model
  // only needs the reason.
  static std::string FirstReason(const std::string& message) {
    size_t colon = message.rfind(": ");
    return colon == std::string::npos ? message : message.substr(colon + 2);
  }
};

}  // namespace

std::unique_ptr<Tool> MakeWriteTool() { return std::make_unique<WriteTool>(); }

}  // namespace sepp::tools
