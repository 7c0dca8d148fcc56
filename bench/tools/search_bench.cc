// file_search and content_search on a generated 100,000-file tree (5,000
// folders, ~1 KB files, 100 of them holding a rare token, committed to git),
// against the peers' pipelines measured in the same run when installed:
// `fdfind -u --type f .` (index build), `git ls-files | fzf -f` (fuzzy
// query), `rg -c TOKEN` (rare literal). Prints p50/p95 and the ratios.
//
// Run by hand (not by CI): build/bench/tools/bench_search [files]
// The tree is made under $TMPDIR (about 30 s) and removed at exit, or kept
// in $SEPP_BENCH_TREE for the next run.
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "sandbox/defaults.h"
#include "tools/access.h"
#include "tools/git_index.h"
#include "tools/walk.h"
#include "tools/search_tools.h"
#include "tools/tool.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

const char* const kWords[] = {"session", "index", "parser", "token", "stream", "buffer", "config",
                              "worker", "sandbox", "policy", "render", "event", "store", "agent",
                              "client", "server", "proxy", "cache", "query", "schema", "driver",
                              "model", "view", "route", "handler", "codec", "frame", "socket"};
constexpr int kWordCount = sizeof(kWords) / sizeof(kWords[0]);
const char* const kExts[] = {".cc", ".h", ".rs", ".ts", ".py", ".go", ".md", ".json"};

double Ms(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// The process's CPU time in ms (all threads: a large query is scored on
// two): on a loaded machine the wall time of a call is mostly waiting for a
// core, its CPU time is what the call costs.
double CpuMs() {
  timespec t{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

double Pct(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  size_t i = std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5));
  return v[i];
}

bool Have(const char* tool) {
  std::string cmd = std::string("command -v ") + tool + " >/dev/null 2>&1";
  return std::system(cmd.c_str()) == 0;
}

// Runs a shell command n times in root; the times in ms.
std::vector<double> TimeShell(const fs::path& root, const std::string& cmd, int n) {
  std::vector<double> out;
  std::string full = "cd '" + root.string() + "' && " + cmd + " >/dev/null 2>&1";
  for (int i = 0; i < n; ++i) {
    auto a = Clock::now();
    int rc = std::system(full.c_str());
    (void)rc;
    out.push_back(Ms(a, Clock::now()));
  }
  return out;
}

void Row(const char* what, const std::vector<double>& sepp, const char* peer_name,
         const std::vector<double>& peer) {
  std::printf("%-44s p50 %8.2f ms  p95 %8.2f ms", what, Pct(sepp, 0.5), Pct(sepp, 0.95));
  if (!peer.empty())
    std::printf("   | %-28s p50 %8.1f ms  ratio %.1fx", peer_name, Pct(peer, 0.5),
                Pct(peer, 0.5) / Pct(sepp, 0.5));
  else if (peer_name)
    std::printf("   | %s not installed", peer_name);
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  int files = argc > 1 ? std::atoi(argv[1]) : 100'000;
  int dirs = std::max(1, files / 20);
  // SEPP_BENCH_TREE=DIR keeps the tree there for the next run (made once:
  // the same names from the same seed), for runs side by side.
  const char* keep = std::getenv("SEPP_BENCH_TREE");
  fs::path root;
  if (keep && *keep) {
    root = keep;
    fs::create_directories(root);
  } else {
    std::string tmpl = (fs::temp_directory_path() / "sepp-bench-search-XXXXXX").string();
    root = ::mkdtemp(tmpl.data());
  }
  bool reuse = fs::exists(root / ".sepp-bench-tree");
  std::printf("%s %d files in %d folders under %s ...\n", reuse ? "reusing" : "generating", files, dirs,
              root.c_str());
  std::mt19937 rng(42);
  std::vector<std::string> dir_names;
  for (int d = 0; d < dirs; ++d) {
    std::string name = std::string(kWords[d % kWordCount]) + "/" + kWords[(d / kWordCount) % kWordCount] +
                       "_" + std::to_string(d);
    if (!reuse) fs::create_directories(root / name);
    dir_names.push_back(name);
  }
  std::vector<std::string> paths;
  std::string body;
  for (int f = 0; f < files; ++f) {
    std::string name = dir_names[f % dirs] + "/" + kWords[rng() % kWordCount] + "_" +
                       kWords[rng() % kWordCount] + std::to_string(f) + kExts[rng() % 8];
    body.clear();
    while (body.size() < 1000) body += std::string(kWords[rng() % kWordCount]) + (rng() % 8 ? " " : "\n");
    if (f % 1000 == 500) body += "\nrare_quokka_token here\n";
    if (!reuse) std::ofstream(root / name, std::ios::binary) << body;
    paths.push_back(name);
  }
  if (!reuse) {
    std::ofstream(root / ".gitignore") << "*.log\n.sepp-bench-tree\n";
    if (std::system(("cd '" + root.string() + "' && git init -q && git add -A && git -c user.email=b@b "
                     "-c user.name=b commit -q -m tree").c_str()) != 0)
      std::printf("(git commit failed: no git boost in this run)\n");
    if (keep && *keep) std::ofstream(root / ".sepp-bench-tree") << "made by bench_search\n";
  }
  std::system(("cd '" + root.string() + "' && git status >/dev/null").c_str());  // warm the page cache

  sepp::sandbox::Policy policy = sepp::sandbox::DefaultToolPolicy(root);
  sepp::tools::ToolContext ctx;
  ctx.cwd = root;
  ctx.policy = &policy;
  sepp::tools::PathGuard guard(ctx);
  ctx.guard = &guard;  // as the tool worker does: one guard for the session

  // Index build: a fresh tool set per round (the first call builds).
  // build_ms is the walk the index reports; the first call's wall and CPU
  // time also hold reading git's index and the query itself.
  std::vector<double> build, first_call, first_cpu;
  for (int i = 0; i < 5; ++i) {
    sepp::tools::ToolRegistry reg;
    sepp::tools::AddSearchTools(reg);
    auto a = Clock::now();
    double c = CpuMs();
    auto r = sepp::tools::RunTool(*reg.Find("file_search"),
                                  {{"mode", "search"}, {"query", "x"}, {"maxResults", 1}}, ctx);
    first_cpu.push_back(CpuMs() - c);
    first_call.push_back(Ms(a, Clock::now()));
    build.push_back(r.details["index"]["build_ms"].get<double>());
  }
  // Its parts, for where the build goes: the gitignore-aware walk alone,
  // and reading git's index.
  std::vector<double> walk_cpu, git_cpu;
  for (int i = 0; i < 5; ++i) {
    double c = CpuMs();
    size_t n = 0;
    sepp::tools::Walk(root, {}, [&](const sepp::tools::WalkEntry&) { return ++n > 0; });
    walk_cpu.push_back(CpuMs() - c);
    c = CpuMs();
    std::filesystem::path top;
    if (auto file = sepp::tools::FindGitIndexFile(root, &top)) {
      std::ifstream in(*file, std::ios::binary);
      std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      auto parsed = sepp::tools::ParseGitIndex(bytes);
      if (!parsed.ok()) std::printf("git index: %s\n", parsed.error().message.c_str());
    }
    git_cpu.push_back(CpuMs() - c);
  }
  std::vector<double> fd_times;
  if (Have("fdfind")) fd_times = TimeShell(root, "fdfind -u --type f .", 5);
  Row("index build (walk + inotify watches)", build, "fdfind -u --type f .", fd_times);
  Row("first call (build + git index + query)", first_call, nullptr, {});
  Row("first call: CPU time", first_cpu, nullptr, {});
  Row("  of it: the walk alone, CPU time", walk_cpu, nullptr, {});
  Row("  of it: parsing git's index, CPU time", git_cpu, nullptr, {});

  sepp::tools::ToolRegistry reg;
  sepp::tools::AddSearchTools(reg);
  auto* fsearch = reg.Find("file_search");
  auto* csearch = reg.Find("content_search");
  (void)sepp::tools::RunTool(*fsearch, {{"mode", "search"}, {"query", "warm"}}, ctx);
  // Queries: abbreviations of real names, some with a typo.
  std::vector<std::string> queries;
  for (int i = 0; i < 200; ++i) {
    const std::string& p = paths[rng() % paths.size()];
    std::string name = p.substr(p.rfind('/') + 1);
    std::string q = name.substr(0, 4) + name.substr(name.find('_') + 1, 3) + std::to_string(i % 10);
    if (i % 3 == 0 && q.size() > 5) std::swap(q[2], q[3]);  // a transposition
    queries.push_back(q);
  }
  // SEPP_BENCH_ROUNDS=N asks the 200 queries N times (to profile the warm
  // path); SEPP_BENCH_SKIP_CONTENT=1 leaves content_search out.
  const char* rounds_env = std::getenv("SEPP_BENCH_ROUNDS");
  const int rounds = rounds_env ? std::max(1, std::atoi(rounds_env)) : 1;
  std::vector<double> warm, warm_cpu;
  std::vector<double> matched;  // total_matched per query: how many paths were scored
  for (int round = 0; round < rounds; ++round)
    for (const auto& q : queries) {
      auto a = Clock::now();
      double c = CpuMs();
      auto r = sepp::tools::RunTool(*fsearch, {{"mode", "search"}, {"query", q}, {"maxResults", 20}}, ctx);
      warm_cpu.push_back(CpuMs() - c);
      warm.push_back(Ms(a, Clock::now()));
      if (r.is_error) std::printf("error: %s\n", r.text.c_str());
      else matched.push_back(r.details["result"]["total_matched"].get<double>());
    }
  std::vector<double> fzf;
  if (Have("fzf"))
    for (int i = 0; i < 10; ++i) {
      auto t = TimeShell(root, "git ls-files | fzf -f " + queries[i] + " | head -20", 1);
      fzf.push_back(t[0]);
    }
  Row("file_search warm, top 20", warm, "git ls-files | fzf -f", fzf);
  Row("file_search warm, top 20: CPU time", warm_cpu, nullptr, {});
  if (!matched.empty())
    std::printf("  paths matched per query: p50 %.0f, p95 %.0f\n", Pct(matched, 0.5), Pct(matched, 0.95));

  const char* skip_content = std::getenv("SEPP_BENCH_SKIP_CONTENT");
  if (!skip_content || std::string(skip_content) != "1") {
    auto a = Clock::now();
    auto cold = sepp::tools::RunTool(*csearch, {{"query", "rare_quokka_token"}}, ctx);
    double cold_ms = Ms(a, Clock::now());
    std::vector<double> cwarm;
    size_t found = 0;
    for (int i = 0; i < 20; ++i) {
      auto b = Clock::now();
      auto r = sepp::tools::RunTool(*csearch, {{"query", "rare_quokka_token"}}, ctx);
      cwarm.push_back(Ms(b, Clock::now()));
      found = r.details["result"]["total_matched"].get<size_t>();
    }
    std::vector<double> rg;
    if (Have("rg")) rg = TimeShell(root, "rg -c rare_quokka_token", 3);
    std::printf("content_search first call (reads every file): %.1f ms; %zu matches\n", cold_ms, found);
    Row("content_search rare literal, warm", cwarm, "rg -c (page cache warm)", rg);
    std::vector<double> regex;
    for (int i = 0; i < 3; ++i) {
      auto b = Clock::now();
      (void)sepp::tools::RunTool(*csearch, {{"query", "rare_qu[o]kka"}, {"match", "regex"}}, ctx);
      regex.push_back(Ms(b, Clock::now()));
    }
    Row("content_search regex (no prefilter)", regex, nullptr, {});
  }

  if (!(keep && *keep)) {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  return 0;
}
