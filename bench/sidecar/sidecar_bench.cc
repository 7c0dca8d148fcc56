// The output sidecar and durable memory, one run:
//   store    Sidecar::Capture of a fresh 256 KiB log (redact, hash, chunk,
//            insert + FTS5 triggers, one transaction) into a store already
//            holding 200 such sources (about 13,000 chunks), p50/p95
//   search   context_search's query for a rare term and for two common
//            terms (bm25(5,1), top 5, scope join), p50/p95
//   get      one chunk with 3 neighbours each side, p50/p95
//   export   the whole source read back and its sha256 checked, p50
//   memory   memory_search (BM25, top 5) over 100,000 memories of one
//            project, natural-language queries of 3-5 words, p50/p95
// The study's baseline (pi-context's schema and chunker in Python's
// sqlite3, sage.md §10) runs in the same process tree when python3 is
// there: baseline.py. Usage: bench_sidecar [memories]
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "base/ids.h"
#include "base/sha256.h"
#include "memory/store.h"
#include "sidecar/sidecar.h"
#include "sidecar/store.h"

using namespace sepp;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

namespace {

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

double Pct(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * v.size()))];
}

const char* kWords[] = {"compiling", "module",  "linking", "warning", "error",   "test",
                        "passed",    "failed",  "cache",   "object",  "source",  "header",
                        "template",  "inline",  "static",  "thread",  "socket",  "buffer",
                        "request",   "response", "timeout", "retry",  "parser",  "token"};

// A build-log-like text of about bytes, with numbered lines and paragraphs.
std::string Log(size_t bytes, std::mt19937& rng, int tag) {
  std::string s;
  int line = 0;
  while (s.size() < bytes) {
    s += "[" + std::to_string(tag) + ":" + std::to_string(++line) + "] ";
    int n = 6 + static_cast<int>(rng() % 8);
    for (int i = 0; i < n; ++i) s += std::string(kWords[rng() % 24]) + " ";
    s += "src/unit_" + std::to_string(rng() % 5000) + ".cc\n";
    if (line % 40 == 0) s += "\n";
  }
  return s;
}

// The process's CPU time in ms: on a loaded machine wall time is mostly
// waiting for a core; CPU time is what an operation costs.
double CpuMs() {
  timespec t{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

struct Stat {
  double p50, p95, cpu50, cpu95;
};

template <typename F>
Stat Time(int n, F f) {
  std::vector<double> ms, cpu;
  for (int i = 0; i < n; ++i) {
    auto t0 = Clock::now();
    double c0 = CpuMs();
    f(i);
    cpu.push_back(CpuMs() - c0);
    ms.push_back(Ms(Clock::now() - t0));
  }
  return {Pct(ms, 0.5), Pct(ms, 0.95), Pct(cpu, 0.5), Pct(cpu, 0.95)};
}

}  // namespace

int main(int argc, char** argv) {
  int memories = argc > 1 ? std::atoi(argv[1]) : 100000;
  fs::path dir = fs::temp_directory_path() / ("sepp-bench-sidecar-" + ShortId());
  fs::create_directories(dir);
  std::mt19937 rng(42);

  // --- sidecar
  auto store = sidecar::Store::Open(dir / "context.db", sidecar::Retention{0, 0});
  if (!store.ok()) {
    std::fprintf(stderr, "%s\n", store.error().message.c_str());
    return 1;
  }
  std::shared_ptr<sidecar::Store> shared = std::move(*store);
  sidecar::Sidecar sc(shared, "/bench/project", [] { return std::string("bench-session"); }, dir);
  for (int i = 0; i < 200; ++i) {
    std::string text = Log(256 * 1024, rng, i);
    if (i == 100) text.insert(text.find('\n', text.size() / 2) + 1, "zebra_rare_marker_7q appears once here\n");
    (void)sc.Capture("bash", Json::object(), text, "");
  }
  std::vector<std::string> fresh;
  for (int i = 0; i < 40; ++i) fresh.push_back(Log(256 * 1024, rng, 1000 + i));
  std::string last_receipt;
  Stat put = Time(40, [&](int i) { last_receipt = *sc.Capture("bash", Json::object(), fresh[i], ""); });
  sidecar::Scope scope = sc.scope();
  sidecar::SearchOptions so;
  size_t found = 0;
  Stat rare = Time(200, [&](int) { found = shared->Search(scope, "zebra_rare_marker_7q", so)->size(); });
  if (found != 1) std::fprintf(stderr, "rare term: %zu hits (expected 1)\n", found);
  Stat common = Time(50, [&](int) { (void)shared->Search(scope, "linking timeout", so); });
  size_t at = last_receipt.find("Source: ");
  std::string id = last_receipt.substr(at + 8, last_receipt.find('\n', at) - at - 8);
  Stat get = Time(200, [&](int i) { (void)shared->Chunks(scope, id, 10 + i % 40, 16 + i % 40, false); });
  bool verified = false;
  Stat exp = Time(20, [&](int) {
    auto src = shared->Source(scope, id, false);
    auto chunks = shared->Chunks(scope, id, 1, (*src)->chunk_count, false);
    Sha256 h;
    for (const auto& c : *chunks) h.Update(c.content);
    verified = h.HexDigest() == (*src)->content_hash;
  });

  // --- memory
  auto mem = memory::Store::Open(dir / "memory.db");
  if (!mem.ok()) {
    std::fprintf(stderr, "%s\n", mem.error().message.c_str());
    return 1;
  }
  memory::MemoryView view{"bench", "git:bench", "s"};
  const char* nouns[] = {"build", "editor", "deploy", "database", "branch", "review", "test",
                         "style", "server", "client", "cache",  "token",    "parser", "docs",
                         "release", "script", "config", "schema", "index",  "queue"};
  const char* verbs[] = {"uses", "prefers", "needs", "avoids", "runs", "keeps", "breaks", "ships"};
  std::vector<std::string> texts;
  texts.reserve(memories);
  for (int i = 0; i < memories; ++i) {
    std::string t = "The " + std::string(nouns[rng() % 20]) + " " + verbs[rng() % 8] + " " +
                    nouns[rng() % 20] + " " + std::to_string(rng() % 100000) + " with " +
                    nouns[rng() % 20] + " and " + nouns[rng() % 20] + " fact" + std::to_string(i) +
                    " topic" + std::to_string(i % 120);  // ~833 each: under RareFtsTerms' 1,000
    texts.push_back(std::move(t));
  }
  auto t0 = Clock::now();
  if (auto st = (*mem)->AddMany(view, "project", texts); !st.ok()) {
    std::fprintf(stderr, "%s\n", st.error().message.c_str());
    return 1;
  }
  double fill = Ms(Clock::now() - t0);
  std::vector<std::string> queries;
  for (int i = 0; i < 200; ++i)
    queries.push_back("what does the " + std::string(nouns[rng() % 20]) + " " + verbs[rng() % 8] +
                      " for fact" + std::to_string(rng() % memories));
  size_t hits = 0;
  Stat msearch = Time(200, [&](int i) { hits += (*mem)->Search(view, queries[i], {})->size(); });
  Stat mrare = Time(200, [&](int i) { hits += (*mem)->Search(view, "fact" + std::to_string(i * 37 % memories), {})->size(); });
  // The classes that could make a tail: five words each in ~833 memories
  // (all under the common cut, so all OR'd: ~4,000 rows to rank), and
  // only common words (all AND'd).
  Stat mmany = Time(100, [&](int i) {
    std::string q;
    for (int w = 0; w < 5; ++w) q += "topic" + std::to_string((i * 7 + w * 23) % 120) + " ";
    hits += (*mem)->Search(view, q, {})->size();
  });
  Stat mcommon = Time(100, [&](int i) {
    hits += (*mem)->Search(view, "the " + std::string(nouns[i % 20]) + " and the " + nouns[(i + 7) % 20], {})->size();
  });

  std::printf("| measure | sepp p50 | sepp p95 | sepp CPU p50 / p95 | target | study baseline |\n|---|---|---|---|---|---|\n");
  std::printf("| sidecar store 256 KiB (200 sources stored) | %.2f ms | %.2f ms | %.2f / %.2f ms | <= 15 ms | 19.0 ms p50 / 43.5 ms p95 |\n", put.p50, put.p95, put.cpu50, put.cpu95);
  std::printf("| context_search rare term | %.3f ms | %.3f ms | %.2f / %.2f ms | <= 5 ms p95 | 1.6-2.0 ms |\n", rare.p50, rare.p95, rare.cpu50, rare.cpu95);
  std::printf("| context_search two common terms | %.2f ms | %.2f ms | %.2f / %.2f ms | <= 20 ms | 58.7 ms |\n", common.p50, common.p95, common.cpu50, common.cpu95);
  std::printf("| context_get chunk +-3 | %.3f ms | %.3f ms | %.2f / %.2f ms | <= 1 ms | - |\n", get.p50, get.p95, get.cpu50, get.cpu95);
  std::printf("| context_export read + sha256 (256 KiB) | %.2f ms | %.2f ms | %.2f / %.2f ms | lossless | verified=%s |\n", exp.p50, exp.p95, exp.cpu50, exp.cpu95, verified ? "yes" : "NO");
  std::printf("| memory_search BM25, %d memories, 5-word query | %.3f ms | %.3f ms | %.2f / %.2f ms | <= 10 ms p95 | - |\n", memories, msearch.p50, msearch.p95, msearch.cpu50, msearch.cpu95);
  std::printf("| memory_search BM25, %d memories, one rare word | %.3f ms | %.3f ms | %.2f / %.2f ms | <= 10 ms p95 | - |\n", memories, mrare.p50, mrare.p95, mrare.cpu50, mrare.cpu95);
  std::printf("| memory_search BM25, %d memories, 5 words each in ~833 | %.3f ms | %.3f ms | %.2f / %.2f ms | <= 10 ms p95 | - |\n", memories, mmany.p50, mmany.p95, mmany.cpu50, mmany.cpu95);
  std::printf("| memory_search BM25, %d memories, only common words | %.3f ms | %.3f ms | %.2f / %.2f ms | <= 10 ms p95 | - |\n", memories, mcommon.p50, mcommon.p95, mcommon.cpu50, mcommon.cpu95);
  std::printf("(filling %d memories: %.0f ms; %zu hits)\n", memories, fill, hits);

  std::string py = std::string("python3 ") + SEPP_BENCH_DIR + "/baseline.py " + dir.string() + "/baseline.db";
  std::fflush(stdout);
  if (std::system("command -v python3 >/dev/null") == 0) (void)std::system(py.c_str());
  fs::remove_all(dir);
  return 0;
}
