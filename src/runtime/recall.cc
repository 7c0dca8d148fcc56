#include "runtime/recall.h"

#include <pwd.h>
#include <unistd.h>

#include <map>
#include <mutex>

#include "base/paths.h"
#include "base/worktree_layout.h"
#include "memory/embeddings.h"
#include "tools/context_tools.h"
#include "workspace/workspaces.h"

namespace sepp::runtime {
namespace {

namespace fs = std::filesystem;

// One connection per database and process, shared by its sessions (sepp
// serve runs many); reopened when SEPP_HOME changes (tests).
template <typename StoreT, typename OpenFn>
Result<std::shared_ptr<StoreT>> Shared(const fs::path& file, OpenFn open) {
  static std::mutex mu;
  static std::map<std::string, std::weak_ptr<StoreT>> open_stores;
  std::lock_guard<std::mutex> lock(mu);
  if (auto s = open_stores[file.string()].lock()) return s;
  auto s = open(file);
  if (!s.ok()) return s.error();
  std::shared_ptr<StoreT> shared = std::move(*s);
  open_stores[file.string()] = shared;
  return shared;
}

std::string UserName() {
  if (struct passwd* pw = ::getpwuid(::geteuid()); pw && pw->pw_name) return pw->pw_name;
  return "uid" + std::to_string(::geteuid());
}

// Exports go to the scratch folder of a workspace session; else to the
// workspace when the policy lets the session write there.
fs::path ExportRoot(const fs::path& cwd, const sandbox::Policy& policy) {
  if (auto slot = SlotOf(cwd)) return slot->scratch;
  if (!policy.enabled) return cwd;
  for (const auto& w : policy.write_roots) {
    fs::path root = fs::path(w).lexically_normal();
    auto rel = cwd.lexically_relative(root);
    if (!rel.empty() && *rel.begin() != "..") return cwd;
  }
  return {};
}

}  // namespace

SessionRecall OpenRecall(const fs::path& cwd_in, const sandbox::Policy& policy,
                         std::function<std::string()> session_id) {
  SessionRecall r;
  std::error_code ec;
  fs::path cwd = fs::weakly_canonical(fs::absolute(cwd_in, ec), ec);
  if (cwd.empty()) cwd = cwd_in;
  fs::path home = SeppHome();
  auto retention = sidecar::RetentionFromEnvironment();
  if (!retention.ok())
    r.warnings.push_back(retention.error().message + "; the sidecar keeps its defaults (7 days, 512 MiB)");
  auto ctx = Shared<sidecar::Store>(home / "context.db", [&](const fs::path& f) {
    return sidecar::Store::Open(f, retention.ok() ? *retention : sidecar::Retention{});
  });
  if (ctx.ok())
    r.sidecar = std::make_shared<sidecar::Sidecar>(*ctx, cwd.string(), session_id,
                                                   ExportRoot(cwd, policy));
  else
    r.warnings.push_back("the context sidecar is off: " + ctx.error().message);

  auto mem = Shared<memory::Store>(home / "memory.db", [](const fs::path& f) {
    return memory::Store::Open(f);
  });
  if (!mem.ok()) {
    r.warnings.push_back("durable memory is off: " + mem.error().message);
    return r;
  }
  auto binding = std::make_shared<tools::MemoryBinding>();
  binding->store = *mem;
  auto emb = memory::EmbeddingsFromEnvironment();
  if (!emb.ok()) {
    r.warnings.push_back("memory embeddings are off: " + emb.error().message);
  } else if (*emb) {
    binding->embeddings = (*emb)->model + " at " + (*emb)->url;
    (*mem)->set_embedder(memory::MakeOpenAiEmbedder(**emb));
  }
  struct Project {
    std::once_flag once;
    std::string key;
  };
  auto project = std::make_shared<Project>();
  binding->view = [project, cwd, session_id, user = UserName()] {
    std::call_once(project->once, [&] {
      auto repo = workspace::FindRepo(cwd);
      project->key = repo.ok() ? "git:" + repo->key : "dir:" + cwd.string();
    });
    return memory::MemoryView{user, project->key, session_id ? session_id() : std::string()};
  };
  r.memory = binding;
  return r;
}

void AddRecallTools(tools::ToolRegistry& registry, const SessionRecall& recall) {
  if (recall.sidecar) tools::AddContextTools(registry, recall.sidecar);
  if (recall.memory) tools::AddMemoryTools(registry, recall.memory);
}

}  // namespace sepp::runtime
