// What the interaction layer adds to a keystroke, without a terminal: the
// editor with its undo bookkeeping on a long prompt, the /command list, the
// @file list over a large project (the index is built once; each key
// re-ranks every path), and a Ctrl+R search through a full history.
// Run: build/bench/tui/bench_tui_interaction
#include <benchmark/benchmark.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "front/tui/editor.h"
#include "front/tui/file_index.h"
#include "front/tui/prompt_history.h"
#include "front/tui/slash_commands.h"

namespace sepp::front::tui {
namespace {

namespace fs = std::filesystem;

InputEvent Char(char32_t c) {
  InputEvent e;
  e.codepoint = c;
  return e;
}

void BM_EditorKeyOnA4KBPrompt(benchmark::State& state) {
  Editor ed;
  std::string prompt;
  while (prompt.size() < 4096) prompt += "a line of a long prompt with words in it\n";
  ed.SetText(prompt);
  for (auto _ : state) {
    ed.Handle(Char('x'));
    benchmark::DoNotOptimize(ed.text().size());
  }
}
BENCHMARK(BM_EditorKeyOnA4KBPrompt);

void BM_SlashListWith200Templates(benchmark::State& state) {
  CommandTable t;
  for (const char* n : {"help", "model", "thinking", "compact", "new", "resume", "tree", "fork", "label", "name",
                        "copy", "view", "calls", "export", "quit"})
    t.Add({n, "", "a built-in", {}});
  for (int i = 0; i < 200; ++i) t.Add({"template-" + std::to_string(i), "", "a prompt template", {}});
  for (auto _ : state) benchmark::DoNotOptimize(t.Matching("co").size());
}
BENCHMARK(BM_SlashListWith200Templates);

// A project of state.range(0) files in 3 levels of folders.
class Project {
 public:
  explicit Project(int files) : root_(fs::temp_directory_path() / ("sepp-bench-files-" + std::to_string(std::random_device{}()))) {
    for (int i = 0; i < files; ++i) {
      fs::path dir = root_ / ("module" + std::to_string(i % 40)) / ("part" + std::to_string(i % 7));
      if (i < 280) fs::create_directories(dir);
      std::ofstream(dir / ("source_file_" + std::to_string(i) + ".cc"));
    }
    std::ofstream(root_ / ".gitignore") << "build/\n*.o\n";
  }
  ~Project() { fs::remove_all(root_); }
  const fs::path& root() const { return root_; }

 private:
  fs::path root_;
};

// The first key after '@' ranks every path.
void BM_AtFileFirstKey(benchmark::State& state) {
  Project p(static_cast<int>(state.range(0)));
  FileIndex index(p.root());
  index.paths();  // built on the first '@', not per key
  for (auto _ : state) {
    benchmark::DoNotOptimize(index.Matching("", 50).size());  // '@' alone
    benchmark::DoNotOptimize(index.Matching("s", 50).size());
  }
  state.counters["files"] = static_cast<double>(index.paths().size());
}
BENCHMARK(BM_AtFileFirstKey)->Arg(2000)->Arg(20000)->Unit(benchmark::kMicrosecond);

// "@srcfil12" typed a key at a time: each key looks among the last matches.
// Time / 9 is the cost of one key.
void BM_AtFileTypingNineKeys(benchmark::State& state) {
  Project p(static_cast<int>(state.range(0)));
  FileIndex index(p.root());
  index.paths();
  const std::string query = "srcfil12";
  for (auto _ : state) {
    for (size_t n = 0; n <= query.size(); ++n) benchmark::DoNotOptimize(index.Matching(query.substr(0, n), 50).size());
  }
  state.counters["files"] = static_cast<double>(index.paths().size());
}
BENCHMARK(BM_AtFileTypingNineKeys)->Arg(2000)->Arg(20000)->Unit(benchmark::kMicrosecond);

void BM_AtFileIndexBuild(benchmark::State& state) {
  Project p(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    FileIndex index(p.root());
    benchmark::DoNotOptimize(index.paths().size());
  }
}
BENCHMARK(BM_AtFileIndexBuild)->Arg(20000)->Unit(benchmark::kMillisecond);

void BM_HistorySearchThrough1000(benchmark::State& state) {
  fs::path file = fs::temp_directory_path() / ("sepp-bench-history-" + std::to_string(std::random_device{}()));
  {
    std::ofstream out(file);
    for (int i = 0; i < 1000; ++i) out << "{\"text\":\"prompt number " << i << " about some part of the code\"}\n";
  }
  PromptHistory h(file);
  for (auto _ : state) benchmark::DoNotOptimize(h.Search("nothing matches this", 1000));
  fs::remove(file);
}
BENCHMARK(BM_HistorySearchThrough1000);

}  // namespace
}  // namespace sepp::front::tui

BENCHMARK_MAIN();
