// Record and replay cost per provider call, for a conversation of N turns
// (each an assistant tool call and a 4 KB tool result):
//   AnthropicBody: the Anthropic request body as a live call builds it
//     (BuildRequest + DumpJson): the baseline every call pays anyway.
//   ReplayServe: a strict replay serving that request (scrub, fingerprint,
//     compare with the recording, reveal the answer).
//   RecordCall: a recorded call around a provider that answers at once
//     (request to JSON, scrub, one cassette line written to /dev/null).
// Compare ReplayServe and RecordCall with AnthropicBody at the same N.
#include <benchmark/benchmark.h>

#include "base/secrets.h"
#include "llm/anthropic.h"
#include "llm/recording_provider.h"
#include "llm/replay_provider.h"

namespace {

using namespace sepp;
using namespace sepp::llm;

Message Answer() {
  Message m;
  m.role = Role::kAssistant;
  m.content.push_back(ContentBlock::Text("done"));
  return m;
}

Request Conversation(int turns) {
  Request r;
  r.model = "claude-sonnet-4-5";
  r.system = std::string(3000, 's') + "\nWorking directory: /home/ann/project\nToday's date: 2026-12-01\n";
  r.messages.push_back(Message::User("fix the failing test in /home/ann/project/tests"));
  for (int i = 0; i < turns; ++i) {
    Message call;
    call.role = Role::kAssistant;
    call.content.push_back(ContentBlock::ToolCall("toolu_" + std::to_string(i), "read",
                                                  Json{{"path", "/home/ann/project/src/f" + std::to_string(i)}}));
    call.stop_reason = StopReason::kToolUse;
    r.messages.push_back(call);
    r.messages.push_back(Message::ToolResult("toolu_" + std::to_string(i), "read", std::string(4096, 'x'), false));
  }
  for (int i = 0; i < 8; ++i) r.tools.push_back({"tool" + std::to_string(i), std::string(400, 'd'), Json{{"type", "object"}}});
  return r;
}

void AnthropicBody(benchmark::State& state) {
  Request r = Conversation(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(DumpJson(anthropic::BuildRequest(r)));
}
BENCHMARK(AnthropicBody)->Arg(10)->Arg(100);

void ReplayServe(benchmark::State& state) {
  RegisterSecret("sk-bench-secret-0123456789");
  CassetteScrub scrub("/home/ann/project", "2026-12-01");
  Request r = Conversation(static_cast<int>(state.range(0)));
  Cassette c;
  Exchange x;
  x.request = scrub.Hide(RequestToJson(r));
  x.message = Answer();
  c.exchanges.push_back(x);
  for (auto _ : state) {
    state.PauseTiming();
    auto replayer = std::make_shared<CassetteReplayer>(c, "bench", ReplayMode::kStrict, scrub);
    auto p = replayer->NewProvider();
    state.ResumeTiming();
    auto m = p->Complete(r, {}, nullptr);
    if (!m.ok()) state.SkipWithError(m.error().message.c_str());
  }
}
BENCHMARK(ReplayServe)->Arg(10)->Arg(100);

class Instant : public Provider {
 public:
  std::string name() const override { return "anthropic"; }
  Result<Message> Complete(const Request&, const StreamSink&, CancelToken*) override { return Answer(); }
};

void RecordCall(benchmark::State& state) {
  RegisterSecret("sk-bench-secret-0123456789");
  ProviderConfig config;
  config.name = "anthropic";
  auto rec = CassetteRecorder::Create("/dev/null", config, CassetteScrub("/home/ann/project", "2026-12-01"));
  if (!rec.ok()) return state.SkipWithError(rec.error().message.c_str());
  auto p = (*rec)->Wrap(std::make_unique<Instant>());
  Request r = Conversation(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(p->Complete(r, {}, nullptr));
}
BENCHMARK(RecordCall)->Arg(10)->Arg(100);

}  // namespace

BENCHMARK_MAIN();
