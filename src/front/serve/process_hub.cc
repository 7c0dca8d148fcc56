#include "front/serve/process_hub.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <optional>

#include "base/base64.h"
#include "base/clock.h"
#include "base/strings.h"
#include "base/terminal_text.h"
#include "front/serve/fs_api.h"
#include "front/serve/problem.h"
#include "front/serve/process_proc.h"
#include "sandbox/held_child.h"

namespace sepp::front::serve {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

Status SetWindowSize(int master, int64_t cols, int64_t rows) {
  struct winsize ws = {};
  ws.ws_col = static_cast<unsigned short>(cols);
  ws.ws_row = static_cast<unsigned short>(rows);
  if (ioctl(master, TIOCSWINSZ, &ws) != 0) return Error::Make("cannot resize the terminal: " + ErrnoText(errno));
  return Ok();
}

Status WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Error::Make(ErrnoText(errno), "eof");
    data.remove_prefix(static_cast<size_t>(n));
  }
  return Ok();
}

void NotifyWatchers(ProcessHub::Proc& p) {
  p.cv.notify_all();
  uint64_t one = 1;
  for (int fd : p.watchers) (void)!write(fd, &one, sizeof one);
}

namespace {

void SendJson(net::ResponseWriter& w, const net::Headers& cors, int status, const Json& body) {
  net::Headers h = {{"Content-Type", "application/json"}};
  h.insert(h.end(), cors.begin(), cors.end());
  w.Send(status, h, DumpJson(body));
}

std::string Shown(std::string_view s) { return VisibleControls(SanitizeUtf8(s.substr(0, 200))); }

int ExitCode(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

Json Info(ProcessHub::Proc& p) {  // p.mu held
  Json j = {{"id", p.id},          {"command", p.command}, {"args", p.args},
            {"tty", p.tty},        {"interactive", p.interactive},
            {"owner", "user"},     {"status", p.running ? "running" : "exited"},
            {"pid", p.pid},        {"createdAtMs", p.created_ms}};
  if (p.exit_code) j["exitCode"] = *p.exit_code;
  else j["exitCode"] = nullptr;
  if (p.exited_ms) j["exitedAtMs"] = p.exited_ms;
  return j;
}

Json EntryJson(const ProcessHub::Proc::Entry& e) {
  return {{"sequence", e.sequence},
          {"stream", e.pty ? "pty" : e.err ? "stderr" : "stdout"},
          {"timestampMs", e.time_ms},
          {"data", Base64Encode(e.data)},
          {"encoding", "base64"}};
}

// The command of a run or start request: argv, cwd, env; or the problem.
struct Spec {
  std::string command;
  std::vector<std::string> args;
  std::string cwd;
  std::map<std::string, std::string> env;
};
std::optional<std::string> ParseSpec(const Json& j, const std::vector<fs::path>& roots, Spec* out,
                                     int* status, const char** kind) {
  *status = 400;
  *kind = problem::kInvalidRequest;
  if (!j.is_object() || !j.contains("command") || !j["command"].is_string() ||
      j["command"].get<std::string>().empty())
    return "the body needs \"command\": the program to run (\"args\": [...] for its arguments)";
  out->command = j["command"].get<std::string>();
  if (auto it = j.find("args"); it != j.end() && !it->is_null()) {
    if (!it->is_array()) return "args must be a list of strings";
    for (const auto& a : *it) {
      if (!a.is_string()) return "args must be a list of strings";
      out->args.push_back(a.get<std::string>());
    }
  }
  for (const auto& s : out->args)
    if (s.find('\0') != std::string::npos) return "an argument has a NUL byte";
  if (out->command.find('\0') != std::string::npos) return "the command has a NUL byte";
  if (auto it = j.find("env"); it != j.end() && !it->is_null()) {
    if (!it->is_object()) return "env must be an object of strings";
    for (const auto& [k, v] : it->items()) {
      if (!v.is_string()) return "env." + k + " must be a string";
      if (k.empty() || k.find('=') != std::string::npos || k.find('\0') != std::string::npos ||
          v.get<std::string>().find('\0') != std::string::npos)
        return "env has a malformed name or value: \"" + Shown(k) + "\"";
      out->env[k] = v.get<std::string>();
    }
  }
  std::string cwd;
  if (auto it = j.find("cwd"); it != j.end() && !it->is_null()) {
    if (!it->is_string()) return "cwd must be a string";
    cwd = it->get<std::string>();
  }
  auto resolved = ResolveFsPath(roots, cwd);
  if (!resolved.ok()) {
    if (resolved.error().kind == "outside") *status = 403, *kind = problem::kPermissionDenied;
    return resolved.error().message;
  }
  out->cwd = *resolved;
  return std::nullopt;
}

sandbox::HeldSpec HeldOf(const Spec& s) {
  sandbox::HeldSpec h;
  h.argv.push_back(s.command);
  h.argv.insert(h.argv.end(), s.args.begin(), s.args.end());
  h.cwd = s.cwd;
  return h;
}

void StartProblem(net::ResponseWriter& w, const net::Headers& cors, const std::string& kind_of_error,
                  const std::string& message) {
  if (kind_of_error == "not_found" || kind_of_error == "usage")
    return SendProblem(w, cors, 400, problem::kInvalidRequest, message);
  SendProblem(w, cors, 503, problem::kInternal, "the process cannot be started: " + message);
}

// Reads what is ready on fd into out (at most room bytes kept); false at EOF.
bool Drain(int fd, std::string* out, int64_t room, bool* truncated) {
  char buf[65536];
  ssize_t n = read(fd, buf, sizeof buf);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return true;
  if (n <= 0) return false;
  int64_t keep = std::min<int64_t>(n, std::max<int64_t>(0, room - static_cast<int64_t>(out->size())));
  out->append(buf, static_cast<size_t>(keep));
  if (keep < n) *truncated = true;
  return true;
}

Result<int64_t> Number(const Json& j, const char* key, int64_t lo, int64_t hi, int64_t fallback) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  if (!it->is_number_integer() || it->get<int64_t>() < lo || it->get<int64_t>() > hi)
    return Error::Make(std::string(key) + " must be an integer from " + std::to_string(lo) + " to " +
                       std::to_string(hi));
  return it->get<int64_t>();
}

Json LimitsJson(const ProcessLimits& l) {
  return {{"maxConcurrentProcesses", l.max_concurrent}, {"defaultRunTimeoutMs", l.default_run_timeout_ms},
          {"maxRunTimeoutMs", l.max_run_timeout_ms},    {"maxOutputBytes", l.max_output_bytes},
          {"maxLogBytesPerProcess", l.max_log_bytes},   {"maxInputBytesPerRequest", l.max_input_bytes}};
}


// A new pty: its master (ours) and its slave (the process's terminal), both
// close-on-exec and O_NOCTTY (it never becomes the server's terminal), 80x24.
Result<std::pair<UniqueFd, UniqueFd>> OpenPty() {
  UniqueFd master(posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC));
  if (!master.valid()) return Error::Make("cannot open a pty: " + ErrnoText(errno));
  char name[128];
  if (grantpt(master.get()) != 0 || unlockpt(master.get()) != 0 || ptsname_r(master.get(), name, sizeof name) != 0)
    return Error::Make("cannot set up a pty: " + ErrnoText(errno));
  UniqueFd slave(open(name, O_RDWR | O_NOCTTY | O_CLOEXEC));
  if (!slave.valid()) return Error::Make(std::string("cannot open ") + name + ": " + ErrnoText(errno));
  if (Status st = SetWindowSize(master.get(), 80, 24); !st.ok()) return st.error();
  return std::pair{std::move(master), std::move(slave)};
}


// The thread of a started process: starts it, logs its output, reaps it.
// `slave`: a tty process's terminal, closed here once the child holds it
// (so the master reads EIO when the last process on it is gone).
void Serve(ProcessHub::Proc& p, sandbox::HeldSpec spec, UniqueFd slave, sandbox::Policy policy,
           int64_t max_log) {
  spec.terminal = slave.valid() ? slave.get() : -1;
  auto child = sandbox::HeldChild::Start(spec, policy);
  slave.Reset();
  std::unique_lock<std::mutex> lock(p.mu);
  p.starting = false;
  if (!child.ok()) {
    p.start_error = child.error().message;
    p.start_error_kind = child.error().kind;
    NotifyWatchers(p);
    return;
  }
  p.child = std::move(*child);
  p.pid = p.child->pid();
  p.running = true;
  if (!p.interactive) p.child->CloseStdin();
  sandbox::HeldChild& c = *p.child;
  NotifyWatchers(p);
  lock.unlock();
  // A tty process has one output, its terminal (read as "stdout" below and
  // logged as the pty stream); EIO once nothing holds the slave any more.
  const int out_fd = p.tty ? p.master.get() : c.stdout_fd();
  bool out_open = true, err_open = !p.tty;
  while (out_open || err_open) {
    struct pollfd fds[2] = {{out_open ? out_fd : -1, POLLIN, 0},
                            {err_open ? c.stderr_fd() : -1, POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      std::string chunk;
      bool unused = false;
      bool open = Drain(fds[i].fd, &chunk, 1 << 16, &unused);
      if (!open) (i == 0 ? out_open : err_open) = false;
      if (chunk.empty()) continue;
      std::lock_guard<std::mutex> g(p.mu);
      p.log_bytes += static_cast<int64_t>(chunk.size());
      p.log.push_back({p.next_seq++, i == 1, p.tty, NowMs(), std::move(chunk)});
      while (p.log_bytes > max_log && p.log.size() > 1) {
        p.log_bytes -= static_cast<int64_t>(p.log.front().data.size());
        p.log.pop_front();
      }
      NotifyWatchers(p);
    }
  }
  int status = c.Wait();
  lock.lock();
  p.running = false;
  p.exit_code = ExitCode(status);
  p.exited_ms = NowMs();
  NotifyWatchers(p);
}

}  // namespace

ProcessHub::ProcessHub(std::vector<fs::path> roots, PolicyFor policy_for, std::chrono::milliseconds heartbeat)
    : roots_(std::move(roots)), policy_for_(std::move(policy_for)), heartbeat_(heartbeat) {}

ProcessHub::~ProcessHub() {
  std::map<std::string, std::shared_ptr<Proc>> procs;
  {
    std::lock_guard<std::mutex> lock(mu_);
    procs.swap(procs_);
  }
  for (auto& [id, p] : procs) {
    {
      std::unique_lock<std::mutex> lock(p->mu);
      p->cv.wait(lock, [&] { return !p->starting; });
      if (p->child) p->child->Kill();
    }
    if (p->thread.joinable()) p->thread.join();
  }
}

std::shared_ptr<ProcessHub::Proc> ProcessHub::Find(const std::string& id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = procs_.find(id);
  return it == procs_.end() ? nullptr : it->second;
}

void ProcessHub::Handle(const net::HttpServerRequest& req, net::ResponseWriter& w, const net::Headers& cors,
                        const std::vector<std::string>& seg, const Query& query) {
  const std::string& m = req.method;
  auto not_allowed = [&](const char* allow) {
    net::Headers h = cors;
    h.emplace_back("Allow", allow);
    SendProblem(w, h, 405, problem::kMethodNotAllowed, std::string("this route takes ") + allow);
  };
  if (seg.size() == 2) {
    if (m == "GET") {
      Json list = Json::array();
      std::string owner = query.count("owner") ? query.at("owner") : "";
      std::vector<std::shared_ptr<Proc>> procs;
      {
        std::lock_guard<std::mutex> lock(mu_);
        for (auto& [id, p] : procs_) procs.push_back(p);
      }
      if (owner.empty() || owner == "user")
        for (auto& p : procs) {
          std::lock_guard<std::mutex> lock(p->mu);
          if (!p->starting) list.push_back(Info(*p));
        }
      return SendJson(w, cors, 200, {{"processes", list}});
    }
    if (m == "POST") return Start(req, w, cors);
    return not_allowed("GET, POST");
  }
  if (seg.size() == 3 && seg[2] == "config") {
    if (m == "GET") {
      std::lock_guard<std::mutex> lock(mu_);
      return SendJson(w, cors, 200, LimitsJson(limits_));
    }
    if (m != "POST") return not_allowed("GET, POST");
    auto body = ParseJson(req.body);
    if (!body.ok() || !body->is_object())
      return SendProblem(w, cors, 400, problem::kInvalidRequest, "POST a ProcessConfig object");
    std::lock_guard<std::mutex> lock(mu_);
    ProcessLimits l = limits_;
    struct Field {
      const char* key;
      int64_t* value;
      int64_t lo, hi;
    };
    for (const Field& f : {Field{"maxConcurrentProcesses", &l.max_concurrent, 1, 1024},
                           Field{"defaultRunTimeoutMs", &l.default_run_timeout_ms, 1, 3600000},
                           Field{"maxRunTimeoutMs", &l.max_run_timeout_ms, 1, 3600000},
                           Field{"maxOutputBytes", &l.max_output_bytes, 1, 64 << 20},
                           Field{"maxLogBytesPerProcess", &l.max_log_bytes, 1024, 256 << 20},
                           Field{"maxInputBytesPerRequest", &l.max_input_bytes, 1, 16 << 20}}) {
      auto v = Number(*body, f.key, f.lo, f.hi, *f.value);
      if (!v.ok()) return SendProblem(w, cors, 400, problem::kInvalidRequest, v.error().message);
      *f.value = *v;
    }
    if (l.default_run_timeout_ms > l.max_run_timeout_ms)
      return SendProblem(w, cors, 400, problem::kInvalidRequest, "defaultRunTimeoutMs is above maxRunTimeoutMs");
    limits_ = l;
    return SendJson(w, cors, 200, LimitsJson(limits_));
  }
  if (seg.size() == 3 && seg[2] == "run") {
    if (m != "POST") return not_allowed("POST");
    return Run(req, w, cors);
  }
  const std::string& id = seg[2];
  if (!IsValidId(id))
    return SendProblem(w, cors, 400, problem::kInvalidRequest, "a process id is 1-128 of A-Z a-z 0-9 . _ : -");
  auto p = Find(id);
  if (!p) return SendProblem(w, cors, 404, problem::kNotFound, "no process \"" + id + "\"");
  // {id}/input ... or {id}/terminal/resize|ws
  const std::string sub = seg.size() == 4 || (seg.size() == 5 && seg[3] == "terminal") ? seg[3] : "";
  if (seg.size() == 3) {
    if (m == "GET") {
      std::lock_guard<std::mutex> lock(p->mu);
      return SendJson(w, cors, 200, Info(*p));
    }
    if (m != "DELETE") return not_allowed("GET, DELETE");
    {
      std::lock_guard<std::mutex> lock(mu_);
      procs_.erase(id);
    }
    {
      std::lock_guard<std::mutex> lock(p->mu);
      if (p->child) p->child->Kill();
    }
    if (p->thread.joinable()) p->thread.join();  // the kill ends its output at once
    return (void)w.Send(204, cors, "");
  }
  if (sub == "input") {
    if (m != "POST") return not_allowed("POST");
    auto body = ParseJson(req.body);
    if (!body.ok() || !body->is_object() || !body->contains("data") || !(*body)["data"].is_string())
      return SendProblem(w, cors, 400, problem::kInvalidRequest,
                         "POST {\"data\": base64 bytes, \"encoding\"?: \"base64\"|\"utf8\"}");
    std::string encoding = body->value("encoding", "base64");
    std::string data = (*body)["data"].get<std::string>();
    if (encoding == "base64") {
      auto raw = Base64Decode(data);
      if (!raw) return SendProblem(w, cors, 400, problem::kInvalidRequest, "data is not valid base64 (send \"encoding\": \"utf8\" for text)");
      data = std::move(*raw);
    } else if (encoding != "utf8" && encoding != "text") {
      return SendProblem(w, cors, 400, problem::kInvalidRequest, "encoding must be \"base64\" or \"utf8\"");
    }
    int64_t max_input;
    {
      std::lock_guard<std::mutex> lock(mu_);
      max_input = limits_.max_input_bytes;
    }
    if (static_cast<int64_t>(data.size()) > max_input)
      return SendProblem(w, cors, 413, problem::kPayloadTooLarge,
                         "the input has " + std::to_string(data.size()) + " bytes; the limit is " + std::to_string(max_input));
    sandbox::HeldChild* child;
    {
      std::lock_guard<std::mutex> lock(p->mu);
      if (!p->interactive && !p->tty)
        return SendProblem(w, cors, 409, problem::kConflict, "the process was not started with \"interactive\": true; its input is closed");
      if (!p->running) return SendProblem(w, cors, 409, problem::kConflict, "the process has exited");
      child = p->child.get();  // lives as long as p
    }
    std::lock_guard<std::mutex> in(p->input_mu);
    // A terminal's input is typed: the pty echoes it and its line
    // discipline reads ^C, ^D and the rest.
    Status st = p->tty ? WriteAll(p->master.get(), data) : child->WriteStdin(data);
    if (!st.ok())
      return SendProblem(w, cors, 409, problem::kConflict, "the process no longer reads its input: " + st.error().message);
    return SendJson(w, cors, 200, {{"bytesWritten", static_cast<int64_t>(data.size())}});
  }
  if (sub == "logs") {
    if (m != "GET") return not_allowed("GET");
    bool sse = false;
    for (const auto& part : Split(req.Header("Accept"), ','))
      if (ToLower(Trim(part.substr(0, part.find(';')))) == "text/event-stream") sse = true;
    return Logs(*p, w, cors, query, sse);
  }
  if (sub == "stop" || sub == "kill") {
    if (m != "POST") return not_allowed("POST");
    int64_t wait_ms = sub == "stop" ? 5000 : 2000;
    if (auto it = query.find("waitMs"); it != query.end()) {
      auto n = ParseCount(it->second, "waitMs");
      if (!n.ok() || *n > 60000)
        return SendProblem(w, cors, 400, problem::kInvalidRequest, "waitMs must be a number from 0 to 60000");
      wait_ms = *n;
    }
    std::unique_lock<std::mutex> lock(p->mu);
    if (p->running) {
      if (sub == "kill") p->child->Kill();
      else if (p->child->pidfd() >= 0) syscall(SYS_pidfd_send_signal, p->child->pidfd(), SIGTERM, nullptr, 0);
      else p->child->Kill();
      bool exited = p->cv.wait_for(lock, std::chrono::milliseconds(wait_ms), [&] { return !p->running; });
      // pid 1 of its namespace, a process that does not handle SIGTERM
      // ignores it: stop ends it for good once waitMs is over.
      if (!exited && sub == "stop") {
        p->child->Kill();
        p->cv.wait_for(lock, std::chrono::seconds(2), [&] { return !p->running; });
      }
    }
    return SendJson(w, cors, 200, Info(*p));
  }
  if (sub == "terminal" && seg.size() == 5 && seg[4] == "resize") {
    if (m != "POST") return not_allowed("POST");
    return Resize(*p, req, w, cors);
  }
  if (sub == "terminal" && seg.size() == 5 && seg[4] == "ws") {
    if (m != "GET") return not_allowed("GET");
    return Terminal(*p, req, w, cors);
  }
  SendProblem(w, cors, 404, problem::kNotFound, "no route " + Shown(req.Path()));
}

void ProcessHub::Resize(Proc& p, const net::HttpServerRequest& req, net::ResponseWriter& w,
                        const net::Headers& cors) {
  auto body = ParseJson(req.body);
  if (!body.ok() || !body->is_object())
    return SendProblem(w, cors, 400, problem::kInvalidRequest, "POST {\"cols\": N, \"rows\": N}");
  auto cols = Number(*body, "cols", 1, 65535, -1);
  auto rows = Number(*body, "rows", 1, 65535, -1);
  if (!cols.ok() || !rows.ok() || *cols < 0 || *rows < 0)
    return SendProblem(w, cors, 400, problem::kInvalidRequest,
                       "POST {\"cols\": N, \"rows\": N}, each an integer from 1 to 65535");
  std::lock_guard<std::mutex> lock(p.mu);
  if (!p.tty)
    return SendProblem(w, cors, 409, problem::kConflict, "the process has no terminal (start it with \"tty\": true)");
  if (!p.running) return SendProblem(w, cors, 409, problem::kConflict, "the process has exited");
  // The kernel sends SIGWINCH to the terminal's foreground process group.
  if (Status st = SetWindowSize(p.master.get(), *cols, *rows); !st.ok())
    return SendProblem(w, cors, 500, problem::kInternal, st.error().message);
  SendJson(w, cors, 200, {{"cols", *cols}, {"rows", *rows}});
}

void ProcessHub::Start(const net::HttpServerRequest& req, net::ResponseWriter& w, const net::Headers& cors) {
  auto body = ParseJson(req.body);
  if (!body.ok()) return SendProblem(w, cors, 400, problem::kInvalidRequest, "the body is not JSON: " + body.error().message);
  Spec spec;
  int status;
  const char* kind;
  if (auto err = ParseSpec(*body, roots_, &spec, &status, &kind)) return SendProblem(w, cors, status, kind, *err);
  sandbox::Policy policy = policy_for_(spec.cwd);
  for (const auto& [k, v] : spec.env) policy.env_set[k] = v;
  auto p = std::make_shared<Proc>();
  int64_t max_log;
  {
    std::lock_guard<std::mutex> lock(mu_);
    int64_t running = running_runs_;
    for (auto& [id, q] : procs_) {
      std::lock_guard<std::mutex> g(q->mu);
      running += q->running || q->starting;
    }
    if (running >= limits_.max_concurrent)
      return SendProblem(w, cors, 409, problem::kConflict,
                         std::to_string(running) + " processes run already (maxConcurrentProcesses)");
    p->id = "proc_" + std::to_string(next_id_++);
    max_log = limits_.max_log_bytes;
    procs_[p->id] = p;
  }
  p->command = spec.command;
  p->args = spec.args;
  p->interactive = body->value("interactive", false);
  p->tty = body->value("tty", false);
  p->created_ms = NowMs();
  UniqueFd slave;
  if (p->tty) {
    auto pty = OpenPty();
    if (!pty.ok()) {
      std::lock_guard<std::mutex> g(mu_);
      procs_.erase(p->id);
      return SendProblem(w, cors, 503, problem::kInternal, "the process cannot be started: " + pty.error().message);
    }
    p->master = std::move(pty->first);
    slave = std::move(pty->second);
    // What a terminal program looks for; the request's env may say otherwise.
    if (!spec.env.count("TERM")) policy.env_set["TERM"] = "xterm-256color";
  }
  Proc& ref = *p;
  p->thread = std::thread([&ref, held = HeldOf(spec), slave = std::move(slave), policy, max_log]() mutable {
    Serve(ref, held, std::move(slave), policy, max_log);
  });
  std::unique_lock<std::mutex> lock(p->mu);
  p->cv.wait(lock, [&] { return !p->starting; });
  if (!p->child) {
    std::string message = p->start_error, kind_of = p->start_error_kind;
    lock.unlock();
    p->thread.join();
    std::lock_guard<std::mutex> g(mu_);
    procs_.erase(p->id);
    return StartProblem(w, cors, kind_of, message);
  }
  SendJson(w, cors, 200, Info(*p));
}

void ProcessHub::Run(const net::HttpServerRequest& req, net::ResponseWriter& w, const net::Headers& cors) {
  auto body = ParseJson(req.body);
  if (!body.ok()) return SendProblem(w, cors, 400, problem::kInvalidRequest, "the body is not JSON: " + body.error().message);
  Spec spec;
  int status;
  const char* kind;
  if (auto err = ParseSpec(*body, roots_, &spec, &status, &kind)) return SendProblem(w, cors, status, kind, *err);
  ProcessLimits l;
  {
    std::lock_guard<std::mutex> lock(mu_);
    l = limits_;
  }
  auto timeout = Number(*body, "timeoutMs", 1, l.max_run_timeout_ms, l.default_run_timeout_ms);
  if (!timeout.ok()) return SendProblem(w, cors, 400, problem::kInvalidRequest, timeout.error().message);
  auto max_out = Number(*body, "maxOutputBytes", 0, l.max_output_bytes, l.max_output_bytes);
  if (!max_out.ok()) return SendProblem(w, cors, 400, problem::kInvalidRequest, max_out.error().message);
  sandbox::Policy policy = policy_for_(spec.cwd);
  for (const auto& [k, v] : spec.env) policy.env_set[k] = v;
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++running_runs_;
  }
  struct Done {
    ProcessHub* hub;
    ~Done() {
      std::lock_guard<std::mutex> lock(hub->mu_);
      --hub->running_runs_;
    }
  } done{this};
  // Started on this thread, which waits for it: it dies with the thread at the latest.
  auto start = Clock::now();
  auto child = sandbox::HeldChild::Start(HeldOf(spec), policy);
  if (!child.ok()) return StartProblem(w, cors, child.error().kind, child.error().message);
  sandbox::HeldChild& c = **child;
  c.CloseStdin();
  std::string out, err;
  bool out_trunc = false, err_trunc = false, timed_out = false, out_open = true, err_open = true;
  auto deadline = start + std::chrono::milliseconds(*timeout);
  while (out_open || err_open) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0 || w.client_gone()) {
      timed_out = left <= 0;
      c.Kill();
      break;
    }
    struct pollfd fds[2] = {{out_open ? c.stdout_fd() : -1, POLLIN, 0}, {err_open ? c.stderr_fd() : -1, POLLIN, 0}};
    if (poll(fds, 2, static_cast<int>(std::min<int64_t>(left, 200))) < 0 && errno != EINTR) break;
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) out_open = Drain(c.stdout_fd(), &out, *max_out, &out_trunc);
    if (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) err_open = Drain(c.stderr_fd(), &err, *max_out, &err_trunc);
  }
  int wait_status = c.Wait();
  int64_t duration = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
  SendJson(w, cors, 200,
           {{"exitCode", timed_out ? Json(nullptr) : Json(ExitCode(wait_status))},
            {"timedOut", timed_out},
            {"stdout", SanitizeUtf8(out)},
            {"stderr", SanitizeUtf8(err)},
            {"stdoutTruncated", out_trunc},
            {"stderrTruncated", err_trunc},
            {"durationMs", duration}});
}

void ProcessHub::Logs(Proc& p, net::ResponseWriter& w, const net::Headers& cors, const Query& query,
                      bool accepts_sse) {
  std::string stream = query.count("stream") ? query.at("stream") : "combined";
  if (stream != "stdout" && stream != "stderr" && stream != "combined" && stream != "pty")
    return SendProblem(w, cors, 400, problem::kInvalidRequest, "stream must be stdout, stderr, combined or pty");
  int64_t since = 0, tail = -1;
  if (auto it = query.find("since"); it != query.end()) {
    auto n = ParseCount(it->second, "since");
    if (!n.ok()) return SendProblem(w, cors, 400, problem::kInvalidRequest, n.error().message);
    since = *n;
  }
  if (auto it = query.find("tail"); it != query.end()) {
    auto n = ParseCount(it->second, "tail");
    if (!n.ok()) return SendProblem(w, cors, 400, problem::kInvalidRequest, n.error().message);
    tail = *n;
  }
  auto follow = QueryBool(query, "follow", false);
  if (!follow.ok()) return SendProblem(w, cors, 400, problem::kInvalidRequest, follow.error().message);
  auto wanted = [&](const Proc::Entry& e) {
    if (e.sequence <= since) return false;
    if (stream == "combined") return true;
    if (stream == "pty") return e.pty;
    return !e.pty && e.err == (stream == "stderr");
  };
  std::vector<Json> entries;
  std::unique_lock<std::mutex> lock(p.mu);
  for (const auto& e : p.log)
    if (wanted(e)) entries.push_back(EntryJson(e));
  if (tail >= 0 && entries.size() > static_cast<size_t>(tail))
    entries.erase(entries.begin(), entries.end() - tail);
  int64_t last = p.next_seq - 1;
  if (!*follow) {
    lock.unlock();
    return SendJson(w, cors, 200, {{"processId", p.id}, {"stream", stream}, {"entries", entries}});
  }
  if (!accepts_sse)
    return SendProblem(w, cors, 406, problem::kNotAcceptable, "follow=true is an event stream: send Accept: text/event-stream");
  lock.unlock();
  net::Headers h = {{"Content-Type", "text/event-stream"}, {"Cache-Control", "no-cache"}};
  h.insert(h.end(), cors.begin(), cors.end());
  if (!w.Begin(200, h)) return;
  auto frame = [](const Json& e) {
    return "event: log\nid: " + std::to_string(e["sequence"].get<int64_t>()) + "\ndata: " + DumpJson(e) + "\n\n";
  };
  for (const auto& e : entries)
    if (!w.Write(frame(e))) return;
  // Then live, to the process's end (its last output included).
  auto quiet_since = Clock::now();
  lock.lock();
  for (;;) {
    std::vector<Json> fresh;
    for (const auto& e : p.log)
      if (e.sequence > last && wanted(e)) fresh.push_back(EntryJson(e));
    if (!p.log.empty()) last = std::max(last, p.log.back().sequence);
    bool ended = !p.running && !p.starting;
    lock.unlock();
    for (const auto& e : fresh)
      if (!w.Write(frame(e))) return;
    if (ended || w.client_gone()) break;
    // Short waits, so a client that left (or a server that stops) is seen
    // soon; a heartbeat once the stream has been quiet for heartbeat_.
    lock.lock();
    bool woke = p.cv.wait_for(lock, std::min<std::chrono::milliseconds>(heartbeat_, std::chrono::milliseconds(250)), [&] {
      return (!p.log.empty() && p.log.back().sequence > last) || !p.running;
    });
    if (woke) quiet_since = Clock::now();
    if (!woke && Clock::now() - quiet_since >= heartbeat_) {
      lock.unlock();
      if (!w.Write(": heartbeat\n\n")) return;
      quiet_since = Clock::now();
      lock.lock();
    }
  }
  w.End();
}

}  // namespace sepp::front::serve
