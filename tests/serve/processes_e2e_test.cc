// /v1/processes/* end to end: sepp serve as a child; every process runs in
// the sandbox the agent's commands get. Attacks (reading and writing outside
// the workspace, a cwd outside, an escape from the process tree, leftovers
// after the server ends) run next to the legitimate processes that must
// still work.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "base/base64.h"
#include "base/file.h"
#include "serve/serve_child.h"

namespace sepp::servetest {
namespace {

namespace fs = std::filesystem;

std::string Slurp(const fs::path& p) {
  auto r = ReadFile(p);
  return r.ok() ? *r : "";
}

constexpr const char* kToken = "proc-test-token-0123456789";
constexpr const char* kSecret = "PROCESS-SECRET-OUTSIDE";

class ProcessesE2e : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/sepp-serve-proc-XXXXXX";
    root_ = mkdtemp(tmpl);
    fs::create_directories(root_ / "home");
    fs::create_directories(root_ / "project");
    fs::create_directories(root_ / "outside");
    std::ofstream(root_ / "outside" / "secret") << kSecret;
    std::ofstream(root_ / "project" / "hello.txt") << "hello from the workspace\n";
    server_ = std::make_unique<ServeChild>(
        project(), std::map<std::string, std::string>{{"HOME", (root_ / "home").string()},
                                                      {"SEPP_HOME", (root_ / "home").string()},
                                                      // a provider is configured; these tests never call it
                                                      {"ANTHROPIC_BASE_URL", "http://127.0.0.1:9"},
                                                      {"ANTHROPIC_API_KEY", "test-key-not-secret"}},
        std::vector<std::string>{"--token", kToken, "--heartbeat", "1"});
  }
  void TearDown() override {
    server_.reset();
    fs::remove_all(root_);
  }
  std::string project() const { return (root_ / "project").string(); }
  net::Headers Auth(net::Headers h = {}) {
    h.emplace_back("Authorization", std::string("Bearer ") + kToken);
    return h;
  }
  Json Do(const std::string& method, const std::string& path, const Json& body = nullptr, int want = 200) {
    net::Headers h = Auth();
    std::string b;
    if (!body.is_null()) {
      h.emplace_back("Content-Type", "application/json");
      b = body.dump();
    }
    auto r = Fetch(method, server_->url(path), h, b);
    EXPECT_EQ(r.head.status, want) << method << " " << path << " " << r.body;
    auto j = ParseJson(r.body);
    return j.ok() ? *j : Json();
  }
  Json Run(const std::string& script, Json extra = Json::object()) {
    extra["command"] = "sh";
    extra["args"] = {"-c", script};
    return Do("POST", "/v1/processes/run", extra);
  }
  // Waits (polling the API, no fixed sleep) until the process has exited.
  Json WaitExited(const std::string& id) {
    for (int i = 0; i < 600; ++i) {
      Json info = Do("GET", "/v1/processes/" + id);
      if (info.value("status", "") == "exited") return info;
      usleep(20000);
    }
    ADD_FAILURE() << id << " did not exit";
    return Json();
  }
  std::string Logs(const std::string& id, const std::string& stream = "combined") {
    Json logs = Do("GET", "/v1/processes/" + id + "/logs?stream=" + stream);
    std::string text;
    for (const auto& e : logs["entries"]) text += Base64Decode(e["data"].get<std::string>()).value_or("?");
    return text;
  }

  fs::path root_;
  std::unique_ptr<ServeChild> server_;
};

TEST_F(ProcessesE2e, RunReturnsOutputAndExitCode) {
  Json r = Run("echo out; echo err >&2; cat hello.txt; exit 3");
  EXPECT_EQ(r["exitCode"], 3) << r.dump();
  EXPECT_EQ(r["timedOut"], false);
  EXPECT_EQ(r["stdout"], "out\nhello from the workspace\n");
  EXPECT_EQ(r["stderr"], "err\n");
  EXPECT_EQ(r["stdoutTruncated"], false);
  EXPECT_TRUE(r["durationMs"].is_number());
  Json small = Run("head -c 5000 /dev/zero | tr '\\0' x", {{"maxOutputBytes", 100}});
  EXPECT_EQ(small["stdout"].get<std::string>().size(), 100u);
  EXPECT_EQ(small["stdoutTruncated"], true);
  Json slow = Run("sleep 30", {{"timeoutMs", 300}});
  EXPECT_EQ(slow["timedOut"], true) << slow.dump();
  EXPECT_TRUE(slow["exitCode"].is_null());
  Json env = Run("echo $GREETING", {{"env", {{"GREETING", "hi there"}}}});
  EXPECT_EQ(env["stdout"], "hi there\n");
}

TEST_F(ProcessesE2e, ProcessesAreConfinedToTheWorkspace) {
  // Next to a legitimate write in the workspace, the same command outside.
  Json r = Run("echo made > made.txt; cat " + (root_ / "outside/secret").string() + "; echo planted > " +
               (root_ / "outside/planted").string() + "; cat ~/.ssh/id_rsa /etc/shadow 2>&1 | head -c 0");
  EXPECT_EQ(Slurp(root_ / "project/made.txt"), "made\n");
  EXPECT_EQ(r["stdout"].get<std::string>().find(kSecret), std::string::npos) << r.dump();
  EXPECT_FALSE(fs::exists(root_ / "outside/planted"));
  EXPECT_EQ(Slurp(root_ / "outside/secret"), kSecret);
  // No network in the default policy.
  Json net = Run("exec 3<>/dev/tcp/127.0.0.1/" + std::to_string(server_->port()) + " && echo connected");
  EXPECT_EQ(net["stdout"].get<std::string>().find("connected"), std::string::npos) << net.dump();
  // A cwd outside the workspaces is refused before anything starts.
  Json outside = Do("POST", "/v1/processes/run", {{"command", "true"}, {"cwd", (root_ / "outside").string()}}, 403);
  EXPECT_EQ(outside["type"], "urn:sepp:error:permission_denied");
  Do("POST", "/v1/processes", {{"command", "true"}, {"cwd", "../outside"}}, 403);
  Do("POST", "/v1/processes/run", {{"command", ""}}, 400);
  Do("POST", "/v1/processes/run", {{"command", "no-such-program-xyz"}}, 400);
}

// A shell on a pty: what is typed is echoed, the window size is the one
// set, ^C interrupts the foreground command, `exit 3` ends it with 3; and
// the terminal's shell is confined as every process is (the secret outside
// stays unread, nothing is planted outside, the workspace is writable).
TEST_F(ProcessesE2e, AShellInATerminalEchoesResizesInterruptsAndExits) {
  Json p = Do("POST", "/v1/processes", {{"command", "sh"}, {"tty", true}});
  std::string id = p.value("id", "");
  ASSERT_FALSE(id.empty()) << p.dump();
  EXPECT_EQ(p["tty"], true);
  auto type = [&](const std::string& text) {
    Do("POST", "/v1/processes/" + id + "/input", {{"data", Base64Encode(text)}});
  };
  // Polls the pty log (no fixed sleep) until it holds `want`.
  auto await = [&](const std::string& want) {
    std::string seen;
    for (int i = 0; i < 1000; ++i) {
      seen = Logs(id, "pty");
      if (seen.find(want) != std::string::npos) return seen;
      usleep(10000);
    }
    ADD_FAILURE() << "no \"" << want << "\" in the terminal's output: " << seen;
    return seen;
  };
  type("echo tty-$((40+2)); test -t 0 && echo is-a-$((0))-terminal\n");
  std::string seen = await("tty-42");
  EXPECT_NE(seen.find("echo tty-$((40+2))"), std::string::npos) << "the terminal echoes what is typed: " << seen;
  await("is-a-0-terminal");
  Json logs = Do("GET", "/v1/processes/" + id + "/logs?stream=pty");
  ASSERT_FALSE(logs["entries"].empty());
  EXPECT_EQ(logs["entries"][0]["stream"], "pty");
  EXPECT_EQ(Logs(id, "stdout"), "") << "a terminal's output is its pty stream";

  Json resized = Do("POST", "/v1/processes/" + id + "/terminal/resize", {{"cols", 100}, {"rows", 40}});
  EXPECT_EQ(resized, (Json{{"cols", 100}, {"rows", 40}}));
  type("stty size\n");
  await("40 100");
  Do("POST", "/v1/processes/" + id + "/terminal/resize", {{"cols", 0}, {"rows", 40}}, 400);
  Do("POST", "/v1/processes/" + id + "/terminal/resize", {{"cols", "wide"}}, 400);

  // ^C reaches the foreground command: the terminal is the shell's own.
  // Typed once the shell runs the line (its echo is out), so it interrupts
  // the sleep, not the reading of the line.
  type("echo start-$((5+5)); sleep 100; echo sleep-$((1+1))-ended\n");
  await("start-10");
  type("\x03");
  // A line typed while the shell takes the interrupt may be dropped with
  // the input it flushes: typed again until it ran (no fixed wait).
  for (int i = 0; i < 50 && Logs(id, "pty").find("after-2-interrupt") == std::string::npos; ++i) {
    type("echo after-$((1+1))-interrupt\n");
    for (int j = 0; j < 20 && Logs(id, "pty").find("after-2-interrupt") == std::string::npos; ++j) usleep(10000);
  }
  seen = await("after-2-interrupt");
  EXPECT_EQ(seen.find("sleep-2-ended"), std::string::npos) << "the sleep ran to its end: " << seen;

  // Confined: next to a legitimate write in the workspace, the same outside.
  type("echo made > made-in-tty.txt; cat " + (root_ / "outside/secret").string() + "; echo planted > " +
       (root_ / "outside/planted").string() + "; echo done-$((2+2))\n");
  seen = await("done-4");
  EXPECT_EQ(seen.find(kSecret), std::string::npos) << seen;
  EXPECT_EQ(Slurp(root_ / "project/made-in-tty.txt"), "made\n");
  EXPECT_FALSE(fs::exists(root_ / "outside/planted"));

  type("exit 3\n");
  Json exited = WaitExited(id);
  EXPECT_EQ(exited["exitCode"], 3) << exited.dump();
  Do("POST", "/v1/processes/" + id + "/terminal/resize", {{"cols", 80}, {"rows", 24}}, 409);
  Do("POST", "/v1/processes/" + id + "/input", {{"data", Base64Encode("late\n")}}, 409);

  // A process on pipes has no terminal to resize (the terminal WebSocket:
  // terminal_ws_e2e_test.cc).
  Json piped = Do("POST", "/v1/processes", {{"command", "cat"}, {"interactive", true}});
  Json refused = Do("POST", "/v1/processes/" + piped.value("id", "") + "/terminal/resize", {{"cols", 80}, {"rows", 24}}, 409);
  EXPECT_NE(refused.value("detail", "").find("no terminal"), std::string::npos) << refused.dump();
}

TEST_F(ProcessesE2e, StartedProcessTakesInputLogsAndStops) {
  Json p = Do("POST", "/v1/processes", {{"command", "cat"}, {"interactive", true}});
  std::string id = p.value("id", "");
  ASSERT_EQ(id.rfind("proc_", 0), 0u) << p.dump();
  EXPECT_EQ(p["status"], "running");
  EXPECT_GT(p["pid"].get<int>(), 0);
  // Plain text is not base64: refused, as sandbox-agent does.
  Do("POST", "/v1/processes/" + id + "/input", {{"data", "not base64!"}}, 400);
  Json wrote = Do("POST", "/v1/processes/" + id + "/input", {{"data", Base64Encode("line one\n")}});
  EXPECT_EQ(wrote["bytesWritten"], 9);
  Do("POST", "/v1/processes/" + id + "/input", {{"data", "line two\n"}, {"encoding", "utf8"}});
  // Follow the log as SSE until both lines are in.
  auto sse = ReadSse(server_->url("/v1/processes/" + id + "/logs?follow=true"),
                     Auth({{"Accept", "text/event-stream"}}), [](const SseRead& r) {
                       std::string all;
                       for (const auto& e : r.events) {
                         auto j = ParseJson(e.data);
                         if (j.ok()) all += Base64Decode((*j)["data"].get<std::string>()).value_or("");
                       }
                       return all.find("line two") != std::string::npos;
                     }, 30);
  ASSERT_EQ(sse.status, 200) << sse.body;
  ASSERT_FALSE(sse.events.empty());
  EXPECT_EQ(sse.events[0].event, "log");
  EXPECT_EQ(sse.events[0].id, "1");
  EXPECT_EQ(Logs(id, "stdout"), "line one\nline two\n");
  EXPECT_EQ(Logs(id, "stderr"), "");
  Json listed = Do("GET", "/v1/processes");
  ASSERT_EQ(listed["processes"].size(), 1u);
  EXPECT_EQ(listed["processes"][0]["id"], id);
  // cat is pid 1 of its sandbox and has no SIGTERM handler: stop ends it anyway.
  Json stopped = Do("POST", "/v1/processes/" + id + "/stop?waitMs=200");
  EXPECT_EQ(stopped["status"], "exited") << stopped.dump();
  Do("POST", "/v1/processes/" + id + "/input", {{"data", "late"}, {"encoding", "utf8"}}, 409);
  Do("DELETE", "/v1/processes/" + id, nullptr, 204);
  Do("GET", "/v1/processes/" + id, nullptr, 404);
}

TEST_F(ProcessesE2e, KillEndsTheWholeTreeAndLogsFollowToTheEnd) {
  // A background child that tries to outlive its parent.
  Json p = Do("POST", "/v1/processes",
              {{"command", "sh"}, {"args", {"-c", "(sleep 1000 & echo bg $!; wait) ; echo never"}}});
  std::string id = p.value("id", "");
  ASSERT_FALSE(id.empty());
  for (int i = 0; i < 500 && Logs(id).find("bg ") == std::string::npos; ++i) usleep(10000);
  Json killed = Do("POST", "/v1/processes/" + id + "/kill?waitMs=5000");
  EXPECT_EQ(killed["status"], "exited") << killed.dump();
  EXPECT_EQ(killed["exitCode"], 128 + SIGKILL);
  EXPECT_EQ(Logs(id).find("never"), std::string::npos);
  // A process that ends by itself: a follower gets all of its output, then the end.
  Json q = Do("POST", "/v1/processes", {{"command", "sh"}, {"args", {"-c", "for i in 1 2 3; do echo $i; done; exit 7"}}});
  std::string qid = q.value("id", "");
  auto sse = ReadSse(server_->url("/v1/processes/" + qid + "/logs?follow=true&stream=stdout"),
                     Auth({{"Accept", "text/event-stream"}}), [](const SseRead&) { return false; }, 30);
  std::string all;
  for (const auto& e : sse.events) {
    auto j = ParseJson(e.data);
    if (j.ok()) all += Base64Decode((*j)["data"].get<std::string>()).value_or("");
  }
  EXPECT_EQ(all, "1\n2\n3\n") << "the stream ended with the process, holding all its output";
  EXPECT_EQ(WaitExited(qid)["exitCode"], 7);
  Json tail = Do("GET", "/v1/processes/" + qid + "/logs?tail=0");
  EXPECT_TRUE(tail["entries"].empty());
  Do("GET", "/v1/processes/" + qid + "/logs?follow=true", nullptr, 406);  // not an SSE client
  EXPECT_TRUE(Do("GET", "/v1/processes/" + qid + "/logs?stream=pty")["entries"].empty()) << "on pipes, not a pty";
  Do("GET", "/v1/processes/" + qid + "/logs?stream=tty", nullptr, 400);
}

TEST_F(ProcessesE2e, NoProcessOutlivesTheServer) {
  Json p = Do("POST", "/v1/processes", {{"command", "sleep"}, {"args", {"1000"}}});
  int pid = p.value("pid", 0);
  ASSERT_GT(pid, 0);
  ASSERT_EQ(kill(pid, 0), 0) << "running";
  EXPECT_EQ(server_->Stop(), 0);
  bool gone = false;
  for (int i = 0; i < 500 && !gone; ++i) {
    gone = kill(pid, 0) != 0 && errno == ESRCH;
    if (!gone) usleep(10000);
  }
  EXPECT_TRUE(gone) << "pid " << pid << " outlived sepp serve";
}

TEST_F(ProcessesE2e, ConfigIsReadAndChecked) {
  Json c = Do("GET", "/v1/processes/config");
  EXPECT_EQ(c["maxConcurrentProcesses"], 64);
  EXPECT_EQ(c["defaultRunTimeoutMs"], 30000);
  Json set = Do("POST", "/v1/processes/config", {{"maxConcurrentProcesses", 1}});
  EXPECT_EQ(set["maxConcurrentProcesses"], 1);
  Do("POST", "/v1/processes/config", {{"maxOutputBytes", -1}}, 400);
  Json one = Do("POST", "/v1/processes", {{"command", "sleep"}, {"args", {"1000"}}});
  Json two = Do("POST", "/v1/processes", {{"command", "true"}}, 409);
  EXPECT_EQ(two["type"], "urn:sepp:error:conflict");
  Do("DELETE", "/v1/processes/" + one.value("id", ""), nullptr, 204);
  Do("POST", "/v1/processes", {{"command", "true"}});  // room again
}

TEST_F(ProcessesE2e, TheApiCommandMirrorsTheProcessEndpoints) {
  std::map<std::string, std::string> env = {{"SEPP_SERVE_URL", server_->url("")}, {"SEPP_SERVE_TOKEN", kToken}};
  std::string out, err;
  auto api = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"api", "processes"});
    return RunSepp(args, env, &out, &err);
  };
  ASSERT_EQ(api({"run", "--", "sh", "-c", "echo via-cli; exit 2"}), 0) << err;
  auto ran = ParseJson(out);
  ASSERT_TRUE(ran.ok()) << out;
  EXPECT_EQ((*ran)["stdout"], "via-cli\n");
  EXPECT_EQ((*ran)["exitCode"], 2);
  ASSERT_EQ(api({"start", "--interactive", "--", "cat"}), 0) << err;
  std::string id = ParseJson(out)->value("id", "");
  ASSERT_FALSE(id.empty()) << out;
  ASSERT_EQ(api({"input", id, "--data", "typed\n"}), 0) << err;
  EXPECT_EQ((*ParseJson(out))["bytesWritten"], 6);
  for (int i = 0; i < 500 && Logs(id) != "typed\n"; ++i) usleep(10000);
  ASSERT_EQ(api({"logs", id, "--stream", "stdout"}), 0) << err;
  auto logs = ParseJson(out);
  ASSERT_TRUE(logs.ok()) << out;
  ASSERT_EQ((*logs)["entries"].size(), 1u) << out;
  EXPECT_EQ(Base64Decode((*logs)["entries"][0]["data"].get<std::string>()).value_or(""), "typed\n");
  ASSERT_EQ(api({"list"}), 0) << err;
  EXPECT_NE(out.find(id), std::string::npos);
  ASSERT_EQ(api({"kill", id, "--wait-ms", "5000"}), 0) << err;
  EXPECT_EQ((*ParseJson(out))["status"], "exited") << out;
  ASSERT_EQ(api({"delete", id}), 0) << err;
  EXPECT_EQ(api({"get", id}), 1);
  EXPECT_NE(err.find("urn:sepp:error:not_found"), std::string::npos) << err;
  // A terminal: started, typed at, resized.
  ASSERT_EQ(api({"start", "--tty", "--", "sh"}), 0) << err;
  std::string tty = ParseJson(out)->value("id", "");
  EXPECT_EQ((*ParseJson(out))["tty"], true) << out;
  ASSERT_EQ(api({"resize", tty, "--cols", "90", "--rows", "30"}), 0) << err;
  EXPECT_EQ(*ParseJson(out), (Json{{"cols", 90}, {"rows", 30}})) << out;
  ASSERT_EQ(api({"input", tty, "--data", "stty size\n"}), 0) << err;
  for (int i = 0; i < 500 && Logs(tty, "pty").find("30 90") == std::string::npos; ++i) usleep(10000);
  ASSERT_EQ(api({"logs", tty, "--stream", "pty"}), 0) << err;
  auto tty_logs = ParseJson(out);
  ASSERT_TRUE(tty_logs.ok()) << out;
  std::string shown;
  for (const auto& e : (*tty_logs)["entries"]) shown += Base64Decode(e["data"].get<std::string>()).value_or("");
  EXPECT_NE(shown.find("30 90"), std::string::npos) << shown;
  ASSERT_EQ(api({"input", tty, "--data", "exit\n"}), 0) << err;
  EXPECT_EQ(WaitExited(tty)["exitCode"], 0);
  EXPECT_EQ(api({"resize", id, "--cols", "0", "--rows", "30"}), 2) << "a size out of range is a usage error";
  EXPECT_EQ(api({"run", "--cwd", "/etc", "--", "cat", "passwd"}), 1);
  EXPECT_NE(err.find("permission_denied"), std::string::npos) << err;
}

}  // namespace
}  // namespace sepp::servetest
