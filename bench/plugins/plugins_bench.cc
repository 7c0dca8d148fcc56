// What sepp adds to a plugin's tool call, against the plugin's own work
// (ratios in one run; docs/plugins.md has the table):
//
//   BM_ToolCall/tool   PluginTool::Run → Plugin::CallTool: the lock, the
//                      input JSON, fuel refill, the deadline watchdog, the
//                      output parse, truncation
//   BM_ToolCall/bare   the same export called on the same module with the
//                      same host functions and a ready input, nothing else
//   -> the difference is the overhead per call (target <= 50 us)
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

const fs::path& Wasm() {
  static const fs::path path = [] {
    fs::path out = fs::temp_directory_path() / "sepp-bench-hello.wasm";
    std::string err = testing_support::BuildWasmPlugin(
        fs::path(SEPP_SOURCE_DIR) / "examples/plugins/hello/hello.c", out);
    if (!err.empty()) {
      std::fprintf(stderr, "%s\n", err.c_str());
      std::exit(1);
    }
    return out;
  }();
  return path;
}

void BM_ToolCallTool(benchmark::State& state) {
  std::string bytes = *ReadFile(Wasm());
  PluginManifest m;
  m.name = "hello";
  m.version = "1";
  m.wasm = Wasm();
  m.sha256 = Sha256Hex(bytes);
  auto plugin = Plugin::Load(m, bytes, fs::temp_directory_path());
  if (!plugin.ok()) return state.SkipWithError(plugin.error().message.c_str());
  auto tool = MakePluginTool(*plugin, (*plugin)->tools()[0]);
  Json args = {{"name", "Grace"}};
  tools::ToolContext ctx;
  CancelToken cancel;
  ctx.cancel = &cancel;
  ctx.call_id = "toolu_0123456789";
  for (auto _ : state) {
    auto r = tool->Run(args, ctx);
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_ToolCallTool)->Name("BM_ToolCall/tool");

void BM_ToolCallBare(benchmark::State& state) {
  std::string bytes = *ReadFile(Wasm());
  auto module = wasm::DecodeModule(std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
  HostEnv env;
  env.workspace = fs::temp_directory_path();
  wasm::Linker linker;
  DefineHost(linker, &env);
  wasm::Store store;
  auto inst = linker.Instantiate(store, *module);
  if (!inst.ok()) return state.SkipWithError(inst.error().message.c_str());
  wasm::Function* f = (*inst)->GetFunc("sepp_call_tool");
  CallIo io;
  io.input = DumpJson(Json{{"name", "greet"}, {"call_id", "toolu_0123456789"},
                           {"args", {{"name", "Grace"}}}, {"cwd", env.workspace.string()}});
  env.io = &io;
  for (auto _ : state) {
    io.output.clear();
    auto r = store.Call(f, {});
    benchmark::DoNotOptimize(r);
  }
  if (io.output.find("Hello, Grace") == std::string::npos) state.SkipWithError("wrong output");
}
BENCHMARK(BM_ToolCallBare)->Name("BM_ToolCall/bare");

}  // namespace

BENCHMARK_MAIN();
