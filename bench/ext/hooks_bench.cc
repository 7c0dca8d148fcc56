// Hook dispatch overhead per tool call (issue 11: one Lua hook <= 20 us,
// none ~ 0).
//
// BM_LuaDispatch: BeforeToolCall + AfterToolResult on one Lua file whose two
// handlers read the input and answer (a rewrite-free allow and a context):
// the whole per-call cost a Lua hook adds (JSON -> Lua, the call under the
// budget hook, the answer back).
// BM_AgentRound/0 and /1: one prompt whose answer asks for one tool call,
// then a final answer, with an in-process provider and tool: without hooks,
// and with the same Lua file. The difference is the overhead in the loop.
#include <benchmark/benchmark.h>

#include "agent/agent.h"
#include "ext/lua/lua_hook_file.h"

namespace {

using namespace sepp;

const char* kHook = R"lua(
  sepp.on("tool_call", "echo", function(ev, ctx)
    if ev.input.text:find("rm %-rf") then return {action = "deny", reason = "no"} end
    return {action = "allow"}
  end)
  sepp.on("tool_result", function(ev, ctx)
    if ev.is_error then return {context = "it failed: " .. ev.tool} end
  end)
)lua";

std::shared_ptr<ext::LuaHookFile> LoadHook() {
  auto f = ext::LuaHookFile::LoadSource(kHook, "bench.lua", {});
  if (!f.ok()) std::abort();
  return *f;
}

void BM_LuaDispatch(benchmark::State& state) {
  auto hook = LoadHook();
  Json input = {{"text", "ls -la src/ && grep -rn needle ."}};
  for (auto _ : state) {
    auto v = hook->BeforeToolCall({"echo", "call-1", input, 1, false});
    auto p = hook->AfterToolResult({"echo", "call-1", input, "some output\nline two\n", false, 1, 1, false});
    benchmark::DoNotOptimize(v);
    benchmark::DoNotOptimize(p);
  }
}
BENCHMARK(BM_LuaDispatch);

class Echo : public tools::Tool {
 public:
  std::string name() const override { return "echo"; }
  std::string description() const override { return "echoes"; }
  Json parameters() const override { return {{"type", "object"}}; }
  std::string Summary(const Json&) const override { return "echo"; }
  tools::ToolResult Run(const Json& args, tools::ToolContext&) override {
    return {args.value("text", ""), false, false, nullptr};
  }
};

// Odd requests ask for a tool call, even ones answer.
class TwoStep : public llm::Provider {
 public:
  std::string name() const override { return "bench"; }
  Result<llm::Message> Complete(const llm::Request& r, const llm::StreamSink&, CancelToken*) override {
    llm::Message m;
    m.role = llm::Role::kAssistant;
    if (r.messages.back().role == llm::Role::kUser) {
      m.content.push_back(llm::ContentBlock::ToolCall("c" + std::to_string(n_++), "echo",
                                                      {{"text", "ls -la"}}));
      m.stop_reason = llm::StopReason::kToolUse;
    } else {
      m.content.push_back(llm::ContentBlock::Text("done"));
    }
    return m;
  }

 private:
  int n_ = 0;
};

void BM_AgentRound(benchmark::State& state) {
  std::shared_ptr<ext::LuaHookFile> hook = state.range(0) ? LoadHook() : nullptr;
  TwoStep provider;
  tools::ToolRegistry registry;
  registry.Add(std::make_unique<Echo>());
  agent::AgentConfig config;
  config.model = "m";
  config.cwd = "/tmp";
  config.policy = nullptr;
  config.hooks = hook.get();
  CancelToken cancel;
  for (auto _ : state) {
    agent::Agent a(config, provider, registry, nullptr, nullptr);
    auto o = a.Prompt("go", cancel);
    benchmark::DoNotOptimize(o);
  }
}
BENCHMARK(BM_AgentRound)->Arg(0)->Arg(1);

}  // namespace

BENCHMARK_MAIN();
