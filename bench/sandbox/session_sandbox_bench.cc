// The session sandbox (tools/tool_worker.h) against what it replaces, in one
// run: a bash call through the worker inside the session's sandbox vs the
// same bash tool with the sandbox off (a plain fork+exec of bash) and vs
// today's one-off sandbox per call; a read through the worker vs the read
// tool in this process (with the policy resolved per call, and once, as the
// worker does); and setting up a session sandbox (to its first
// answer) vs one launch of `true` under the default policy.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "sandbox/defaults.h"
#include "sandbox/run.h"
#include "tools/access.h"
#include "tools/tool.h"
#include "tools/tool_worker.h"

namespace {

namespace fs = std::filesystem;
using namespace sepp;

fs::path Workspace() {
  static fs::path ws = [] {
    std::string tmpl = (fs::temp_directory_path() / "sepp-bench-session-XXXXXX").string();
    fs::path p(::mkdtemp(tmpl.data()));
    std::ofstream(p / "small.txt") << "one\ntwo\nthree\n";
    return p;
  }();
  return ws;
}

sandbox::Policy Policy() { return sandbox::DefaultToolPolicy(Workspace()); }

tools::ToolRegistry& Tools() {
  static auto r = tools::MakeBuiltinTools();
  return *r;
}

void Loop(benchmark::State& state, const std::string& tool, const Json& args,
          const sandbox::Policy& policy, tools::ToolWorker* worker,
          const tools::PathGuard* guard = nullptr) {
  tools::ToolContext ctx;
  ctx.cwd = Workspace();
  ctx.policy = &policy;
  ctx.worker = worker;
  ctx.guard = guard;
  for (auto _ : state) {
    tools::ToolResult r = tools::RunTool(*Tools().Find(tool), args, ctx);
    if (r.is_error) {
      state.SkipWithError(r.text.c_str());
      break;
    }
  }
}

void BM_BashSandboxOff(benchmark::State& state) {
  sandbox::Policy off = Policy();
  off.enabled = false;
  Loop(state, "bash", {{"command", "true"}}, off, nullptr);
}
BENCHMARK(BM_BashSandboxOff)->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_BashOneOffSandbox(benchmark::State& state) {
  Loop(state, "bash", {{"command", "true"}}, Policy(), nullptr);
}
BENCHMARK(BM_BashOneOffSandbox)->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_BashSessionSandbox(benchmark::State& state) {
  sandbox::Policy p = Policy();
  tools::ToolWorker worker(p, Workspace(), SEPP_BINARY, false);
  Loop(state, "bash", {{"command", "true"}}, p, &worker);
}
BENCHMARK(BM_BashSessionSandbox)->Unit(benchmark::kMicrosecond)->UseRealTime();

// The policy's paths resolved anew for the call (as a call in sepp does).
void BM_ReadInProcess(benchmark::State& state) {
  Loop(state, "read", {{"path", "small.txt"}}, Policy(), nullptr);
}
BENCHMARK(BM_ReadInProcess)->Unit(benchmark::kMicrosecond)->UseRealTime();

// The same operation as in the worker, which resolves them once per session.
void BM_ReadInProcessOneGuard(benchmark::State& state) {
  sandbox::Policy p = Policy();
  tools::ToolContext guard_ctx;
  guard_ctx.policy = &p;
  tools::PathGuard guard(guard_ctx);
  Loop(state, "read", {{"path", "small.txt"}}, p, nullptr, &guard);
}
BENCHMARK(BM_ReadInProcessOneGuard)->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_ReadViaWorker(benchmark::State& state) {
  sandbox::Policy p = Policy();
  tools::ToolWorker worker(p, Workspace(), SEPP_BINARY, false);
  Loop(state, "read", {{"path", "small.txt"}}, p, &worker);
}
BENCHMARK(BM_ReadViaWorker)->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_SetUpOneOffLaunch(benchmark::State& state) {
  sandbox::Policy p = Policy();
  sandbox::RunSpec spec;
  spec.argv = {"/bin/true"};
  spec.cwd = Workspace();
  for (auto _ : state) {
    auto r = sandbox::Run(spec, p, nullptr, nullptr);
    if (!r.ok()) {
      state.SkipWithError(r.error().message.c_str());
      break;
    }
  }
}
BENCHMARK(BM_SetUpOneOffLaunch)->Unit(benchmark::kMicrosecond)->UseRealTime();

// Start, first answer (an ls), end: a whole session's sandbox.
void BM_SetUpSessionSandbox(benchmark::State& state) {
  sandbox::Policy p = Policy();
  for (auto _ : state) {
    tools::ToolWorker worker(p, Workspace(), SEPP_BINARY, false);
    tools::ToolContext ctx;
    ctx.cwd = Workspace();
    ctx.policy = &p;
    ctx.worker = &worker;
    tools::ToolResult r = tools::RunTool(*Tools().Find("ls"), {{"path", "."}}, ctx);
    if (r.is_error) {
      state.SkipWithError(r.text.c_str());
      break;
    }
  }
}
BENCHMARK(BM_SetUpSessionSandbox)->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
