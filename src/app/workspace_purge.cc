#include "app/workspace_purge.h"

#include <pwd.h>
#include <unistd.h>

#include <set>

#include "app/session_stores.h"
#include "base/paths.h"
#include "front/tui/prompt_history.h"
#include "memory/store.h"
#include "runtime/permission_broker.h"
#include "sidecar/store.h"

namespace sepp::app {
namespace {

namespace fs = std::filesystem;

bool AtOrBelow(const std::string& path, const std::string& folder) {
  return path == folder || (path.size() > folder.size() && path.compare(0, folder.size(), folder) == 0 &&
                            path[folder.size()] == '/');
}

// The user memory is kept for, as the session's tools name it.
std::string UserName() {
  if (struct passwd* pw = ::getpwuid(::geteuid()); pw && pw->pw_name) return pw->pw_name;
  return "uid" + std::to_string(::geteuid());
}

// The files keyed by the folder's path: grants and prompt history.
void RemoveFolderFiles(const fs::path& folder, PurgeReport& r) {
  fs::path grants = runtime::PermissionBroker({}, folder, nullptr).project_policy_file();
  for (const fs::path& f : {grants, front::tui::PromptHistory::FileFor(folder)}) {
    std::error_code ec;
    fs::remove(f, ec);
    if (ec) r.problems.push_back("could not delete " + f.string() + ": " + ec.message());
  }
}

void PurgeOutputs(const std::vector<std::string>& folders, PurgeReport& r) {
  fs::path file = SeppHome() / "context.db";
  std::error_code ec;
  if (!fs::exists(file, ec)) return;  // nothing was ever stored: do not make the file
  auto store = sidecar::Store::Open(file);
  if (!store.ok()) {
    r.problems.push_back("the stored outputs stay in " + file.string() + ": " + store.error().message);
    return;
  }
  for (const auto& f : folders) {
    auto n = (*store)->PurgeFolder(f);
    if (n.ok()) r.outputs += *n;
    else r.problems.push_back("the stored outputs of " + f + " stay in " + file.string() + ": " + n.error().message);
  }
}

void PurgeSessionMemories(const std::set<std::string>& ids, const std::string& project, PurgeReport& r) {
  fs::path file = SeppHome() / "memory.db";
  std::error_code ec;
  if (ids.empty() || !fs::exists(file, ec)) return;
  auto store = memory::Store::Open(file);
  if (!store.ok()) {
    r.problems.push_back("the session memories stay in " + file.string() + ": " + store.error().message);
    return;
  }
  memory::ListOptions o;
  o.level = "session";
  o.limit = 100;
  for (const auto& id : ids) {
    memory::MemoryView view{UserName(), project, id};
    for (;;) {
      auto page = (*store)->List(view, o);
      if (!page.ok()) {
        r.problems.push_back("the memories of session " + id + " stay: " + page.error().message);
        break;
      }
      if (page->empty()) break;
      for (const auto& m : *page) {
        auto gone = (*store)->Delete(view, m.id);
        if (!gone.ok()) {
          r.problems.push_back("memory " + m.id + " stays: " + gone.error().message);
          return;
        }
        r.memories += *gone ? 1 : 0;
      }
    }
  }
}

}  // namespace

PurgeReport PurgeWorkspaceData(const fs::path& worktree, const std::string& memory_project,
                               bool purge_sessions) {
  PurgeReport r;
  // The path as recorded and as the sessions saw it (their cwd, resolved).
  std::error_code ec;
  std::vector<std::string> folders = {worktree.lexically_normal().string()};
  fs::path canonical = fs::weakly_canonical(worktree, ec);
  if (!ec && canonical.string() != folders[0]) folders.push_back(canonical.string());

  PurgeOutputs(folders, r);
  for (const auto& f : folders) RemoveFolderFiles(f, r);

  auto stores = OpenStores("");
  if (!stores.ok()) {
    r.problems.push_back("the session logs could not be listed: " + stores.error().message);
    return r;
  }
  std::set<std::string> removed;
  for (auto& store : stores->open) {
    auto all = store->List(std::nullopt);
    if (!all.ok()) {
      r.problems.push_back("the session logs in " + store->location() + " could not be listed: " +
                           all.error().message);
      continue;
    }
    for (const auto& s : *all) {
      bool here = false;
      for (const auto& f : folders) here = here || AtOrBelow(s.cwd, f);
      if (!here) continue;
      if (!purge_sessions) {
        ++r.sessions_kept;
        continue;
      }
      if (Status st = store->Remove(s.id); st.ok()) {
        ++r.sessions;
        removed.insert(s.id);
      } else {
        r.problems.push_back("session " + s.id + " stays: " + st.error().message);
      }
    }
  }
  PurgeSessionMemories(removed, memory_project, r);
  return r;
}

}  // namespace sepp::app
