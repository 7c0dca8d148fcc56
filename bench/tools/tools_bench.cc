// grep and find over a generated source tree, and `grep -rn` as the yardstick.
//
// The tree: 200 folders x 100 files of about 4 KB of code-like text (80 MB),
// a rare "needle" in 1% of the files, a .gitignore'd node_modules with 2,000
// more files that the tools skip and grep -r is told to skip. Built once per
// run under $TMPDIR and removed at exit.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "tools/tool.h"

namespace {

namespace fs = std::filesystem;

struct Tree {
  fs::path root;
  Tree() {
    std::string tmpl = (fs::temp_directory_path() / "sepp-bench-tools-XXXXXX").string();
    root = ::mkdtemp(tmpl.data());
    fs::create_directories(root / ".git");
    std::ofstream(root / ".gitignore") << "node_modules/\n*.log\n";
    std::mt19937 rng(7);
    const char* words[] = {"int", "return", "value", "buffer", "const", "auto", "for", "while",
                           "std::string", "foo_12bar", "context", "result", "if", "else"};
    auto make_file = [&](const fs::path& p, bool needle) {
      std::string text;
      while (text.size() < 4000) {
        int n = 4 + static_cast<int>(rng() % 8);
        text += "  ";
        for (int i = 0; i < n; ++i) text += std::string(words[rng() % 14]) + " ";
        text += ";\n";
      }
      if (needle) text += "  // needle: the rare line\n";
      std::ofstream(p, std::ios::binary) << text;
    };
    for (int d = 0; d < 200; ++d) {
      fs::path dir = root / "src" / ("mod" + std::to_string(d));
      fs::create_directories(dir);
      for (int f = 0; f < 100; ++f)
        make_file(dir / ("file" + std::to_string(f) + (f % 2 ? ".cc" : ".h")), (d * 100 + f) % 100 == 7);
    }
    for (int f = 0; f < 2000; ++f) {
      fs::path dir = root / "node_modules" / ("pkg" + std::to_string(f / 100));
      fs::create_directories(dir);
      make_file(dir / ("index" + std::to_string(f) + ".js"), true);
    }
  }
  ~Tree() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
};

Tree& GetTree() {
  static Tree tree;
  return tree;
}

void RunTool(benchmark::State& state, const char* tool_name, const sepp::Json& args) {
  Tree& tree = GetTree();
  auto reg = sepp::tools::MakeBuiltinTools();
  sepp::tools::Tool* tool = reg->Find(tool_name);
  sepp::tools::ToolContext ctx;
  ctx.cwd = tree.root;
  size_t bytes = 0;
  for (auto _ : state) {
    auto r = tool->Run(args, ctx);
    if (r.is_error) state.SkipWithError(r.text.c_str());
    bytes += r.text.size();
    benchmark::DoNotOptimize(r);
  }
  state.counters["out_bytes"] = static_cast<double>(bytes) / static_cast<double>(state.iterations());
}

void BM_GrepToolLiteral(benchmark::State& state) {
  RunTool(state, "grep", {{"pattern", "needle"}, {"literal", true}, {"limit", 1000}});
}
void BM_GrepToolRegex(benchmark::State& state) {
  RunTool(state, "grep", {{"pattern", "need[l]e: \\w+"}, {"limit", 1000}});
}
void BM_GrepToolIgnoreCase(benchmark::State& state) {
  RunTool(state, "grep", {{"pattern", "NEEDLE"}, {"ignore_case", true}, {"limit", 1000}});
}
void BM_FindTool(benchmark::State& state) { RunTool(state, "find", {{"pattern", "src/**/*.cc"}, {"limit", 100000}}); }

void RunShell(benchmark::State& state, const std::string& cmd) {
  Tree& tree = GetTree();
  std::string full = "cd '" + tree.root.string() + "' && " + cmd + " > /dev/null";
  for (auto _ : state) {
    int rc = std::system(full.c_str());
    benchmark::DoNotOptimize(rc);
  }
}

void BM_GrepRLiteral(benchmark::State& state) {
  RunShell(state, "LC_ALL=C grep -rnF --exclude-dir=.git --exclude-dir=node_modules needle .");
}
void BM_GrepRRegex(benchmark::State& state) {
  RunShell(state, "LC_ALL=C grep -rnP --exclude-dir=.git --exclude-dir=node_modules 'need[l]e: \\w+' .");
}
void BM_GrepRIgnoreCase(benchmark::State& state) {
  RunShell(state, "LC_ALL=C grep -rni --exclude-dir=.git --exclude-dir=node_modules NEEDLE .");
}
void BM_FindCommand(benchmark::State& state) {
  RunShell(state, "find src -name '*.cc'");
}

BENCHMARK(BM_GrepToolLiteral)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GrepRLiteral)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GrepToolRegex)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GrepRRegex)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GrepToolIgnoreCase)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GrepRIgnoreCase)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FindTool)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FindCommand)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
