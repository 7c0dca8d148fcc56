// PrintMode on a real terminal (a pty from openpty) and on a pipe: text a
// model or a tool wrote never reaches a terminal as control sequences, on
// stdout or in the stderr summaries; into a pipe, --output text is the raw
// text (the documented contract); JSON output has no raw controls at all.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <termios.h>
#include <unistd.h>

#include <cstdio>

#include "base/json.h"
#include "base/secrets.h"
#include "base/strings.h"
#include "front/print_mode.h"

namespace sepp::front {
namespace {

constexpr char kAttack[] = "\x1b]52;c;cm0gLXJmIH4=\x07\x1b]0;pwned\x07\x1b[2J\x1b[H\r\xC2\x9B" "6n";
constexpr char kShown[] = "^[]52;c;cm0gLXJmIH4=^G^[]0;pwned^G^[[2J^[[H^M\\u009b6n";

// One end sepp writes to (a FILE*) and the other the test reads: a pty in
// raw mode (no \n -> \r\n), or a pipe.
class Channel {
 public:
  explicit Channel(bool terminal) {
    int r = -1, w = -1;
    if (terminal) {
      if (openpty(&r, &w, nullptr, nullptr, nullptr) != 0) return;
      termios t;
      tcgetattr(w, &t);
      cfmakeraw(&t);
      tcsetattr(w, TCSANOW, &t);
    } else {
      int p[2];
      if (pipe(p) != 0) return;
      r = p[0], w = p[1];
    }
    read_fd_ = r;
    file_ = fdopen(w, "w");
  }
  ~Channel() {
    if (file_) std::fclose(file_);
    if (read_fd_ >= 0) close(read_fd_);
  }
  std::FILE* file() const { return file_; }
  bool is_terminal() const { return isatty(fileno(file_)) == 1; }

  // Everything written so far: a marker goes after it, and the read goes on
  // until the marker arrives (a pty passes data on asynchronously).
  std::string Drain() {
    static constexpr std::string_view kEnd = "@@end-of-output@@";
    std::fwrite(kEnd.data(), 1, kEnd.size(), file_);
    std::fflush(file_);
    std::string out;
    char buf[4096];
    while (!EndsWith(out, kEnd)) {
      pollfd p{read_fd_, POLLIN, 0};
      if (poll(&p, 1, 10000) != 1) break;  // a failure, not a wait: 10 s
      ssize_t n = read(read_fd_, buf, sizeof buf);
      if (n <= 0) break;
      out.append(buf, n);
    }
    EXPECT_TRUE(EndsWith(out, kEnd)) << "the output did not arrive";
    return out.substr(0, out.size() - std::min(out.size(), kEnd.size()));
  }

 private:
  int read_fd_ = -1;
  std::FILE* file_ = nullptr;
};

agent::Event Delta(std::string text) {
  agent::Event e(agent::EventType::kMessageDelta);
  e.text = std::move(text);
  return e;
}

void FeedAttack(PrintMode& view) {
  view.OnEvent(Delta(std::string("answer ") + kAttack + "\n"));
  agent::Event started(agent::EventType::kToolStarted);
  started.summary = std::string("bash printf '") + kAttack + "'";
  view.OnEvent(started);
  agent::Event finished(agent::EventType::kToolFinished);
  finished.is_error = true;
  finished.result = std::string("out ") + kAttack + "\nsecond line";
  view.OnEvent(finished);
  agent::Event retry(agent::EventType::kRetry);
  retry.text = std::string("server said ") + kAttack;
  view.OnEvent(retry);
  agent::Event error(agent::EventType::kError);
  error.text = std::string("failed: ") + kAttack;
  view.OnEvent(error);
}

bool HasEscOrC1(const std::string& s) {
  return s.find('\x1b') != std::string::npos || s.find('\x07') != std::string::npos ||
         s.find('\r') != std::string::npos || s.find("\xC2\x9B") != std::string::npos;
}

TEST(PrintModeTerminal, NothingFromTheModelOrAToolDrivesATerminal) {
  Channel out(true), err(true);
  ASSERT_TRUE(out.file() && err.file());
  ASSERT_TRUE(out.is_terminal());
  PrintMode view(OutputFormat::kText, out.file(), err.file());
  FeedAttack(view);
  view.Finish(agent::Outcome{}, "");
  std::string o = out.Drain(), e = err.Drain();
  EXPECT_FALSE(HasEscOrC1(o)) << Json(o).dump();
  EXPECT_FALSE(HasEscOrC1(e)) << Json(e).dump();
  EXPECT_EQ(o, std::string("answer ") + kShown + "\n");
  EXPECT_NE(e.find(std::string("bash printf '") + kShown + "'\n"), std::string::npos) << e;
  EXPECT_NE(e.find(std::string("  error: out ") + kShown + "\n"), std::string::npos) << e;
  EXPECT_NE(e.find(std::string("sepp: server said ") + kShown + "; retrying\n"), std::string::npos);
  EXPECT_NE(e.find(std::string("sepp: failed: ") + kShown + "\n"), std::string::npos);
}

TEST(PrintModeTerminal, IntoAPipeTextIsRawButStderrIsStillSafe) {
  Channel out(false), err(false);
  ASSERT_TRUE(out.file() && err.file());
  ASSERT_FALSE(out.is_terminal());
  PrintMode view(OutputFormat::kText, out.file(), err.file());
  FeedAttack(view);
  view.Finish(agent::Outcome{}, "");
  // stdout into a file or pipe is the model's text byte for byte.
  EXPECT_EQ(out.Drain(), std::string("answer ") + kAttack + "\n");
  // stderr is for a human, wherever it goes (2>&1 into a pager, a log).
  std::string e = err.Drain();
  EXPECT_FALSE(HasEscOrC1(e)) << Json(e).dump();
  EXPECT_NE(e.find(kShown), std::string::npos);
}

TEST(PrintModeTerminal, JsonModesHaveNoRawControlsOnATerminalOrAPipe) {
  for (bool terminal : {true, false}) {
    for (auto format : {OutputFormat::kJson, OutputFormat::kStreamJson}) {
      SCOPED_TRACE(std::string(terminal ? "terminal " : "pipe ") +
                   (format == OutputFormat::kJson ? "json" : "stream-json"));
      Channel out(terminal), err(terminal);
      PrintMode view(format, out.file(), err.file());
      FeedAttack(view);
      agent::Outcome outcome;
      outcome.final_text = std::string("final ") + kAttack;
      view.Finish(outcome, "");
      std::string o = out.Drain();
      EXPECT_FALSE(HasEscOrC1(o)) << o;
      EXPECT_FALSE(HasEscOrC1(err.Drain()));
      // Still JSON, still the same text.
      auto lines = SplitLines(o);
      ASSERT_FALSE(lines.empty());
      for (const auto& line : lines) ASSERT_TRUE(ParseJson(line).ok()) << line;
      if (format == OutputFormat::kJson)
        EXPECT_EQ((*ParseJson(lines.back()))["text"], std::string("final ") + kAttack);
      else
        EXPECT_EQ((*ParseJson(lines.front()))["text"], std::string("answer ") + kAttack + "\n");
    }
  }
}

TEST(PrintModeSecrets, TheJsonOutcomeIsRedacted) {
  const std::string key = "sk-print-mode-0123456789abcdef";
  RegisterSecret(key);
  Channel out(false), err(false);
  PrintMode view(OutputFormat::kJson, out.file(), err.file());
  agent::Outcome outcome;
  outcome.final_text = "the key is " + key;
  outcome.status = agent::Outcome::Status::kError;
  outcome.error.message = "rejected " + key;
  view.Finish(outcome, "");
  std::string o = out.Drain();
  EXPECT_EQ(o.find(key), std::string::npos) << o;
  auto j = ParseJson(SplitLines(o).back());
  ASSERT_TRUE(j.ok());
  EXPECT_EQ((*j)["text"], "the key is [REDACTED]");
  EXPECT_EQ((*j)["error"], "rejected [REDACTED]");
}

// Events a front end makes itself (not from the agent, which redacts its
// own) are redacted on the way out too.
TEST(PrintModeSecrets, EventsMadeOutsideTheAgentAreRedacted) {
  const std::string key = "sk-print-mode-0123456789abcdef";
  RegisterSecret(key);
  for (auto format : {OutputFormat::kText, OutputFormat::kStreamJson}) {
    Channel out(false), err(false);
    PrintMode view(format, out.file(), err.file());
    agent::Event started(agent::EventType::kSessionStarted);
    started.data = {{"cwd", "/home/" + key}};
    view.OnEvent(started);
    agent::Event tool(agent::EventType::kToolStarted);
    tool.summary = "bash echo " + key;
    view.OnEvent(tool);
    agent::Event error(agent::EventType::kError);
    error.text = "bad " + key;
    view.OnEvent(error);
    std::string o = out.Drain(), e = err.Drain();
    EXPECT_EQ(o.find(key), std::string::npos) << o;
    EXPECT_EQ(e.find(key), std::string::npos) << e;
    EXPECT_NE((o + e).find("[REDACTED]"), std::string::npos);
  }
}

}  // namespace
}  // namespace sepp::front
