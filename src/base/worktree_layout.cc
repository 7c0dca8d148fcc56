#include "base/worktree_layout.h"

#include "base/paths.h"

namespace sepp {

namespace fs = std::filesystem;

namespace {

fs::path AbsoluteHome() {
  std::error_code ec;
  fs::path home = fs::weakly_canonical(fs::absolute(SeppHome(), ec), ec);
  return home.empty() ? SeppHome().lexically_normal() : home;
}

}  // namespace

fs::path WorktreesRoot() { return AbsoluteHome() / "worktrees"; }
fs::path ScratchRoot() { return AbsoluteHome() / "scratch"; }

WorktreeSlot SlotFor(const std::string& repo_key, const std::string& name) {
  WorktreeSlot s;
  s.repo_key = repo_key;
  s.name = name;
  s.worktree = WorktreesRoot() / repo_key / name;
  s.scratch = ScratchRoot() / repo_key / name;
  s.record = WorktreesRoot() / repo_key / (name + ".json");
  return s;
}

std::optional<WorktreeSlot> SlotOf(const fs::path& dir) {
  fs::path rel = dir.lexically_normal().lexically_relative(WorktreesRoot());
  auto it = rel.begin();
  if (rel.empty() || it == rel.end() || *it == ".." || *it == ".") return std::nullopt;
  std::string key = (it++)->string();
  if (it == rel.end() || it->empty() || *it == "." || *it == "..") return std::nullopt;
  std::string name = it->string();
  if (name.ends_with(".json")) return std::nullopt;
  return SlotFor(key, name);
}

}  // namespace sepp
