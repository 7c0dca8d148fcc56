// What redacting across chunk boundaries costs against redacting a whole
// text once: the same 1 MiB (with a secret every 64 KiB), three secrets.
#include <benchmark/benchmark.h>

#include "base/secrets.h"
#include "base/stream_redactor.h"

namespace {

const std::string& Text() {
  static const std::string text = [] {
    sepp::RegisterSecret("sk-bench-0123456789abcdef0123456789abcdef");
    sepp::RegisterSecret("ghp_benchbenchbenchbenchbench0000");
    sepp::RegisterSecret("another-secret-value-42");
    std::string t;
    while (t.size() < (1u << 20)) {
      t += "line of ordinary command output, nothing secret in it at all\n";
      if (t.size() % 65536 < 64) t += "token=sk-bench-0123456789abcdef0123456789abcdef\n";
    }
    return t;
  }();
  return text;
}

void BM_RedactWhole(benchmark::State& state) {
  const std::string& text = Text();
  for (auto _ : state) benchmark::DoNotOptimize(sepp::Redact(text));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}

void BM_StreamRedactor(benchmark::State& state) {
  const std::string& text = Text();
  const size_t chunk = static_cast<size_t>(state.range(0));
  for (auto _ : state) {
    sepp::StreamRedactor r;
    size_t out = 0;
    for (size_t i = 0; i < text.size(); i += chunk) out += r.Push(std::string_view(text).substr(i, chunk)).size();
    out += r.Flush().size();
    benchmark::DoNotOptimize(out);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}

BENCHMARK(BM_RedactWhole);
BENCHMARK(BM_StreamRedactor)->Arg(4096)->Arg(12);

}  // namespace

BENCHMARK_MAIN();
