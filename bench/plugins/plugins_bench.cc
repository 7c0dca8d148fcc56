// What sepp adds to a plugin's tool call, against the plugin's own work
// (ratios in one run; docs/plugins.md has the table):
//
//   BM_ToolCall/tool   PluginTool::Run → Plugin::CallTool: the lock, the
//                      input JSON, fuel refill, the deadline watchdog, the
//                      output parse, truncation
//   BM_ToolCall/bare   the same export called on the same module with the
//                      same host functions and a ready input, nothing else
//   -> the difference is the overhead per call (target <= 50 us)
//   BM_ToolCall/wasi_tool, /wasi_bare: the same pair for a wasi-libc plugin
//                      (examples/plugins/word-count: fopen, fgetc, fclose of
//                      a small file through the WASI preopen each call), so
//                      the descriptor table and the stdio flush are counted
#include <benchmark/benchmark.h>

#include <filesystem>

#include "base/file.h"
#include "base/sha256.h"
#include "ext/plugins/abi.h"
#include "ext/plugins/plugins.h"
#include "support/build_wasm_plugin.h"
#include "wasm/decoder.h"

namespace {
namespace fs = std::filesystem;
using namespace sepp;
using namespace sepp::ext::plugins;

struct Case {
  const char* name;      // the plugin's and its tool's
  const char* tool;
  fs::path source;
  bool wasi;
  Json args;
  const char* expect;    // in the output
};

const Case& Hello() {
  static const Case c{"hello", "greet", fs::path(SEPP_SOURCE_DIR) / "examples/plugins/hello/hello.c", false,
                      {{"name", "Grace"}}, "Hello, Grace"};
  return c;
}
const Case& WordCount() {
  static const Case c{"word-count", "count_words",
                      fs::path(SEPP_SOURCE_DIR) / "examples/plugins/word-count/word_count.c", true,
                      {{"path", "poem.txt"}}, "3 lines, 8 words"};
  return c;
}

const fs::path& Workspace() {
  static const fs::path ws = [] {
    fs::path p = fs::temp_directory_path() / "sepp-bench-plugins-ws";
    fs::create_directories(p);
    (void)WriteFileAtomic(p / "poem.txt", "so much depends\nupon\na red wheel barrow\n", 0644);
    return p;
  }();
  return ws;
}

fs::path Wasm(const Case& c) {
  fs::path out = fs::temp_directory_path() / (std::string("sepp-bench-") + c.name + ".wasm");
  std::string err = c.wasi ? testing_support::BuildWasiCPlugin(c.source, out)
                           : testing_support::BuildWasmPlugin(c.source, out);
  if (!err.empty()) {
    std::fprintf(stderr, "%s\n", err.c_str());
    std::exit(1);
  }
  return out;
}

sepp::ext::Capabilities Grants(const Case& c) {
  sepp::ext::Capabilities caps;
  if (c.wasi) caps.fs_read = {"./"};
  return caps;
}

void ToolCall(benchmark::State& state, const Case& c) {
  fs::path wasm = Wasm(c);
  std::string bytes = *ReadFile(wasm);
  PluginManifest m;
  m.name = c.name;
  m.version = "1";
  m.wasm = wasm;
  m.sha256 = Sha256Hex(bytes);
  m.capabilities = Grants(c);
  auto plugin = Plugin::Load(m, bytes, Workspace());
  if (!plugin.ok()) return state.SkipWithError(plugin.error().message.c_str());
  auto tool = MakePluginTool(*plugin, (*plugin)->tools()[0]);
  Json args = c.args;
  tools::ToolContext ctx;
  CancelToken cancel;
  ctx.cancel = &cancel;
  ctx.call_id = "toolu_0123456789";
  std::string last;
  for (auto _ : state) {
    auto r = tool->Run(args, ctx);
    last = r.text;
    benchmark::DoNotOptimize(r);
  }
  if (last.find(c.expect) == std::string::npos) state.SkipWithError(("wrong output: " + last).c_str());
}

void ToolCallBare(benchmark::State& state, const Case& c) {
  std::string bytes = *ReadFile(Wasm(c));
  auto module = wasm::DecodeModule(std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
  HostEnv env;
  env.workspace = Workspace();
  env.granted = Grants(c);
  env.wasi = std::make_unique<WasiFiles>(env);
  wasm::Linker linker;
  DefineHost(linker, &env);
  wasm::Store store;
  CallIo io;
  env.io = &io;
  auto inst = linker.Instantiate(store, *module);
  if (!inst.ok()) return state.SkipWithError(inst.error().message.c_str());
  if (wasm::Function* init = (*inst)->GetFunc("_initialize")) (void)store.Call(init, {});
  wasm::Function* f = (*inst)->GetFunc("sepp_call_tool");
  io.input = DumpJson(Json{{"name", c.tool}, {"call_id", "toolu_0123456789"},
                           {"args", c.args}, {"cwd", env.workspace.string()}});
  for (auto _ : state) {
    io.output.clear();
    io.log.clear();
    io.log_bytes = 0;
    auto r = store.Call(f, {});
    benchmark::DoNotOptimize(r);
  }
  if (io.output.find(c.expect) == std::string::npos) state.SkipWithError(("wrong output: " + io.output).c_str());
}

void BM_ToolCallTool(benchmark::State& state) { ToolCall(state, Hello()); }
void BM_ToolCallBare(benchmark::State& state) { ToolCallBare(state, Hello()); }
void BM_ToolCallWasiTool(benchmark::State& state) { ToolCall(state, WordCount()); }
void BM_ToolCallWasiBare(benchmark::State& state) { ToolCallBare(state, WordCount()); }
BENCHMARK(BM_ToolCallTool)->Name("BM_ToolCall/tool");
BENCHMARK(BM_ToolCallBare)->Name("BM_ToolCall/bare");
BENCHMARK(BM_ToolCallWasiTool)->Name("BM_ToolCall/wasi_tool");
BENCHMARK(BM_ToolCallWasiBare)->Name("BM_ToolCall/wasi_bare");

}  // namespace

BENCHMARK_MAIN();
