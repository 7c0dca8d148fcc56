// sepp --acp per-turn overhead, measured from the client's side of the pipe
// against the in-process fake provider (so what is measured is sepp's own
// work plus one loopback HTTP exchange per model call):
//   BM_PromptToFirstUpdate  session/prompt sent -> first session/update read
//   BM_TurnWithOneToolCall  a whole turn: model asks for `read`, then answers
//   BM_IdleRss              resident memory after initialize + session/new
//   BM_RssOver1000Prompts   resident memory after 10 and after 1,000 prompts
#include <benchmark/benchmark.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <poll.h>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include "base/json.h"
#include "support/fake_provider.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// One sepp --acp process with an initialised session.
class Agent {
 public:
  explicit Agent(const std::string& base_url) {
    char tmpl[] = "/tmp/sepp-bench-acp-XXXXXX";
    root_ = mkdtemp(tmpl);
    fs::create_directories(root_ / "p");
    fs::create_directories(root_ / "h");
    std::ofstream(root_ / "p" / "a.txt") << "one\ntwo\n";
    int in_p[2], out_p[2];
    if (pipe2(in_p, O_CLOEXEC) || pipe2(out_p, O_CLOEXEC)) abort();
    std::vector<std::string> env = {"PATH=/usr/bin:/bin", "HOME=" + (root_ / "h").string(),
                                    "SEPP_HOME=" + (root_ / "h").string(),
                                    "ANTHROPIC_BASE_URL=" + base_url, "ANTHROPIC_API_KEY=bench"};
    std::string bin = std::string(SEPP_BINARY_DIR) + "/sepp";
    pid_ = fork();
    if (pid_ == 0) {
      dup2(in_p[0], 0);
      dup2(out_p[1], 1);
      int devnull = open("/dev/null", O_WRONLY);
      dup2(devnull, 2);
      if (chdir((root_ / "p").c_str()) != 0) _exit(126);
      std::vector<char*> argv = {bin.data(), const_cast<char*>("--acp"), nullptr};
      std::vector<char*> envp;
      for (auto& e : env) envp.push_back(e.data());
      envp.push_back(nullptr);
      execve(argv[0], argv.data(), envp.data());
      _exit(127);
    }
    close(in_p[0]);
    close(out_p[1]);
    in_ = in_p[1];
    out_ = out_p[0];
    Call("initialize", {{"protocolVersion", 1}, {"clientCapabilities", sepp::Json::object()}});
    sepp::Json r = Call("session/new", {{"cwd", (root_ / "p").string()}, {"mcpServers", sepp::Json::array()}});
    session_ = r["result"].value("sessionId", "");
    // The update that follows session/new, so it is not timed as a prompt's.
    while (Next().value("method", "") != "session/update") {
    }
  }
  ~Agent() {
    close(in_);
    int status;
    waitpid(pid_, &status, 0);
    close(out_);
    fs::remove_all(root_);
  }

  void Send(const sepp::Json& m) {
    std::string line = m.dump() + "\n";
    if (write(in_, line.data(), line.size()) != static_cast<ssize_t>(line.size())) abort();
  }
  sepp::Json Next() {
    for (;;) {
      size_t nl = buf_.find('\n');
      if (nl != std::string::npos) {
        auto j = sepp::ParseJson(std::string_view(buf_).substr(0, nl));
        buf_.erase(0, nl + 1);
        if (j.ok()) return *j;
        continue;
      }
      char chunk[65536];
      ssize_t n = read(out_, chunk, sizeof chunk);
      if (n <= 0) abort();  // sepp died: the numbers would be meaningless
      buf_.append(chunk, static_cast<size_t>(n));
    }
  }
  sepp::Json Call(const std::string& method, sepp::Json params) {
    int id = ++id_;
    Send({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}});
    for (;;) {
      sepp::Json m = Next();
      if (m.contains("id") && m["id"] == id && !m.contains("method")) return m;
    }
  }
  // Sends a prompt; returns the time until the first session/update, then
  // reads to the answer.
  double Prompt(const std::string& text) {
    int id = ++id_;
    auto start = Clock::now();
    Send({{"jsonrpc", "2.0"}, {"id", id}, {"method", "session/prompt"},
          {"params", {{"sessionId", session_}, {"prompt", {{{"type", "text"}, {"text", text}}}}}}});
    double first = -1;
    for (;;) {
      sepp::Json m = Next();
      if (first < 0 && m.value("method", "") == "session/update")
        first = std::chrono::duration<double>(Clock::now() - start).count();
      if (m.contains("id") && m["id"] == id && !m.contains("method")) break;
    }
    return first;
  }
  long RssKb() const {
    std::ifstream f("/proc/" + std::to_string(pid_) + "/status");
    std::string line;
    while (std::getline(f, line))
      if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
    return -1;
  }

 private:
  fs::path root_;
  pid_t pid_ = -1;
  int in_ = -1, out_ = -1;
  std::string buf_;
  std::string session_;
  int id_ = 0;
};

sepp::Json Repeat(const sepp::Json& response, int n) {
  sepp::Json list = sepp::Json::array();
  for (int i = 0; i < n; ++i) list.push_back(response);
  return {{"responses", list}};
}

void BM_PromptToFirstUpdate(benchmark::State& state) {
  sepp::fake::FakeProvider fake;
  if (!fake.Start().ok()) return state.SkipWithError("fake provider did not start");
  fake.SetScript(Repeat({{"text", "hello"}}, 100000));
  Agent agent(fake.base_url());
  for (auto _ : state) state.SetIterationTime(agent.Prompt("hi"));
}
BENCHMARK(BM_PromptToFirstUpdate)->UseManualTime()->Unit(benchmark::kMicrosecond);

void BM_TurnWithOneToolCall(benchmark::State& state) {
  sepp::fake::FakeProvider fake;
  if (!fake.Start().ok()) return state.SkipWithError("fake provider did not start");
  sepp::Json list = sepp::Json::array();
  for (int i = 0; i < 50000; ++i) {
    list.push_back({{"tool_calls", {{{"name", "read"}, {"arguments", {{"path", "a.txt"}}}}}}});
    list.push_back({{"text", "done"}});
  }
  fake.SetScript({{"responses", list}});
  Agent agent(fake.base_url());
  for (auto _ : state) agent.Prompt("read it");
}
BENCHMARK(BM_TurnWithOneToolCall)->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_IdleRss(benchmark::State& state) {
  sepp::fake::FakeProvider fake;
  if (!fake.Start().ok()) return state.SkipWithError("fake provider did not start");
  Agent agent(fake.base_url());
  long rss = 0;
  for (auto _ : state) rss = agent.RssKb();
  state.counters["rss_kB"] = static_cast<double>(rss);
}
BENCHMARK(BM_IdleRss)->Iterations(1);

// 1,000 prompts in one session: memory should grow only with the session
// (the context and its file), not with the number of turns served.
void BM_RssOver1000Prompts(benchmark::State& state) {
  sepp::fake::FakeProvider fake;
  if (!fake.Start().ok()) return state.SkipWithError("fake provider did not start");
  fake.SetScript(Repeat({{"text", "ok"}}, 2000));
  Agent agent(fake.base_url());
  long after10 = 0, after1000 = 0;
  for (auto _ : state) {
    for (int i = 0; i < 1000; ++i) {
      agent.Prompt("p");
      if (i == 9) after10 = agent.RssKb();
    }
    after1000 = agent.RssKb();
  }
  state.counters["rss_after_10_kB"] = static_cast<double>(after10);
  state.counters["rss_after_1000_kB"] = static_cast<double>(after1000);
}
BENCHMARK(BM_RssOver1000Prompts)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
