// What sepp adds to an MCP server, measured against the same work without
// sepp's part (ratios in one run; docs/mcp.md has a table):
//
//   BM_RoundTrip/client   tools/call through McpClient + StdioTransport
//   BM_RoundTrip/raw      the same JSON-RPC line written and its answer read
//                         on the bare pipes of the same (confined) server
//   -> the difference is the client's cost per call (target <= 0.2 ms)
//
//   BM_Start/confined     HeldChild start in the sandbox + initialize + tools/list
//                         (node's own start-up included; closing not timed)
//   BM_Start/unconfined   the same with the sandbox off
//   -> the difference is the sandbox's cost per start (target <= 5 ms)
#include <benchmark/benchmark.h>
#include <poll.h>
#include <unistd.h>

#include <filesystem>

#include "ext/mcp/client.h"
#include "ext/mcp/servers.h"
#include "ext/mcp/stdio_transport.h"
#include "sandbox/held_child.h"

namespace {
namespace fs = std::filesystem;
using namespace sepp;
using namespace sepp::ext::mcp;

const std::string kProbe = std::string(SEPP_SOURCE_DIR) + "/tests/mcp/servers/probe_server.mjs";

ServerConfig Probe() {
  ServerConfig c;
  c.name = "probe";
  c.command = {SEPP_NODE, kProbe};
  return c;
}

void BM_RoundTripClient(benchmark::State& state) {
  StartOptions opts;
  opts.workspace = fs::temp_directory_path();
  auto server = StartServer(Probe(), opts);
  if (!server.ok()) {
    state.SkipWithError(server.error().message.c_str());
    return;
  }
  McpClient& c = (*server)->client();
  Json params = {{"name", "env"}, {"arguments", {{"name", "PATH"}}}};
  for (auto _ : state) {
    auto r = c.Request("tools/call", params);
    if (!r.ok()) state.SkipWithError(r.error().message.c_str());
  }
}
BENCHMARK(BM_RoundTripClient)->Name("BM_RoundTrip/client")->Unit(benchmark::kMicrosecond);

void BM_RoundTripRaw(benchmark::State& state) {
  sandbox::Policy policy = ServerPolicy(Probe(), fs::temp_directory_path());
  auto held = sandbox::HeldChild::Start(
      {Probe().command, ServerCwd(Probe(), policy, fs::temp_directory_path())}, policy);
  if (!held.ok()) {
    state.SkipWithError(held.error().message.c_str());
    return;
  }
  auto& h = **held;
  std::string line;
  char buf[65536];
  auto exchange = [&](const std::string& msg) {
    (void)h.WriteStdin(msg);
    line.clear();
    while (line.find('\n') == std::string::npos) {
      ssize_t r = read(h.stdout_fd(), buf, sizeof buf);
      if (r <= 0) return false;
      line.append(buf, static_cast<size_t>(r));
    }
    return true;
  };
  exchange(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}})" "\n");
  (void)h.WriteStdin(R"({"jsonrpc":"2.0","method":"notifications/initialized"})" "\n");
  const std::string call =
      R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"env","arguments":{"name":"PATH"}}})" "\n";
  for (auto _ : state)
    if (!exchange(call)) state.SkipWithError("the server went away");
}
BENCHMARK(BM_RoundTripRaw)->Name("BM_RoundTrip/raw")->Unit(benchmark::kMicrosecond);

void BM_Start(benchmark::State& state, bool confined) {
  StartOptions opts;
  opts.workspace = fs::temp_directory_path();
  opts.sandbox = confined;
  ServerConfig c = Probe();
  for (auto _ : state) {
    auto server = StartServer(c, opts);
    if (!server.ok()) {
      state.SkipWithError(server.error().message.c_str());
      return;
    }
    state.PauseTiming();  // closing (stdin closed, exit, reap) is not start-up
    server->reset();
    state.ResumeTiming();
  }
}
BENCHMARK_CAPTURE(BM_Start, confined, true)->Name("BM_Start/confined")->Unit(benchmark::kMillisecond)->Iterations(20);
BENCHMARK_CAPTURE(BM_Start, unconfined, false)->Name("BM_Start/unconfined")->Unit(benchmark::kMillisecond)->Iterations(20);

}  // namespace

BENCHMARK_MAIN();
