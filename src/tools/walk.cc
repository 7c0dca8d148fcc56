#include "tools/walk.h"

#include "tools/safe_open.h"

#include <algorithm>
#include <dirent.h>
#include <sys/stat.h>
#include <vector>

#include "base/file.h"
#include "tools/gitignore.h"

namespace sepp::tools {
namespace {

constexpr int kMaxDepth = 256;

struct Child {
  std::string name;
  bool is_dir;
  bool is_symlink;
};

std::vector<Child> ListDir(const std::filesystem::path& dir) {
  std::vector<Child> out;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return out;
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    bool is_dir = e->d_type == DT_DIR, is_link = e->d_type == DT_LNK;
    if (e->d_type == DT_UNKNOWN) {
      struct stat st;
      if (::lstat((dir / name).c_str(), &st) == 0) {
        is_dir = S_ISDIR(st.st_mode);
        is_link = S_ISLNK(st.st_mode);
      }
    }
    out.push_back({std::move(name), is_dir, is_link});
  }
  ::closedir(d);
  std::sort(out.begin(), out.end(), [](const Child& a, const Child& b) { return a.name < b.name; });
  return out;
}

void AddIgnoreFile(IgnoreRules& rules, const std::filesystem::path& file, const std::string& base) {
  auto text = ReadRegularFile(file, 1u << 20);  // an ignore file; never a FIFO, never huge
  if (text.ok()) rules.AddFile(*text, base);
}

class Walker {
 public:
  Walker(const WalkOptions& options, const std::function<bool(const WalkEntry&)>& visit)
      : options_(options), visit_(visit) {}

  void Run(const std::filesystem::path& root) {
    if (options_.respect_gitignore) LoadAncestors(root);
    Visit(root, "");
  }

 private:
  // The rules of the folders above root, up to the repository's top; paths
  // are then checked relative to that top (prefix_ + rel).
  void LoadAncestors(const std::filesystem::path& root) {
    std::error_code ec;
    std::filesystem::path abs = std::filesystem::absolute(root, ec).lexically_normal();
    if (ec) return;
    std::vector<std::filesystem::path> chain;  // root, parent, ..., top
    std::filesystem::path top;
    for (std::filesystem::path p = abs;; p = p.parent_path()) {
      chain.push_back(p);
      if (std::filesystem::exists(p / ".git", ec)) {
        top = p;
        break;
      }
      if (p == p.parent_path() || chain.size() > 64) break;
    }
    if (top.empty()) return;  // not in a repository: only the tree's own files
    std::string rel_root = abs.lexically_relative(top).generic_string();
    if (rel_root == ".") rel_root.clear();
    prefix_ = rel_root.empty() ? "" : rel_root + "/";
    AddIgnoreFile(rules_, top / ".git" / "info" / "exclude", "");
    // Top down, excluding root itself (Visit loads it).
    for (size_t i = chain.size(); i-- > 1;) {
      std::string base = chain[i].lexically_relative(top).generic_string();
      if (base == ".") base.clear();
      AddIgnoreFile(rules_, chain[i] / ".gitignore", base);
    }
  }

  // Returns false when the walk must stop.
  bool Visit(const std::filesystem::path& dir, const std::string& rel, int depth = 0) {
    if (options_.cancel && options_.cancel->cancelled()) return false;
    if (depth > kMaxDepth) return true;  // pathological nesting: skip, don't overflow
    size_t mark = rules_.size();
    if (options_.respect_gitignore) {
      std::string base = prefix_ + rel;
      if (!base.empty() && base.back() == '/') base.pop_back();
      AddIgnoreFile(rules_, dir / ".gitignore", base);
    }
    bool go_on = true;
    for (const Child& c : ListDir(dir)) {
      if (c.name == ".git") continue;
      std::string child_rel = rel + c.name;
      if (options_.respect_gitignore && rules_.Ignored(prefix_ + child_rel, c.is_dir)) continue;
      WalkEntry e{dir / c.name, child_rel, c.is_dir, c.is_symlink};
      if (!visit_(e)) {
        go_on = false;
        break;
      }
      if (c.is_dir && !Visit(e.path, child_rel + "/", depth + 1)) {
        go_on = false;
        break;
      }
    }
    rules_.Truncate(mark);
    return go_on;
  }

  const WalkOptions& options_;
  const std::function<bool(const WalkEntry&)>& visit_;
  IgnoreRules rules_;
  std::string prefix_;  // root relative to the repository top, with '/', or ""
};

}  // namespace

void Walk(const std::filesystem::path& root, const WalkOptions& options,
          const std::function<bool(const WalkEntry&)>& visit) {
  Walker(options, visit).Run(root);
}

}  // namespace sepp::tools
