// Session store benchmarks (both stores):
//   OpenAndContextPath: open a 10,000-entry session read-only and build the
//     root→leaf path (what `sepp -c` does before the first turn). Target ≤ 50 ms.
//   OpenPathAndPayloads: the same plus parsing every payload on the path.
//   Append: one message appended to an open session (a ~1 KB tool result).
//   Latest / List: finding the newest session of a folder among 200, listing them.
// Entries are a realistic mix: user prompts, assistant turns with thinking and
// a tool call, and tool results of 0.2–4 KB; a few branches along the way.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

#include "base/log.h"
#include "session/store.h"

namespace {

using namespace sepp;
using namespace sepp::session;
namespace fs = std::filesystem;

// A private folder, removed at exit (the path is kept in a plain buffer so
// the atexit handler never touches a destroyed static).
char g_root[4096];

fs::path BenchRoot() {
  if (!g_root[0]) {
    std::string tmpl = (fs::temp_directory_path() / "sepp-bench-session-XXXXXX").string();
    if (tmpl.size() >= sizeof g_root || !::mkdtemp(tmpl.data())) std::abort();
    std::snprintf(g_root, sizeof g_root, "%s", tmpl.c_str());
    std::atexit([] {
      std::error_code ec;
      fs::remove_all(fs::path(g_root), ec);
    });
  }
  return fs::path(g_root);
}

std::string Text(size_t n, int seed) {
  std::string s;
  s.reserve(n);
  static const char* words[] = {"the ", "session ", "store ", "parses ", "each ", "line ",
                                "once; ", "fn(x) ", "{\"k\": 1} ", "\n", "résumé ", "✓ "};
  for (size_t i = 0; s.size() < n; ++i) s += words[(i * 7 + seed) % 12];
  return s;
}

Json Message(int i) {
  switch (i % 3) {
    case 0:
      return Json{{"role", "user"},
                  {"content", Json::array({Json{{"type", "text"}, {"text", Text(200, i)}}})}};
    case 1:
      return Json{{"role", "assistant"},
                  {"model", "claude-sonnet"},
                  {"stop_reason", "tool_use"},
                  {"usage", {{"input", 1200 + i}, {"output", 300}, {"cache_read", 900}, {"cache_write", 0}}},
                  {"content", Json::array({Json{{"type", "thinking"}, {"thinking", Text(300, i)}, {"signature", "sig"}},
                                           Json{{"type", "text"}, {"text", Text(250, i)}},
                                           Json{{"type", "tool_call"}, {"id", "call_" + std::to_string(i)},
                                                {"name", "bash"}, {"arguments", {{"command", "ls -la src/"}}}}})}};
    default:
      return Json{{"role", "tool_result"},
                  {"tool_call_id", "call_" + std::to_string(i - 1)},
                  {"tool_name", "bash"},
                  {"is_error", false},
                  {"content", Json::array({Json{{"type", "text"}, {"text", Text(200 + (i * 37) % 3800, i)}}})}};
  }
}

// One 10,000-entry session per store kind, made once.
const std::string& BigSession(StoreKind kind) {
  static std::map<StoreKind, std::string> ids;
  auto it = ids.find(kind);
  if (it != ids.end()) return it->second;
  auto store = OpenStore(kind, BenchRoot() / std::string(StoreKindName(kind))).value();
  auto s = store->Create(NewSession{"/bench/big", "anthropic", "claude-sonnet", ""}).value();
  std::string branch_from;
  for (int i = 0; i < 10000; ++i) {
    if (i % 1000 == 500) branch_from = s->leaf();
    if (i % 1000 == 520) (void)s->SetLeaf(branch_from);  // abandon 20 entries: a branch
    if (!s->AppendMessage(Message(i)).ok()) std::abort();
  }
  return ids[kind] = s->id();
}

void OpenAndContextPath(benchmark::State& state, StoreKind kind) {
  const std::string& id = BigSession(kind);
  auto store = OpenStore(kind, BenchRoot() / std::string(StoreKindName(kind))).value();
  size_t path = 0, entries = 0;
  for (auto _ : state) {
    auto s = store->Open(id, OpenMode::kReadOnly).value();
    path = s->Path().size();
    entries = s->size();
    benchmark::DoNotOptimize(path);
  }
  state.counters["entries"] = static_cast<double>(entries);
  state.counters["path"] = static_cast<double>(path);
}

// The same, then every payload on the path parsed: the worst case for an
// agent that converts the whole path into model messages (no compaction).
void OpenPathAndPayloads(benchmark::State& state, StoreKind kind) {
  const std::string& id = BigSession(kind);
  auto store = OpenStore(kind, BenchRoot() / std::string(StoreKindName(kind))).value();
  for (auto _ : state) {
    auto s = store->Open(id, OpenMode::kReadOnly).value();
    size_t n = 0;
    for (const Entry* e : s->Path()) n += e->data().size();
    benchmark::DoNotOptimize(n);
  }
}

void Append(benchmark::State& state, StoreKind kind) {
  auto store = OpenStore(kind, BenchRoot() / (std::string(StoreKindName(kind)) + "-append")).value();
  auto s = store->Create(NewSession{"/bench/append", "anthropic", "claude-sonnet", ""}).value();
  Json message = Message(2);
  for (auto _ : state) {
    if (!s->AppendMessage(message).ok()) state.SkipWithError("append failed");
  }
}

void Latest(benchmark::State& state, StoreKind kind) {
  fs::path root = BenchRoot() / (std::string(StoreKindName(kind)) + "-many");
  auto store = OpenStore(kind, root).value();
  static std::map<StoreKind, bool> made;
  if (!made[kind]) {
    for (int i = 0; i < 200; ++i) {
      auto s = store->Create(NewSession{"/bench/many", "anthropic", "m", ""}).value();
      for (int j = 0; j < 20; ++j) (void)s->AppendMessage(Message(j));
    }
    made[kind] = true;
  }
  for (auto _ : state) benchmark::DoNotOptimize(store->Latest("/bench/many").value());
}

void List(benchmark::State& state, StoreKind kind) {
  fs::path root = BenchRoot() / (std::string(StoreKindName(kind)) + "-many");
  auto store = OpenStore(kind, root).value();
  size_t n = 0;
  for (auto _ : state) n = store->List(std::string("/bench/many")).value().size();
  state.counters["sessions"] = static_cast<double>(n);
}

BENCHMARK_CAPTURE(OpenAndContextPath, jsonl, StoreKind::kJsonl)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(OpenAndContextPath, sqlite, StoreKind::kSqlite)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(OpenPathAndPayloads, jsonl, StoreKind::kJsonl)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(OpenPathAndPayloads, sqlite, StoreKind::kSqlite)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(Append, jsonl, StoreKind::kJsonl)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(Append, sqlite, StoreKind::kSqlite)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(Latest, jsonl, StoreKind::kJsonl)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(Latest, sqlite, StoreKind::kSqlite)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(List, jsonl, StoreKind::kJsonl)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(List, sqlite, StoreKind::kSqlite)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
