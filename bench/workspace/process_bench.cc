// process_list with 500 sleeping processes in a session sandbox (issue 15's
// target: <= 20 ms, sage's bar), each call end to end through the tool
// worker as the agent makes it, side by side with two ways to get the same
// list from a bash call in the same sandbox: sage's (a Node script reading
// /proc, bench/workspace/sage_process_list.mjs, run by `bash -lc` as sage
// runs its own) and `ps -eo pid,ppid,stat,lstart,etime,time,args`. The
// three are interleaved, 10 warm-up calls and then RUNS (default 50) each.
//
// Per call: wall time (steady clock) and the CPU of everything the call
// ran — this process, the tool worker, the bash and whatever it started,
// ended processes included — from a cpuacct cgroup (v1) or a cgroup v2
// folder this process moves itself into for the run (root only). Without
// one, CPU is "n/a": no other counter sees the CPU of processes that ended.
// Prints medians and p95 of both.
//
// Run by hand (not by CI): bench/workspace/process_list.sh, or
// build/bench/workspace/bench_process [path/to/sepp] [path/to/sage_process_list.mjs]
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
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
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(p * (v.size() - 1) + 0.5)];
}

std::string Slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool WriteTo(const fs::path& p, const std::string& text) {
  std::ofstream out(p);
  out << text;
  out.flush();
  return static_cast<bool>(out);
}

// The CPU of this process and all it starts, in ns, from a cgroup of its own.
class TreeCpu {
 public:
  TreeCpu() {
    std::string name = "sepp-bench-process-" + std::to_string(getpid());
    for (const char* v1 : {"/sys/fs/cgroup/cpuacct", "/sys/fs/cgroup/cpu,cpuacct"}) {
      fs::path dir = fs::path(v1) / name;
      if (fs::exists(fs::path(v1) / "cpuacct.usage") && mkdir(dir.c_str(), 0755) == 0) {
        if (Join(v1, dir, dir / "cpuacct.usage")) return;
      }
    }
    for (const char* v2 : {"/sys/fs/cgroup/unified", "/sys/fs/cgroup"}) {
      fs::path dir = fs::path(v2) / name;
      if (fs::exists(fs::path(v2) / "cgroup.controllers") && mkdir(dir.c_str(), 0755) == 0) {
        if (Join(v2, dir, dir / "cpu.stat")) return;
      }
    }
  }
  ~TreeCpu() {
    if (dir_.empty()) return;
    WriteTo(parent_ / "cgroup.procs", std::to_string(getpid()));
    rmdir(dir_.c_str());  // fails while the sandbox's processes are still dying: left empty
  }
  bool ok() const { return !dir_.empty(); }
  const fs::path& where() const { return dir_; }
  int64_t Ns() const {
    std::string s = Slurp(usage_);
    if (usage_.filename() == "cpuacct.usage") return std::atoll(s.c_str());
    size_t at = s.find("usage_usec ");
    return at == std::string::npos ? 0 : std::atoll(s.c_str() + at + 11) * 1000;
  }

 private:
  bool Join(const fs::path& parent, const fs::path& dir, const fs::path& usage) {
    if (!WriteTo(dir / "cgroup.procs", std::to_string(getpid()))) {
      rmdir(dir.c_str());
      return false;
    }
    parent_ = parent, dir_ = dir, usage_ = usage;
    return true;
  }
  fs::path parent_, dir_, usage_;
};

struct Series {
  std::string label;
  std::vector<double> wall_ms, cpu_ms, own_ms;
};

// This process's CPU (sepp's side of a call: the request, reading the
// result), ns.
int64_t OwnNs() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace sepp;
  fs::path here = fs::canonical("/proc/self/exe").parent_path();
  fs::path exe = argc > 1 ? fs::path(argv[1]) : here.parent_path().parent_path() / "sepp";
  fs::path sage_script = argc > 2 ? fs::path(argv[2])
                                  : here.parent_path().parent_path().parent_path() / "bench/workspace/sage_process_list.mjs";
  const int runs = std::getenv("RUNS") ? std::max(1, std::atoi(std::getenv("RUNS"))) : 50;
  TreeCpu cpu;  // before the worker starts: it and its sandbox inherit the cgroup
  fs::path ws = fs::temp_directory_path() / ("sepp-process-bench-" + std::to_string(getpid()));
  fs::create_directories(ws);
  struct RemoveAtExit {
    fs::path dir;
    ~RemoveAtExit() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } remove_ws{ws};  // also when a step fails
  bool with_node = system("command -v node >/dev/null 2>&1") == 0 && fs::exists(sage_script);
  if (with_node) fs::copy_file(sage_script, ws / "sage_process_list.mjs");
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
  // Until all of them run (each poll is a call the worker answers: no sleep).
  for (;;) {
    auto r = use("bash", {{"command", "ls -d /proc/[0-9]* | wc -l"}});
    if (std::atoi(r.text.c_str()) >= kSleepers + 2) break;
  }
  struct Contender {
    Series s;
    std::string tool;
    Json args;
  };
  std::vector<Contender> all = {
      {{"process_list (sepp)", {}, {}, {}}, "process_list", {{"maxResults", 500}}},
      {{"sage's way: bash -lc node, /proc", {}, {}, {}}, "bash",
       {{"command", "bash -lc 'node sage_process_list.mjs 500' >/dev/null"}}},
      {{"bash: ps -eo ...", {}, {}, {}}, "bash", {{"command", "ps -eo pid,ppid,stat,lstart,etime,time,args >/dev/null"}}},
  };
  if (!with_node) all.erase(all.begin() + 1);
  size_t listed = 0;
  for (int i = 0; i < 10 + runs; ++i) {
    for (auto& c : all) {
      int64_t c0 = cpu.ok() ? cpu.Ns() : 0;
      int64_t o0 = OwnNs();
      auto t0 = Clock::now();
      auto r = use(c.tool, c.args);
      auto t1 = Clock::now();
      int64_t o1 = OwnNs();
      int64_t c1 = cpu.ok() ? cpu.Ns() : 0;
      if (r.is_error) {
        fprintf(stderr, "%s: %s\n", c.s.label.c_str(), r.text.c_str());
        return 1;
      }
      if (i == 0 && c.tool == "process_list") listed = r.details.value("processes", 0);
      if (i < 10) continue;  // warm-up
      c.s.wall_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
      c.s.cpu_ms.push_back(static_cast<double>(c1 - c0) / 1e6);
      c.s.own_ms.push_back(static_cast<double>(o1 - o0) / 1e6);
    }
  }
  printf("%zu processes in the sandbox; %d calls of each, interleaved, after 10 warm-up calls\n", listed, runs);
  printf("CPU: %s\n", cpu.ok() ? ("every process of the run, from the cgroup " + cpu.where().string()).c_str()
                               : "n/a (no cgroup could be made: run as root)");
  printf("%-34s %12s %12s %12s %14s\n", "", "wall p50", "wall p95", "CPU p50", "sepp side p50");
  for (const auto& c : all) {
    char cpu_text[32] = "n/a";
    if (cpu.ok()) snprintf(cpu_text, sizeof cpu_text, "%.2f ms", Percentile(c.s.cpu_ms, 0.5));
    printf("%-34s %9.2f ms %9.2f ms %12s %11.2f ms\n", c.s.label.c_str(), Percentile(c.s.wall_ms, 0.5),
           Percentile(c.s.wall_ms, 0.95), cpu_text, Percentile(c.s.own_ms, 0.5));
  }
  printf("(CPU: the whole tree; sepp side: this process alone, the rest is the worker and what it ran)\n");
  printf("target: process_list <= 20 ms (wall)\n");
  printf("load average: %s", Slurp("/proc/loadavg").c_str());
  return 0;
}
