// ls: the entries of one folder, sorted by name, folders marked with '/'.
// Hidden entries are listed; .gitignore is not applied (ls shows what is
// there; find and grep skip ignored files).
#include <algorithm>
#include <optional>
#include <dirent.h>
#include <sys/stat.h>

#include "base/fd.h"
#include "base/strings.h"
#include "tools/access.h"
#include "tools/args.h"
#include "tools/files.h"
#include "tools/truncate.h"

namespace sepp::tools {
namespace {

constexpr int64_t kDefaultLimit = 500;

class LsTool : public Tool {
 public:
  std::string name() const override { return "ls"; }
  bool runs_in_worker() const override { return true; }

  std::string description() const override {
    return "List a folder's entries, sorted by name; folders end with '/'. Includes hidden "
           "entries. Shows up to 500 entries unless limit says otherwise.";
  }

  Json parameters() const override {
    return Json::parse(R"({
      "type": "object",
      "properties": {
        "path": {"type": "string", "description": "Folder to list, relative to the working directory or absolute. Default: the working directory."},
        "limit": {"type": "integer", "minimum": 1, "description": "Maximum number of entries to show. Default 500."}
      },
      "additionalProperties": false
    })");
  }

  std::string Summary(const Json& args) const override {
    return "ls " + StringOr(args, "path", ".");
  }

 private:
  ToolResult Run(const Json& args, ToolContext& ctx) override {
    if (auto st = CheckArgsObject(args); !st) return ErrorResult(st.error().message);
    auto path_arg = OptionalPath(args, "path");
    if (!path_arg) return ErrorResult(path_arg.error().message);
    auto limit = OptionalInt(args, "limit", 1, INT64_MAX);
    if (!limit) return ErrorResult(limit.error().message);

    std::filesystem::path dir = ResolveToolPath(ctx, path_arg->value_or("."));
    std::optional<PathGuard> own_guard;
    const PathGuard& guard = GuardOf(ctx, &own_guard);
    if (auto denial = guard.CheckRead(dir)) return DeniedResult(std::move(*denial));
    std::string shown = ShowPath(ctx, dir);
    struct stat st;
    if (::stat(dir.c_str(), &st) != 0) {
      if (errno == ENOENT || errno == ENOTDIR) return ErrorResult(NotFoundMessage(ctx, dir));
      return ErrorResult("Cannot list " + shown + ": " + ErrnoText(errno) + ".");
    }
    if (!S_ISDIR(st.st_mode)) return ErrorResult(shown + " is a file, not a folder. Use read to see it.");

    DIR* d = ::opendir(dir.c_str());
    if (!d) return ErrorResult("Cannot list " + shown + ": " + ErrnoText(errno) + ".");
    std::vector<std::string> entries;
    while (dirent* e = ::readdir(d)) {
      std::string name = e->d_name;
      if (name == "." || name == "..") continue;
      bool is_dir = e->d_type == DT_DIR;
      if (e->d_type == DT_LNK || e->d_type == DT_UNKNOWN) {
        struct stat est;
        is_dir = ::stat((dir / name).c_str(), &est) == 0 && S_ISDIR(est.st_mode);
      }
      entries.push_back(SanitizeUtf8(name) + (is_dir ? "/" : ""));
    }
    ::closedir(d);
    std::sort(entries.begin(), entries.end(), [](const std::string& a, const std::string& b) {
      std::string la = ToLower(a), lb = ToLower(b);
      return la != lb ? la < lb : a < b;
    });

    size_t max = static_cast<size_t>(limit->value_or(kDefaultLimit));
    ToolResult r;
    size_t total = entries.size();
    if (total == 0) r.text = shown + " is empty.";
    for (size_t i = 0; i < total && i < max; ++i) r.text += entries[i] + "\n";
    if (total > max) {
      r.truncated = true;
      r.text += "[Showing " + std::to_string(max) + " of " + std::to_string(total) +
                " entries. Use limit=" + std::to_string(total) + " to see all, or find to search.]";
    }
    LimitResult(r);  // a huge limit must not flood the context
    r.details = {{"path", shown}, {"entries", total}};
    return r;
  }
};

}  // namespace

std::unique_ptr<Tool> MakeLsTool() { return std::make_unique<LsTool>(); }

}  // namespace sepp::tools
