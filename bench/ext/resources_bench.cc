// Start-up cost of tier 1: LoadResources (every skill and template folder
// of a project and a home) plus the catalog for the system prompt, with
// 200 skills and 100 templates against none. The difference of the two is
// what a session's start-up pays.
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "ext/resources.h"
#include "ext/skills/skill_catalog.h"

namespace {
namespace fs = std::filesystem;

struct Tree {
  fs::path root, full, empty;
  Tree() {
    char tmpl[] = "/tmp/sepp-bench-ext-XXXXXX";
    root = mkdtemp(tmpl);
    full = root / "full";
    empty = root / "empty";
    fs::create_directories(empty);
    fs::create_directories(root / "home");
    fs::create_directories(root / "empty-home");
    for (int i = 0; i < 200; ++i) {
      // Half in the project's folders, half in the user's; a realistic body.
      fs::path dir = (i % 2 ? full / ".agents/skills" : root / "home/.claude/skills") /
                     ("skill-" + std::to_string(i));
      fs::create_directories(dir / "scripts");
      std::ofstream(dir / "SKILL.md")
          << "---\nname: skill-" << i << "\ndescription: Does task number " << i
          << " of the project. Use when the user asks for task " << i
          << ".\nlicense: MIT\nallowed-tools: Bash(git:*) Read\nmetadata:\n  author: bench\n"
          << "---\n# Skill " << i << "\n\n" << std::string(3000, 'x') << "\n";
      std::ofstream(dir / "scripts/run.sh") << "echo " << i << "\n";
    }
    for (int i = 0; i < 100; ++i) {
      fs::path dir = i % 2 ? full / ".sepp/prompts" : full / ".claude/commands";
      fs::create_directories(dir);
      std::ofstream(dir / ("prompt-" + std::to_string(i) + ".md"))
          << "---\ndescription: Template " << i << "\nargument-hint: <path>\n---\nDo $1 for "
          << i << ".\n" << std::string(1000, 'y') << "\n";
    }
  }
  ~Tree() { fs::remove_all(root); }
};

Tree& T() {
  static Tree t;
  return t;
}

// The project in cwd, the user's folders in home.
void Load(benchmark::State& state, const fs::path& cwd, const fs::path& home) {
  setenv("HOME", home.c_str(), 1);
  setenv("SEPP_HOME", (home / ".sepp").c_str(), 1);
  size_t n = 0;
  for (auto _ : state) {
    sepp::ext::Resources r = sepp::ext::LoadResources(cwd);
    std::string catalog = sepp::ext::SkillCatalogPrompt(*r.skills);
    n = r.skills->skills.size() + r.commands.List().size();
    benchmark::DoNotOptimize(catalog);
  }
  state.counters["skills+commands"] = static_cast<double>(n);
}

void BM_StartUpEmpty(benchmark::State& state) { Load(state, T().empty, T().root / "empty-home"); }
void BM_StartUp200Skills100Templates(benchmark::State& state) {
  Load(state, T().full, T().root / "home");
}

}  // namespace

BENCHMARK(BM_StartUpEmpty)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_StartUp200Skills100Templates)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
