// find: paths matching a glob, below a folder, skipping what .gitignore
// ignores (and .git). Results are relative to the working directory (ready
// to pass to read) and come in walk order, which is sorted.
#include <sys/stat.h>
#include <optional>

#include "base/fd.h"
#include "base/strings.h"
#include "tools/access.h"
#include "tools/args.h"
#include "tools/files.h"
#include "tools/glob.h"
#include "tools/truncate.h"
#include "tools/walk.h"

namespace sepp::tools {
namespace {

constexpr int64_t kDefaultLimit = 1000;

class FindTool : public Tool {
 public:
  std::string name() const override { return "find"; }
  bool runs_in_worker() const override { return true; }

  std::string description() const override {
    return "Find files and folders whose path matches a glob pattern. A pattern without '/' "
           "matches names at any depth (\"*.cc\"); with '/' it matches the path below the search "
           "folder (\"src/**/*_test.cc\"). Supports *, ?, ** (any folders), {a,b} and [a-z]. "
           "Skips .git and everything .gitignore ignores. Folders end with '/'. Returns at most "
           "1000 paths unless limit says otherwise.";
  }

  Json parameters() const override {
    return Json::parse(R"({
      "type": "object",
      "properties": {
        "pattern": {"type": "string", "description": "Glob, e.g. \"*.py\", \"src/**/*.{h,cc}\", \"**/test_*\"."},
        "path": {"type": "string", "description": "Folder to search. Default: the working directory."},
        "limit": {"type": "integer", "minimum": 1, "description": "Maximum number of results. Default 1000."}
      },
      "required": ["pattern"],
      "additionalProperties": false
    })");
  }

  std::string Summary(const Json& args) const override {
    std::string s = SummaryLine("find", StringOr(args, "pattern"));
    std::string path = StringOr(args, "path");
    return path.empty() ? s : s + " in " + path;
  }

 private:
  ToolResult Run(const Json& args, ToolContext& ctx) override {
    if (auto st = CheckArgsObject(args); !st) return ErrorResult(st.error().message);
    auto pattern = RequiredString(args, "pattern");
    if (!pattern) return ErrorResult(pattern.error().message);
    auto path_arg = OptionalPath(args, "path");
    if (!path_arg) return ErrorResult(path_arg.error().message);
    auto limit = OptionalInt(args, "limit", 1, INT64_MAX);
    if (!limit) return ErrorResult(limit.error().message);
    auto glob = Glob::Compile(*pattern);
    if (!glob) return ErrorResult(glob.error().message);

    std::filesystem::path root = ResolveToolPath(ctx, path_arg->value_or("."));
    std::optional<PathGuard> own_guard;
    const PathGuard& guard = GuardOf(ctx, &own_guard);
    if (auto denial = guard.CheckRead(root)) return DeniedResult(std::move(*denial));
    std::string shown_root = ShowPath(ctx, root);
    struct stat st;
    if (::stat(root.c_str(), &st) != 0) {
      if (errno == ENOENT || errno == ENOTDIR) return ErrorResult(NotFoundMessage(ctx, root));
      return ErrorResult("Cannot search " + shown_root + ": " + ErrnoText(errno) + ".");
    }
    if (!S_ISDIR(st.st_mode))
      return ErrorResult(shown_root + " is a file, not a folder; give a folder as path.");

    size_t max = static_cast<size_t>(limit->value_or(kDefaultLimit));
    // Entries are shown as the root's shown path + their relative path
    // (cheaper than relating every path to cwd again).
    std::string prefix = shown_root == "." ? "" : shown_root;
    if (!prefix.empty() && prefix.back() != '/') prefix += '/';
    std::vector<std::string> found;
    bool more = false;
    WalkOptions opts;
    opts.cancel = ctx.cancel;
    WalkHider hider(guard, root);
    Walk(root, opts, [&](const WalkEntry& e) {
      if (hider.Hidden(e.rel, e.is_dir)) return true;
      if (!glob->Matches(e.rel)) return true;
      if (found.size() == max) {
        more = true;
        return false;
      }
      found.push_back(SanitizeUtf8(prefix + e.rel) + (e.is_dir ? "/" : ""));
      return true;
    });

    ToolResult r;
    if (ctx.cancel && ctx.cancel->cancelled()) {
      r.is_error = true;
      r.text = "aborted";
      return r;
    }
    if (found.empty()) {
      r.text = "No paths match " + SanitizeUtf8(CutLine(*pattern, 200)) + " in " + shown_root +
               " (.gitignore'd files and .git are skipped).";
      r.details = {{"count", 0}};
      return r;
    }
    r.text = Join(found, "\n") + "\n";
    if (more) {
      r.truncated = true;
      r.text += "[Showing the first " + std::to_string(max) +
                " matches; there are more. Use a narrower pattern or path, or a larger limit.]";
    }
    LimitResult(r);
    r.details = {{"count", found.size()}, {"more", more}};
    return r;
  }
};

}  // namespace

std::unique_ptr<Tool> MakeFindTool() { return std::make_unique<FindTool>(); }

}  // namespace sepp::tools
