// In-process launches through sandbox::Run, as the agent's bash tool makes
// them: `true` unconfined (the same fork/exec/supervise path with the policy
// disabled) against `true` under the default tool policy, with and without
// its network namespace; and the parent-side planning alone. Wall time: the
// launch is mostly kernel work in two processes.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "sandbox/defaults.h"
#include "sandbox/mounts.h"
#include "sandbox/run.h"

namespace {

namespace fs = std::filesystem;

fs::path Workspace() {
  static fs::path ws = [] {
    std::string tmpl = (fs::temp_directory_path() / "sepp-bench-sandbox-XXXXXX").string();
    return fs::path(::mkdtemp(tmpl.data()));
  }();
  return ws;
}

void RunTrue(benchmark::State& state, sepp::sandbox::Policy policy) {
  sepp::sandbox::RunSpec spec;
  spec.argv = {"/bin/true"};
  spec.cwd = Workspace();
  for (auto _ : state) {
    auto r = sepp::sandbox::Run(spec, policy, nullptr, nullptr);
    if (!r.ok() || r->exit_code != 0) {
      state.SkipWithError(r.ok() ? "true failed" : r.error().message.c_str());
      break;
    }
  }
}

void BM_Unconfined(benchmark::State& state) {
  auto policy = sepp::sandbox::DefaultToolPolicy(Workspace());
  policy.enabled = false;
  RunTrue(state, policy);
}
BENCHMARK(BM_Unconfined)->UseRealTime()->Unit(benchmark::kMicrosecond);

void BM_Sandboxed(benchmark::State& state) {
  RunTrue(state, sepp::sandbox::DefaultToolPolicy(Workspace()));
}
BENCHMARK(BM_Sandboxed)->UseRealTime()->Unit(benchmark::kMicrosecond);

void BM_SandboxedHostNetwork(benchmark::State& state) {
  auto policy = sepp::sandbox::DefaultToolPolicy(Workspace());
  policy.net = sepp::sandbox::NetMode::kHost;
  RunTrue(state, policy);
}
BENCHMARK(BM_SandboxedHostNetwork)->UseRealTime()->Unit(benchmark::kMicrosecond);

void BM_MountPlan(benchmark::State& state) {
  auto policy = sepp::sandbox::DefaultToolPolicy(Workspace());
  for (auto _ : state) benchmark::DoNotOptimize(sepp::sandbox::BuildMountPlan(policy, Workspace()));
}
BENCHMARK(BM_MountPlan)->Unit(benchmark::kMicrosecond);

// The plan for a workspace of 10 000 files in 200 folders holding a git
// repository: the bounded walk that finds nested repositories and .env files
// anywhere, and git's control files, against the empty workspace above.
void BM_MountPlanTenThousandFiles(benchmark::State& state) {
  static fs::path ws = [] {
    fs::path w = Workspace() / "large";
    for (int d = 0; d < 200; ++d) {
      fs::path dir = w / ("dir" + std::to_string(d / 20)) / ("sub" + std::to_string(d));
      fs::create_directories(dir);
      for (int f = 0; f < 50; ++f) std::ofstream(dir / ("f" + std::to_string(f) + ".c")) << "x";
    }
    for (const char* g : {".git/hooks", ".git/info", ".git/objects", ".git/refs/heads"})
      fs::create_directories(w / g);
    std::ofstream(w / ".git/HEAD") << "ref: refs/heads/main\n";
    std::ofstream(w / ".git/config") << "[core]\n";
    return w;
  }();
  auto policy = sepp::sandbox::DefaultToolPolicy(ws);
  for (auto _ : state) benchmark::DoNotOptimize(sepp::sandbox::BuildMountPlan(policy, ws));
}
BENCHMARK(BM_MountPlanTenThousandFiles)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
