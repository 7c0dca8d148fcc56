// process_list with 500 sleeping processes in a session sandbox (sage's
// bar: <= 20 ms), each call end to end through the tool worker as the agent
// makes it, against `ps -eo pid,ppid,stat,lstart,etime,time,args` run by a
// bash call in the same sandbox (what a model without process_list does).
// Prints p50/p95 of both and the ratio.
//
// Run by hand (not by CI): build/bench/tools/bench_process [path/to/sepp]
// (default: the sepp next to this binary's build folder).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "sandbox/defaults.h"
#include "sandbox/probe.h"
#include "tools/process_tools.h"
#include "tools/tool.h"
#include "tools/tool_worker.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double Percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(p * (v.size() - 1))];
}

}  // namespace

int main(int argc, char** argv) {
  using namespace sepp;
  fs::path exe = argc > 1 ? fs::path(argv[1])
                          : fs::canonical("/proc/self/exe").parent_path().parent_path().parent_path() / "sepp";
  fs::path ws = fs::temp_directory_path() / ("sepp-process-bench-" + std::to_string(getpid()));
  fs::create_directories(ws);
  sandbox::Policy policy = sandbox::DefaultToolPolicy(ws);
  if (auto s = sandbox::CheckEnforceable(policy); !s.ok()) {
    fprintf(stderr, "the sandbox cannot be enforced here: %s\n", s.error().message.c_str());
    return 1;
  }
  tools::ToolWorker worker(policy, ws, exe, false);
  auto registry = tools::MakeBuiltinTools();
  tools::AddProcessTools(*registry);
  tools::ToolContext ctx;
  ctx.cwd = ws;
  ctx.policy = &policy;
  ctx.worker = &worker;
  auto use = [&](const std::string& tool, const Json& args) {
    return tools::RunTool(*registry->Find(tool), args, ctx);
  };
  const int kSleepers = 500;
  auto start = use("bash", {{"command", "for i in $(seq " + std::to_string(kSleepers) +
                                            "); do sleep 1000 & done; wait"},
                            {"run_in_background", true}});
  if (start.is_error) {
    fprintf(stderr, "%s\n", start.text.c_str());
    return 1;
  }
  // Until all of them run.
  for (;;) {
    auto r = use("bash", {{"command", "ls -d /proc/[0-9]* | wc -l"}});
    if (std::atoi(r.text.c_str()) >= kSleepers + 2) break;
  }
  std::vector<double> list_ms, ps_ms;
  size_t listed = 0;
  for (int i = 0; i < 60; ++i) {
    auto t0 = Clock::now();
    auto r = use("process_list", {{"maxResults", 500}});
    auto t1 = Clock::now();
    auto p = use("bash", {{"command", "ps -eo pid,ppid,stat,lstart,etime,time,args >/dev/null"}});
    auto t2 = Clock::now();
    if (r.is_error || p.is_error) {
      fprintf(stderr, "%s\n%s\n", r.text.c_str(), p.text.c_str());
      return 1;
    }
    if (i == 0) listed = r.details.value("processes", 0);
    if (i < 10) continue;  // warm-up
    list_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    ps_ms.push_back(std::chrono::duration<double, std::milli>(t2 - t1).count());
  }
  printf("process_list, %zu processes in the sandbox, 50 calls through the tool worker\n", listed);
  printf("  process_list     p50 %6.2f ms  p95 %6.2f ms\n", Percentile(list_ms, 0.5), Percentile(list_ms, 0.95));
  printf("  bash: ps -eo ... p50 %6.2f ms  p95 %6.2f ms\n", Percentile(ps_ms, 0.5), Percentile(ps_ms, 0.95));
  printf("  ratio (ps / process_list, p50): %.2f\n", Percentile(ps_ms, 0.5) / Percentile(list_ms, 0.5));
  std::error_code ec;
  fs::remove_all(ws, ec);
  return 0;
}
