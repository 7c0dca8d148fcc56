// /proc/<pid>/stat gives ppid, state, CPU ticks and the start in ticks
// since boot; status the name, uids and the thread group (Tgid: a thread of
// pid 1 is pid 1 for a signal); cmdline the argv. A process that ends while
// it is read is left out.
#include "tools/process_tools.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdint>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <sstream>

#include "base/fd.h"
#include "base/strings.h"
#include "tools/args.h"
#include "tools/background_jobs.h"

namespace sepp::tools {
namespace {

constexpr const char* kOutside =
    " works only in the session sandbox, on its own processes; this session has none "
    "(it runs with --sandbox off), and the host's processes are not the model's to see or signal.";

// A /proc file whole, with plain reads (a listing reads three per process:
// no stream objects on that path).
std::string ReadSmall(const std::string& path) {
  std::string out;
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return out;
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

struct Proc {
  int pid = 0, tid = 0, ppid = 0, tgid = 0;
  std::string state, name, command, cwd;
  std::vector<std::string> cmdline;
  std::vector<int64_t> uids;
  int64_t memory_kb = 0;
  double start_s = 0;  // since boot
  double cpu_s = 0;
};

// dir: /proc/<pid> or /proc/<pid>/task/<tid>.
bool ReadProc(const std::string& dir, Proc* p) {
  std::string stat = ReadSmall(dir + "/stat");
  // "pid (comm) S ppid ...": comm may hold spaces and parentheses; the last ')' ends it.
  size_t close = stat.rfind(')');
  if (stat.empty() || close == std::string::npos) return false;
  // The fields after the name, split on spaces; f[0] is field 3 (state).
  std::vector<std::string_view> f;
  std::string_view rest = std::string_view(stat).substr(close + 1);
  for (size_t at = 0; at < rest.size() && f.size() < 22;) {
    while (at < rest.size() && (rest[at] == ' ' || rest[at] == '\n')) ++at;
    size_t end = rest.find_first_of(" \n", at);
    if (end == std::string_view::npos) end = rest.size();
    if (end > at) f.push_back(rest.substr(at, end - at));
    at = end;
  }
  if (f.size() < 20) return false;
  static const double tick = static_cast<double>(sysconf(_SC_CLK_TCK));
  auto number = [](std::string_view v) { return std::strtod(std::string(v).c_str(), nullptr); };
  p->state = std::string(f[0]);
  p->ppid = static_cast<int>(number(f[1]));
  p->cpu_s = (number(f[11]) + number(f[12])) / tick;
  p->start_s = number(f[19]) / tick;
  std::string status = ReadSmall(dir + "/status");
  for (size_t at = 0; at < status.size();) {
    size_t eol = status.find('\n', at);
    if (eol == std::string::npos) eol = status.size();
    std::string_view line = std::string_view(status).substr(at, eol - at);
    at = eol + 1;
    auto value = [&](std::string_view key) -> std::optional<std::string_view> {
      if (line.substr(0, key.size()) != key) return std::nullopt;
      return Trim(line.substr(key.size()));
    };
    if (auto v = value("Name:")) p->name = std::string(*v);
    else if (auto v = value("Tgid:")) p->tgid = std::atoi(std::string(*v).c_str());
    else if (auto v = value("VmRSS:")) p->memory_kb = std::atoll(std::string(*v).c_str());
    else if (auto v = value("Uid:")) {
      const std::string ids(*v);
      const char* c = ids.c_str();
      for (char* end = nullptr;; c = end) {
        long long id = std::strtoll(c, &end, 10);
        if (end == c) break;
        p->uids.push_back(id);
      }
    }
  }
  std::string raw = ReadSmall(dir + "/cmdline");
  for (size_t at = 0; at < raw.size();) {
    size_t end = raw.find('\0', at);
    if (end == std::string::npos) end = raw.size();
    p->cmdline.push_back(SanitizeUtf8(raw.substr(at, end - at)));
    at = end + 1;
  }
  for (const auto& a : p->cmdline) p->command += (p->command.empty() ? "" : " ") + a;
  if (p->command.empty()) p->command = "[" + p->name + "]";
  char link[4096];
  ssize_t n = readlink((dir + "/cwd").c_str(), link, sizeof link);
  if (n > 0) p->cwd = SanitizeUtf8(std::string(link, static_cast<size_t>(n)));
  p->name = SanitizeUtf8(p->name);
  return true;
}

std::vector<int> NumericEntries(const std::string& dir) {
  std::vector<int> out;
  DIR* d = opendir(dir.c_str());
  if (!d) return out;
  while (dirent* e = readdir(d)) {
    const char* s = e->d_name;
    if (!*s || !std::all_of(s, s + std::strlen(s), [](char c) { return c >= '0' && c <= '9'; }))
      continue;
    out.push_back(std::atoi(s));
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

double Uptime() { return std::strtod(ReadSmall("/proc/uptime").c_str(), nullptr); }

int64_t BootTime() {
  std::istringstream in(ReadSmall("/proc/stat"));
  for (std::string line; std::getline(in, line);)
    if (line.rfind("btime ", 0) == 0) return std::atoll(line.c_str() + 6);
  return 0;
}

std::string IsoUtc(int64_t t) {
  std::time_t tt = static_cast<std::time_t>(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The processes (not threads) as a tree under pid 1, one per line:
// "└─ 12 sleep 100". Capped: a fork bomb must not fill the context.
std::string Tree(const std::vector<Proc>& procs, size_t max_lines) {
  std::map<int, std::vector<const Proc*>> children;
  std::map<int, const Proc*> by_pid;
  for (const auto& p : procs) by_pid[p.pid] = &p;
  std::vector<const Proc*> roots;
  for (const auto& p : procs) {
    if (p.pid != p.ppid && by_pid.count(p.ppid)) children[p.ppid].push_back(&p);
    else roots.push_back(&p);
  }
  std::string out;
  size_t lines = 0;
  std::function<void(const Proc*, const std::string&, bool, bool)> walk =
      [&](const Proc* p, const std::string& indent, bool last, bool root) {
        if (lines++ >= max_lines) return;
        std::string cmd = p->command.size() > 100 ? p->command.substr(0, Utf8SafePrefix(p->command, 100)) + "…"
                                                  : p->command;
        out += indent + (root ? "" : (last ? "└─ " : "├─ ")) + std::to_string(p->pid) + " " + cmd + "\n";
        std::string next = root ? "" : indent + (last ? "   " : "│  ");
        auto& kids = children[p->pid];
        for (size_t i = 0; i < kids.size(); ++i) walk(kids[i], next, i + 1 == kids.size(), false);
      };
  for (const Proc* r : roots) walk(r, "", true, true);
  if (lines > max_lines) out += "… " + std::to_string(lines - max_lines) + " more\n";
  return out;
}

class ProcessListTool : public Tool {
 public:
  std::string name() const override { return "process_list"; }
  bool runs_in_worker() const override { return true; }
  std::string description() const override {
    return "List processes inside the session sandbox as structured JSON, optionally filtered by "
           "query: pid, ppid, state, name, command, start time, CPU use, elapsed seconds, the "
           "log of a background process, and the process tree. pid 1 is sepp's tool worker.";
  }
  Json parameters() const override {
    return Json::parse(R"({"type":"object","additionalProperties":false,"properties":{
      "query":{"type":"string","description":"Optional case-insensitive substring filter matched against pid, command, and cmdline."},
      "maxResults":{"type":"number","minimum":1,"maximum":500,"description":"Maximum number of processes to return. Defaults to 100."},
      "includeThreads":{"type":"boolean","description":"Include per-thread task entries when available. Defaults to false."}}})");
  }
  std::string Summary(const Json& args) const override {
    std::string q = StringOr(args, "query");
    return q.empty() ? "process_list" : SummaryLine("process_list", q);
  }

 private:
  ToolResult Run(const Json& args, ToolContext&) override {
    if (auto st = CheckArgsObject(args); !st) return ErrorResult(st.error().message);
    BackgroundJobs* jobs = SessionJobs();
    if (!jobs) return ErrorResult(std::string("process_list") + kOutside);
    auto query = OptionalString(args, "query");
    if (!query) return ErrorResult(query.error().message);
    auto max = OptionalInt(args, "maxResults", 1, 500);
    if (!max) return ErrorResult(max.error().message);
    auto threads = OptionalBool(args, "includeThreads");
    if (!threads) return ErrorResult(threads.error().message);
    std::string q = Lower(query->value_or(""));
    size_t max_results = static_cast<size_t>(max->value_or(100));

    double now = Uptime();
    int64_t boot = BootTime();
    std::vector<Proc> procs;
    for (int pid : NumericEntries("/proc")) {
      Proc p;
      p.pid = pid;
      if (ReadProc("/proc/" + std::to_string(pid), &p)) procs.push_back(std::move(p));
    }
    Json results = Json::array();
    size_t matches = 0;
    auto entry = [&](const Proc& p) {
      double elapsed = std::max(0.0, now - p.start_s);
      Json j = {{"pid", p.pid}};
      if (p.tid) j["tid"] = p.tid;
      j["ppid"] = p.ppid;
      j["state"] = p.state;
      j["name"] = p.name;
      j["command"] = p.command;
      j["cmdline"] = p.cmdline;
      j["cwd"] = p.cwd;
      j["userIds"] = p.uids;
      j["memoryKb"] = p.memory_kb;
      j["start_time"] = IsoUtc(boot + static_cast<int64_t>(p.start_s));
      j["elapsed"] = static_cast<int64_t>(elapsed);
      j["cpu_pct"] = elapsed > 0 ? static_cast<double>(static_cast<int64_t>(p.cpu_s / elapsed * 1000)) / 10 : 0.0;
      if (p.pid == 1) j["role"] = "sepp's tool worker (process_signal refuses it)";
      if (auto job = jobs->Find(p.pid); job && job->running && !p.tid) j["background_log"] = job->log.string();
      return j;
    };
    auto matches_query = [&](const Proc& p) {
      if (q.empty()) return true;
      return std::to_string(p.pid).find(q) != std::string::npos ||
             (p.tid && std::to_string(p.tid).find(q) != std::string::npos) ||
             Lower(p.name).find(q) != std::string::npos || Lower(p.command).find(q) != std::string::npos;
    };
    for (const auto& p : procs) {
      std::vector<Proc> rows = {p};
      if (threads->value_or(false))
        for (int tid : NumericEntries("/proc/" + std::to_string(p.pid) + "/task")) {
          if (tid == p.pid) continue;
          Proc t;
          t.pid = p.pid;
          if (!ReadProc("/proc/" + std::to_string(p.pid) + "/task/" + std::to_string(tid), &t)) continue;
          t.tid = tid;
          t.ppid = p.ppid;
          rows.push_back(std::move(t));
        }
      for (const auto& r : rows) {
        if (!matches_query(r)) continue;
        ++matches;
        if (results.size() < max_results) results.push_back(entry(r));
      }
    }
    Json out = Json::object();
    if (!q.empty()) out["query"] = **query;
    out["includeThreads"] = threads->value_or(false);
    out["maxResults"] = max_results;
    out["totalMatches"] = matches;
    out["truncated"] = matches > results.size();
    out["results"] = std::move(results);
    out["tree"] = Tree(procs, 200);
    ToolResult r;
    r.text = out.dump(2);
    r.details = {{"processes", procs.size()}, {"matches", matches}};
    return r;
  }
};

// sage's four: stop, kill, interrupt, hang up. Nothing that stops a process
// without ending it (STOP would freeze a server with its port held) and no
// user signals whose meaning only the program knows.
const std::map<std::string, int>& Signals() {
  static const std::map<std::string, int> s = {
      {"TERM", SIGTERM}, {"KILL", SIGKILL}, {"INT", SIGINT}, {"HUP", SIGHUP}};
  return s;
}

class ProcessSignalTool : public Tool {
 public:
  std::string name() const override { return "process_signal"; }
  bool runs_in_worker() const override { return true; }
  std::string description() const override {
    return "Send TERM, KILL, INT, or HUP to a process inside the session sandbox (process_list "
           "shows them). PID 1 is refused.";
  }
  Json parameters() const override {
    return Json::parse(R"({"type":"object","additionalProperties":false,"required":["pid"],"properties":{
      "pid":{"type":"number","minimum":2,"description":"Process ID inside the session sandbox. PID 1 is intentionally refused."},
      "signal":{"type":"string","enum":["TERM","KILL","INT","HUP"],"description":"Signal to send. Defaults to TERM."}}})");
  }
  std::string Summary(const Json& args) const override {
    std::string pid = args.is_object() && args.contains("pid") ? args["pid"].dump() : "?";
    return SummaryLine("process_signal", StringOr(args, "signal", "TERM") + " " + pid);
  }

 private:
  static ToolResult NotSent(int64_t pid, const std::string& signal, const std::string& error) {
    ToolResult r;
    r.text = Json{{"pid", pid}, {"signal", signal}, {"sent", false}, {"error", error}}.dump(2);
    r.is_error = true;
    return r;
  }

  ToolResult Run(const Json& args, ToolContext&) override {
    if (auto st = CheckArgsObject(args); !st) return ErrorResult(st.error().message);
    if (!SessionJobs()) return ErrorResult(std::string("process_signal") + kOutside);
    if (!args.contains("pid")) return ErrorResult("Missing argument \"pid\": the process to signal (process_list shows them).");
    auto pid_arg = OptionalInt(args, "pid", INT64_MIN, INT64_MAX);
    if (!pid_arg) return ErrorResult(pid_arg.error().message);
    int64_t pid = **pid_arg;
    auto sig_arg = OptionalString(args, "signal");
    if (!sig_arg) return ErrorResult(sig_arg.error().message);
    std::string signal = sig_arg->value_or("TERM");
    auto it = Signals().find(signal);
    if (it == Signals().end())
      return ErrorResult("Invalid argument \"signal\": \"" + signal + "\" is not one of TERM, KILL, INT, HUP.");
    if (pid == 1)
      return NotSent(pid, signal, "pid 1 is refused: it is sepp's tool worker, and the session sandbox ends with it");
    if (pid < 2 || pid > INT32_MAX)
      return NotSent(pid, signal, "pid " + std::to_string(pid) + " is refused: a pid here is a single process, 2 or more (no process groups, no broadcast)");
    // The pidfd holds this very process: if it ends and its pid is reused
    // after the checks below, the signal fails instead of hitting the new one.
    UniqueFd pidfd(static_cast<int>(syscall(SYS_pidfd_open, static_cast<pid_t>(pid), 0)));
    std::string dir = "/proc/" + std::to_string(pid);
    Proc p;
    bool readable = ReadProc(dir, &p);
    // A thread's id has a /proc entry too (and no pidfd of its own): a
    // signal to it is one to its whole process.
    if (readable && p.tgid != 0 && p.tgid != pid) {
      if (p.tgid == 1)
        return NotSent(pid, signal, "pid " + std::to_string(pid) + " is a thread of pid 1 (sepp's tool worker); it is refused");
      return NotSent(pid, signal, "pid " + std::to_string(pid) + " is a thread of process " + std::to_string(p.tgid) + "; signal the process");
    }
    if (!pidfd.valid() || !readable)
      return NotSent(pid, signal,
                     "process not found in the session sandbox (its pids are those of its own pid "
                     "namespace, which process_list shows; a host pid or another session's names "
                     "nothing here)");
    if (p.tgid == 1) return NotSent(pid, signal, "pid " + std::to_string(pid) + " belongs to sepp's tool worker; it is refused");
    if (syscall(SYS_pidfd_send_signal, pidfd.get(), it->second, nullptr, 0) != 0)
      return NotSent(pid, signal, errno == ESRCH ? "process not found (it ended)" : "cannot signal it: " + ErrnoText(errno));
    ToolResult r;
    r.text = Json{{"pid", pid}, {"signal", signal}, {"sent", true}, {"name", p.name}, {"command", p.command}}.dump(2);
    return r;
  }
};

}  // namespace

void AddProcessTools(ToolRegistry& registry) {
  registry.Add(std::make_unique<ProcessListTool>());
  registry.Add(std::make_unique<ProcessSignalTool>());
}

}  // namespace sepp::tools
