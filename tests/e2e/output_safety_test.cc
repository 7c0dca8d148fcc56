// What sepp -p prints, end to end with the real binary: no output mode
// carries a provider key, wherever the model or a tool put it and however
// it was split; and nothing the model or a command wrote drives the user's
// terminal (a pty), while a pipe gets --output text raw, as documented.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <filesystem>

#include "base/ids.h"
#include "base/json.h"
#include "base/strings.h"
#include "e2e/run_sepp.h"
#include "support/fake_provider.h"

namespace sepp::e2e {
namespace {

namespace fs = std::filesystem;
constexpr char kKey[] = "sk-e2e-output-0123456789abcdef";

// The same attack in the model's text and in a command's output: OSC 52
// (set the clipboard), a title change, clear screen, a C1 CSI.
constexpr char kAttack[] = "\x1b]52;c;cm0gLXJmIH4=\x07\x1b]0;pwned\x07\x1b[2J\xC2\x9B" "6n";
constexpr char kShown[] = "^[]52;c;cm0gLXJmIH4=^G^[]0;pwned^G^[[2J\\u009b6n";

bool HasRawControl(const std::string& s) {
  return s.find('\x1b') != std::string::npos || s.find('\x07') != std::string::npos ||
         s.find("\xC2\x9B") != std::string::npos;
}

class OutputSafety : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("sepp-e2e-out-" + ShortId());
    fs::create_directories(root_ / "ws");
    fs::create_directories(root_ / "home");
    ASSERT_TRUE(fp_.Start().ok());
  }
  void TearDown() override {
    fp_.Stop();
    fs::remove_all(root_);
  }
  std::map<std::string, std::string> Env() const {
    return {{"PATH", "/usr/local/bin:/usr/bin:/bin"},  {"HOME", (root_ / "home").string()},
            {"SEPP_HOME", (root_ / "home/.sepp").string()}, {"SEPP_PROVIDER", "anthropic"},
            {"LANG", "C.UTF-8"},                       {"ANTHROPIC_BASE_URL", fp_.base_url()},
            {"ANTHROPIC_API_KEY", kKey}};
  }
  RunOutput Sepp(std::vector<std::string> args, const Json& script) {
    fp_.SetScript({{"responses", script}});
    RunOptions o;
    o.args = std::move(args);
    o.env = Env();
    o.cwd = (root_ / "ws").string();
    return RunSepp(o);
  }

  // sepp with stdout and stderr on one pty (raw mode): what a user's
  // terminal receives.
  std::string SeppOnTerminal(std::vector<std::string> args, const Json& script) {
    fp_.SetScript({{"responses", script}});
    int master = -1, slave = -1;
    if (openpty(&master, &slave, nullptr, nullptr, nullptr) != 0) {
      ADD_FAILURE() << "openpty failed";
      return {};
    }
    termios t;
    tcgetattr(slave, &t);
    cfmakeraw(&t);
    tcsetattr(slave, TCSANOW, &t);
    std::vector<std::string> argv_s = {SeppPath()};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<std::string> env_s;
    for (auto& [k, v] : Env()) env_s.push_back(k + "=" + v);
    std::vector<char*> argv, envp;
    for (auto& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);
    for (auto& e : env_s) envp.push_back(e.data());
    envp.push_back(nullptr);
    std::string ws = (root_ / "ws").string();
    pid_t pid = fork();
    if (pid == 0) {
      setsid();
      int null = open("/dev/null", O_RDONLY);
      dup2(null, 0);
      dup2(slave, 1);
      dup2(slave, 2);
      close(master);
      if (chdir(ws.c_str()) != 0) _exit(126);
      execve(argv[0], argv.data(), envp.data());
      _exit(127);
    }
    close(slave);
    std::string out;
    char buf[4096];
    // Read until every slave end is closed (EIO), 60 s at most.
    for (;;) {
      pollfd p{master, POLLIN, 0};
      if (poll(&p, 1, 60000) != 1) {
        ADD_FAILURE() << "sepp did not finish";
        kill(pid, SIGKILL);
        break;
      }
      ssize_t n = read(master, buf, sizeof buf);
      if (n <= 0) break;
      out.append(buf, n);
    }
    close(master);
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << out;
    return out;
  }

  // Turn 1: text with the key (the fake provider streams it in pieces of
  // about 12 bytes, so the key is split across deltas) and a command whose
  // output has the key and fails; turn 2: a final text with the key.
  Json KeyScript() const {
    std::string key = kKey;
    std::string cmd = "printf '%s' 'out " + key.substr(0, 10) + "'; printf '%s\\n' '" + key.substr(10) +
                      " tail'; exit 3";
    return {{{"text", "checking " + key + " now"},
             {"tool_calls", {{{"name", "bash"}, {"arguments", {{"command", cmd}}}}}}},
            {{"text", "done: " + key}}};
  }

  Json AttackScript() const {
    std::string cmd = std::string("printf '") + kAttack + "'; exit 1";
    return {{{"text", std::string("look ") + kAttack + "\n"},
             {"tool_calls", {{{"name", "bash"}, {"arguments", {{"command", cmd}}}}}}},
            {{"text", std::string("end ") + kAttack}}};
  }

  fs::path root_;
  fake::FakeProvider fp_;
};

TEST_F(OutputSafety, NoOutputModeCarriesTheKey) {
  for (std::string format : {"text", "json", "stream-json"}) {
    SCOPED_TRACE(format);
    auto r = Sepp({"-p", "go", "--no-session", "--output", format}, KeyScript());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.find(kKey), std::string::npos) << r.out;
    EXPECT_EQ(r.err.find(kKey), std::string::npos) << r.err;
    // The key was there and is marked, not lost with the text around it.
    EXPECT_NE(r.out.find("[REDACTED]"), std::string::npos) << r.out;
    if (format == "text") {
      EXPECT_EQ(r.out, "checking [REDACTED] now\ndone: [REDACTED]\n");
      EXPECT_NE(r.err.find("error: out [REDACTED] tail"), std::string::npos) << r.err;
    }
    if (format == "json") {
      EXPECT_EQ((*ParseJson(r.out))["text"], "done: [REDACTED]");
    }
    if (format == "stream-json") {
      std::string deltas, outputs;
      for (const auto& line : SplitLines(r.out)) {
        auto j = ParseJson(line);
        ASSERT_TRUE(j.ok()) << line;
        if ((*j)["type"] == "message.delta") deltas += (*j)["text"].get<std::string>();
        if ((*j)["type"] == "tool.output") outputs += (*j)["text"].get<std::string>();
      }
      EXPECT_EQ(deltas, "checking [REDACTED] nowdone: [REDACTED]");
      EXPECT_NE(outputs.find("out [REDACTED] tail"), std::string::npos) << outputs;
    }
  }
}

TEST_F(OutputSafety, NothingDrivesTheTerminal) {
  std::string screen = SeppOnTerminal({"-p", "go", "--no-session"}, AttackScript());
  EXPECT_FALSE(HasRawControl(screen)) << Json(screen).dump();
  EXPECT_NE(screen.find(std::string("look ") + kShown), std::string::npos) << screen;  // stdout
  EXPECT_NE(screen.find(std::string("error: ") + kShown), std::string::npos) << screen;  // stderr
  EXPECT_NE(screen.find(std::string("end ") + kShown), std::string::npos) << screen;
  for (std::string format : {"json", "stream-json"}) {
    std::string s = SeppOnTerminal({"-p", "go", "--no-session", "--output", format}, AttackScript());
    EXPECT_FALSE(HasRawControl(s)) << format << ": " << Json(s).dump();
    EXPECT_NE(s.find("end "), std::string::npos) << s;
  }
}

TEST_F(OutputSafety, IntoAPipeTextIsRawAndStderrIsSafe) {
  auto r = Sepp({"-p", "go", "--no-session"}, AttackScript());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, std::string("look ") + kAttack + "\nend " + kAttack + "\n");
  EXPECT_FALSE(HasRawControl(r.err)) << Json(r.err).dump();
  EXPECT_NE(r.err.find(std::string("error: ") + kShown), std::string::npos) << r.err;
  for (std::string format : {"json", "stream-json"}) {
    auto j = Sepp({"-p", "go", "--no-session", "--output", format}, AttackScript());
    EXPECT_FALSE(HasRawControl(j.out)) << format << ": " << j.out;
  }
}

// `sepp sessions show` prints what the model and its tools wrote: shown
// safely on a terminal, raw into a pipe.
TEST_F(OutputSafety, SessionsShowIsSafeOnATerminal) {
  auto r = Sepp({"-p", "go", "--output", "json"}, AttackScript());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string id = (*ParseJson(r.out))["session_id"];
  ASSERT_FALSE(id.empty());
  std::string screen = SeppOnTerminal({"sessions", "show", id}, Json::array());
  EXPECT_FALSE(HasRawControl(screen)) << Json(screen).dump();
  EXPECT_NE(screen.find(std::string("look ") + kShown), std::string::npos) << screen;
  auto piped = Sepp({"sessions", "show", id}, Json::array());
  EXPECT_NE(piped.out.find(std::string("look ") + kAttack), std::string::npos) << piped.out;
}

}  // namespace
}  // namespace sepp::e2e
