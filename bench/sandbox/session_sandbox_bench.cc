// The session sandbox (tools/tool_worker.h) against what it replaces, in one
// run: a bash call through the worker inside the session's sandbox vs the
// same bash tool with the sandbox off (a plain fork+exec of bash) and vs
// today's one-off sandbox per call; a read through the worker vs the read
// tool in this process (with the policy resolved per call, and once, as the
// worker does); and setting up a session sandbox (to its first
// answer) vs one launch of `true` under the default policy.
//
// The cases whose every process ends within the loop (the two set-ups, and
// the calls without a worker) also report cpu_all_us: the CPU time per
// iteration of this process (all threads) and of every child it reaped
// (sandboxes, workers, commands; kernel time included). On a busy machine
// the wall time mostly waits for a CPU; this is the work itself. (A worker
// that lives across the loop is reaped after it, so its CPU would be
// missing: those cases report none.)
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
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

// SEPP_BENCH_ITERATIONS=N runs every case for exactly N iterations (one
// run, no calibration), so that a whole-process count (perf stat's
// task-clock, strace -c) taken at two values of N gives the cost of one call
// as the difference over the difference: bench/sandbox/percall.py.
void FixedIterations(benchmark::internal::Benchmark* b) {
  if (const char* n = std::getenv("SEPP_BENCH_ITERATIONS")) b->Iterations(std::atoll(n));
}

double CpuAllMicros() {
  rusage self{}, kids{};
  getrusage(RUSAGE_SELF, &self);
  getrusage(RUSAGE_CHILDREN, &kids);
  auto us = [](const timeval& t) { return static_cast<double>(t.tv_sec) * 1e6 + t.tv_usec; };
  return us(self.ru_utime) + us(self.ru_stime) + us(kids.ru_utime) + us(kids.ru_stime);
}

// Sets cpu_all_us when the case ends.
class CpuAll {
 public:
  explicit CpuAll(benchmark::State& state) : state_(state), start_(CpuAllMicros()) {}
  ~CpuAll() {
    state_.counters["cpu_all_us"] =
        benchmark::Counter(CpuAllMicros() - start_, benchmark::Counter::kAvgIterations);
  }

 private:
  benchmark::State& state_;
  double start_;
};

void Loop(benchmark::State& state, const std::string& tool, const Json& args,
          const sandbox::Policy& policy, tools::ToolWorker* worker,
          const tools::PathGuard* guard = nullptr) {
  tools::ToolContext ctx;
  ctx.cwd = Workspace();
  ctx.policy = &policy;
  ctx.worker = worker;
  ctx.guard = guard;
  std::optional<CpuAll> cpu;
  if (!worker) cpu.emplace(state);
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
BENCHMARK(BM_BashSandboxOff)->Unit(benchmark::kMicrosecond)->UseRealTime()->Apply(FixedIterations);

void BM_BashOneOffSandbox(benchmark::State& state) {
  Loop(state, "bash", {{"command", "true"}}, Policy(), nullptr);
}
BENCHMARK(BM_BashOneOffSandbox)->Unit(benchmark::kMicrosecond)->UseRealTime()->Apply(FixedIterations);

void BM_BashSessionSandbox(benchmark::State& state) {
  sandbox::Policy p = Policy();
  tools::ToolWorker worker(p, Workspace(), SEPP_BINARY, false);
  Loop(state, "bash", {{"command", "true"}}, p, &worker);
}
BENCHMARK(BM_BashSessionSandbox)->Unit(benchmark::kMicrosecond)->UseRealTime()->Apply(FixedIterations);

// The policy's paths resolved anew for the call (as a call in sepp does).
void BM_ReadInProcess(benchmark::State& state) {
  Loop(state, "read", {{"path", "small.txt"}}, Policy(), nullptr);
}
BENCHMARK(BM_ReadInProcess)->Unit(benchmark::kMicrosecond)->UseRealTime()->Apply(FixedIterations);

// With --sandbox off (no worker; the guard allows everything).
void BM_ReadSandboxOff(benchmark::State& state) {
  sandbox::Policy off = Policy();
  off.enabled = false;
  Loop(state, "read", {{"path", "small.txt"}}, off, nullptr);
}
BENCHMARK(BM_ReadSandboxOff)->Unit(benchmark::kMicrosecond)->UseRealTime()->Apply(FixedIterations);

// The same operation as in the worker, which resolves them once per session.
void BM_ReadInProcessOneGuard(benchmark::State& state) {
  sandbox::Policy p = Policy();
  tools::ToolContext guard_ctx;
  guard_ctx.policy = &p;
  tools::PathGuard guard(guard_ctx);
  Loop(state, "read", {{"path", "small.txt"}}, p, nullptr, &guard);
}
BENCHMARK(BM_ReadInProcessOneGuard)->Unit(benchmark::kMicrosecond)->UseRealTime()->Apply(FixedIterations);

void BM_ReadViaWorker(benchmark::State& state) {
  sandbox::Policy p = Policy();
  tools::ToolWorker worker(p, Workspace(), SEPP_BINARY, false);
  Loop(state, "read", {{"path", "small.txt"}}, p, &worker);
}
BENCHMARK(BM_ReadViaWorker)->Unit(benchmark::kMicrosecond)->UseRealTime()->Apply(FixedIterations);

void BM_SetUpOneOffLaunch(benchmark::State& state) {
  sandbox::Policy p = Policy();
  sandbox::RunSpec spec;
  spec.argv = {"/bin/true"};
  spec.cwd = Workspace();
  CpuAll cpu(state);
  for (auto _ : state) {
    auto r = sandbox::Run(spec, p, nullptr, nullptr);
    if (!r.ok()) {
      state.SkipWithError(r.error().message.c_str());
      break;
    }
  }
}
BENCHMARK(BM_SetUpOneOffLaunch)->Unit(benchmark::kMicrosecond)->UseRealTime()->Apply(FixedIterations);

// Start, first answer (an ls), end: a whole session's sandbox.
void BM_SetUpSessionSandbox(benchmark::State& state) {
  sandbox::Policy p = Policy();
  CpuAll cpu(state);
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
BENCHMARK(BM_SetUpSessionSandbox)->Unit(benchmark::kMicrosecond)->UseRealTime()->Apply(FixedIterations);

}  // namespace

BENCHMARK_MAIN();
