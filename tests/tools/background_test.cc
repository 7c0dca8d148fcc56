// Background processes and the process tools in the session sandbox
// (tools/background_jobs.h, tools/process_tools.h): a server started with
// run_in_background answers a later call and dies with the session; a
// running call sent to the background goes on; process_signal refuses pid
// 1, its threads, host pids and another session's pids, and the attacks run
// next to the legitimate use that must still work.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <sstream>
#include <fstream>
#include <mutex>
#include <thread>

#include "tools/process_tools.h"
#include "worker_fixture.h"
#include "support/host_processes.h"

extern char** environ;

namespace sepp::tools {
namespace {

namespace fs = std::filesystem;
using testing::WorkerTest;

bool Contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::vector<pid_t> HostPids(const std::string& marker) { return sepp::testing_support::HostPidsWith(marker); }

// Polls until done() (or 30 s pass: the test then fails on what follows).
template <typename F>
bool WaitFor(F done) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

class BackgroundTest : public WorkerTest {
 public:
  void SetUp() override {
    WorkerTest::SetUp();
    if (IsSkipped()) return;
    AddProcessTools(*registry_);
  }
  Json List(const std::string& query) {
    ToolResult r = Use("process_list", {{"query", query}});
    EXPECT_FALSE(r.is_error) << r.text;
    auto j = ParseJson(r.text);
    EXPECT_TRUE(j.ok()) << r.text;
    return j.ok() ? *j : Json::object();
  }
  // A marker no other test on this machine uses.
  std::string Marker(int base) { return std::to_string(base + getpid() % 9000); }
};

TEST_F(BackgroundTest, AServerStartedInTheBackgroundAnswersALaterCallAndDiesWithTheSession) {
  if (access("/usr/bin/python3", X_OK) != 0 || access("/usr/bin/curl", X_OK) != 0)
    GTEST_SKIP() << "needs /usr/bin/python3 and /usr/bin/curl (scripts/setup installs them)";
  Put(ws_ / "hello.txt", "hello from the workspace\n");
  // The port is the sandbox's own (its network namespace), and the marker.
  std::string port = Marker(40000);
  ToolResult start = Use("bash", {{"command", "exec /usr/bin/python3 -m http.server --bind 127.0.0.1 " + port},
                                  {"run_in_background", true}});
  ASSERT_FALSE(start.is_error) << start.text;
  ASSERT_TRUE(start.details.value("background", false)) << start.text;
  int pid = start.details.value("pid", 0);
  std::string log = start.details.value("log", "");
  EXPECT_GT(pid, 1);
  EXPECT_TRUE(Contains(start.text, "pid " + std::to_string(pid))) << start.text;
  EXPECT_TRUE(Contains(start.text, log)) << start.text;

  // A later call reaches it (the server may take a moment to listen).
  ToolResult get = Use("bash", {{"command", "for i in $(seq 200); do curl -sf http://127.0.0.1:" + port +
                                                "/hello.txt && exit 0; sleep 0.05; done; exit 1"}});
  ASSERT_FALSE(get.is_error) << get.text << Use("bash", {{"command", "cat " + log}}).text
                             << Use("process_list", Json::object()).text;
  EXPECT_TRUE(Contains(get.text, "hello from the workspace")) << get.text;
  // Its log (the request line on stderr) is readable with the file tools.
  ToolResult seen = Use("bash", {{"command", "for i in $(seq 200); do grep -q hello.txt " + log +
                                                 " && break; sleep 0.05; done; cat " + log}});
  EXPECT_TRUE(Contains(seen.text, "GET /hello.txt")) << seen.text;
  EXPECT_TRUE(Contains(Use("read", {{"path", log}}).text, "GET /hello.txt"));

  // process_list shows it with its log, in the tree under pid 1.
  Json list = List(port);
  ASSERT_EQ(list.value("totalMatches", 0), 1) << list.dump(2);
  const Json& p = list["results"][0];
  EXPECT_EQ(p["pid"], pid);
  EXPECT_EQ(p["ppid"], 1);
  EXPECT_EQ(p.value("background_log", ""), log);
  EXPECT_TRUE(Contains(p.value("command", ""), "http.server")) << p.dump();
  EXPECT_EQ(p["state"].get<std::string>().size(), 1u);
  // From /proc/<pid>/status: the name, the four uids, the resident memory.
  EXPECT_TRUE(Contains(p.value("name", ""), "python")) << p.dump();
  EXPECT_EQ(p["userIds"].size(), 4u) << p.dump();
  EXPECT_GT(p.value("memoryKb", 0), 0) << p.dump();
  EXPECT_TRUE(p["start_time"].is_string() && p["elapsed"].is_number() && p["cpu_pct"].is_number());
  EXPECT_TRUE(Contains(list.value("tree", ""), "1 ")) << list.dump(2);
  EXPECT_TRUE(Contains(list.value("tree", ""), "─ " + std::to_string(pid) + " ")) << list.dump(2);

  // The attack next to it: the host's loopback is still out of reach (the
  // sandbox's lo is its own), so a host service never answers.
  int host_listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t alen = sizeof a;
  ASSERT_EQ(bind(host_listener, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(listen(host_listener, 4), 0);
  ASSERT_EQ(getsockname(host_listener, reinterpret_cast<sockaddr*>(&a), &alen), 0);
  ToolResult host = Use("bash", {{"command", "exec 3<>/dev/tcp/127.0.0.1/" + std::to_string(ntohs(a.sin_port)) +
                                                 " && echo host-connected"}});
  close(host_listener);
  EXPECT_TRUE(host.is_error) << host.text;
  EXPECT_FALSE(Contains(host.text, "host-connected")) << host.text;

  // It dies with the session.
  ASSERT_EQ(HostPids(port).size(), 1u);
  worker_.reset();
  EXPECT_TRUE(HostPids(port).empty());
}

TEST_F(BackgroundTest, ARunningCallSentToTheBackgroundReturnsWhatItHasAndGoesOn) {
  std::string marker = Marker(870000);
  std::mutex mu;
  std::string streamed;
  ToolResult result;
  std::thread call([&] {
    ToolContext ctx = Context();
    ctx.call_id = "slow";
    ctx.on_output = [&](std::string_view s) {
      std::lock_guard<std::mutex> lock(mu);
      streamed += s;
    };
    result = RunTool(*registry_->Find("bash"),
                     {{"command", "echo first-part; until [ -e /tmp/more ]; do sleep 0.05; done; "
                                  "echo second-part; exec sleep " + marker}},
                     ctx);
  });
  bool running = WaitFor([&] {
    std::lock_guard<std::mutex> lock(mu);
    return Contains(streamed, "first-part");
  });
  if (!running) {
    call.join();
    FAIL() << "the command did not start: " << result.text;
  }
  EXPECT_EQ(worker_->Background("nothing-runs-so").error().kind, "not_found");
  ASSERT_TRUE(worker_->Background("slow").ok());
  call.join();
  ASSERT_FALSE(result.is_error) << result.text;
  EXPECT_TRUE(Contains(result.text, "first-part")) << result.text;
  EXPECT_TRUE(Contains(result.text, "sent to the background by the user")) << result.text;
  int pid = result.details.value("pid", 0);
  std::string log = result.details.value("log", "");
  ASSERT_GT(pid, 1) << result.text;

  // It goes on: what it prints now lands in the log.
  ToolResult more = Use("bash", {{"command", "touch /tmp/more; for i in $(seq 200); do grep -q second-part " +
                                                 log + " && break; sleep 0.05; done; cat " + log}});
  EXPECT_TRUE(Contains(more.text, "second-part")) << more.text;
  Json list = List(marker);
  ASSERT_EQ(list.value("totalMatches", 0), 1) << list.dump(2);
  EXPECT_EQ(list["results"][0]["pid"], pid);

  // process_signal ends it (legitimate use), and it is gone from the list.
  ToolResult sig = Use("process_signal", {{"pid", pid}, {"signal", "KILL"}});
  ASSERT_FALSE(sig.is_error) << sig.text;
  auto j = ParseJson(sig.text);
  ASSERT_TRUE(j.ok()) << sig.text;
  EXPECT_TRUE((*j)["sent"].get<bool>());
  EXPECT_EQ((*j)["pid"], pid);
  EXPECT_TRUE((*j)["name"] == "sleep" || (*j)["name"] == "bash") << sig.text;
  // Reaped by the job's own thread.
  EXPECT_TRUE(WaitFor([&] { return List(marker).value("totalMatches", -1) == 0; }));
  EXPECT_TRUE(HostPids(marker).empty());
}

TEST_F(BackgroundTest, ProcessSignalRefusesPidOneItsThreadsHostPidsAndOtherSessions) {
  std::string marker = Marker(880000), other_marker = Marker(890000);
  auto refused = [&](const Json& pid, const std::string& why) {
    ToolResult r = Use("process_signal", {{"pid", pid}, {"signal", "KILL"}});
    EXPECT_TRUE(r.is_error) << pid.dump() << ": " << r.text;
    EXPECT_TRUE(Contains(r.text, why)) << pid.dump() << ": " << r.text;
    EXPECT_TRUE(Contains(r.text, "\"sent\": false") || Contains(r.text, "Invalid argument")) << r.text;
  };
  // Something of our own to signal, legitimately, at the end.
  ToolResult own = Use("bash", {{"command", "exec sleep " + marker}, {"run_in_background", true}});
  ASSERT_FALSE(own.is_error) << own.text;
  int own_pid = own.details.value("pid", 0);

  refused(1, "pid 1 is refused");
  refused(0, "is refused");
  refused(-1, "is refused");  // kill(-1) would be every process
  refused(-own_pid, "is refused");  // a process group
  // The worker's threads (pid 1 has several: a signal to one is one to pid 1).
  ToolResult tasks = Use("bash", {{"command", "ls /proc/1/task | grep -vx 1 | head -n 1"}});
  int thread = std::atoi(tasks.text.c_str());
  ASSERT_GT(thread, 1) << tasks.text;
  refused(thread, "thread of pid 1");

  // A host process: its pid names nothing in the sandbox, and it lives on.
  pid_t host = 0;
  std::string host_marker = Marker(900000);
  const char* argv[] = {"/bin/sleep", host_marker.c_str(), nullptr};
  ASSERT_EQ(posix_spawn(&host, "/bin/sleep", nullptr, nullptr, const_cast<char**>(argv), environ), 0);
  struct Reap {
    pid_t pid;
    ~Reap() {  // also when an assertion ends the test early
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
  } reap_host{host};
  refused(host, "process not found in the session sandbox");
  EXPECT_EQ(kill(host, 0), 0) << "the host process was hit";

  // Another session's sandbox: neither its pid there nor its host pid
  // reaches it from here.
  auto other = std::make_unique<ToolWorker>(policy_, ws_, SEPP_BINARY_DIR "/sepp", false);
  ToolContext octx = Context();
  octx.worker = other.get();
  ToolResult ostart = RunTool(*registry_->Find("bash"),
                              {{"command", "exec sleep " + other_marker}, {"run_in_background", true}}, octx);
  ASSERT_FALSE(ostart.is_error) << ostart.text;
  int other_pid = ostart.details.value("pid", 0);
  // The call returns once the job is started, maybe before its shell has
  // exec'd the marked sleep; and a walk of /proc while processes come and
  // go can miss one. So the pid is looked for until it is seen, and kept.
  std::vector<pid_t> other_host;
  ASSERT_TRUE(WaitFor([&] {
    other_host = HostPids(other_marker);
    return other_host.size() == 1;
  })) << ostart.text;
  if (other_pid != own_pid) refused(other_pid, "process not found in the session sandbox");
  refused(other_host[0], "process not found in the session sandbox");
  EXPECT_TRUE(WaitFor([&] { return HostPids(other_marker).size() == 1; }))
      << "the other session's process was hit";

  // Signals outside the documented set are refused by name.
  ToolResult stop = Use("process_signal", {{"pid", own_pid}, {"signal", "STOP"}});
  EXPECT_TRUE(stop.is_error);
  EXPECT_TRUE(Contains(stop.text, "not one of TERM, KILL, INT, HUP")) << stop.text;

  // Legitimate: our own background process takes TERM.
  ToolResult term = Use("process_signal", {{"pid", own_pid}});
  EXPECT_FALSE(term.is_error) << term.text;
  EXPECT_TRUE(Contains(term.text, "\"signal\": \"TERM\"")) << term.text;
  EXPECT_TRUE(WaitFor([&] { return HostPids(marker).empty(); }));
  EXPECT_TRUE(WaitFor([&] { return HostPids(other_marker).size() == 1; }));
  other.reset();
  EXPECT_TRUE(HostPids(other_marker).empty());
}

TEST_F(BackgroundTest, WithoutRunInBackgroundNothingOutlivesItsCall) {
  std::string marker = Marker(910000);
  ToolResult r = Use("bash", {{"command", "sleep " + marker + " & echo started"}});
  ASSERT_FALSE(r.is_error) << r.text;
  // Killed at the call's end with its group (its zombie is reaped by pid 1 soon after).
  EXPECT_TRUE(WaitFor([&] { return List(marker).value("totalMatches", -1) == 0; }))
      << "the call's group was killed at its end";
  EXPECT_TRUE(HostPids(marker).empty());
  // A background command has no timeout to misread.
  ToolResult t = Use("bash", {{"command", "sleep 1"}, {"run_in_background", true}, {"timeout", 5}});
  EXPECT_TRUE(t.is_error);
  EXPECT_TRUE(Contains(t.text, "has no timeout")) << t.text;
}

TEST_F(BackgroundTest, OutsideTheSessionSandboxTheToolsRefuse) {
  // In this process (no worker): the host's /proc is not the model's.
  ToolContext ctx;
  ctx.cwd = ws_;
  ctx.policy = &policy_;
  for (const char* tool : {"process_list", "process_signal"}) {
    Json args = std::string(tool) == "process_list" ? Json::object() : Json{{"pid", getpid()}};
    ToolResult r = RunTool(*registry_->Find(tool), args, ctx);
    EXPECT_TRUE(r.is_error) << tool;
    EXPECT_TRUE(Contains(r.text, "works only in the session sandbox")) << r.text;
  }
  EXPECT_EQ(kill(getpid(), 0), 0);
  ToolResult bg = RunTool(*registry_->Find("bash"), {{"command", "sleep 100"}, {"run_in_background", true}}, ctx);
  EXPECT_TRUE(bg.is_error);
  EXPECT_TRUE(Contains(bg.text, "run_in_background works only in the session sandbox")) << bg.text;
}

}  // namespace
}  // namespace sepp::tools
