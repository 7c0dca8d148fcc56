// The terminal UI's drawing cost without a terminal: what a 12 KB streamed
// answer costs (CPU per answer, bytes written, frames), plain lines and
// Markdown (paragraphs, lists, code, a table), with and without DEC 2026
// (argument 1: the terminal has it), with and without a scroll region
// (argument 2: the terminal keeps what a region scrolls off, as xterm, VTE,
// kitty and tmux do; without, the renderer inserts rows), and what a keystroke costs when 2,000
// messages are already in the scrollback (it must not depend on them). One
// frame per delta or key: the worst case, with no coalescing of frames (a
// model whose 7-byte deltas come 16 ms apart or slower gets one frame per
// delta); and the Markdown answer once more with its pieces arriving on a
// simulated clock, drawn when the loop's FramePacer draws them (pieces
// within one frame interval go out as one frame).
#include <benchmark/benchmark.h>
#include <cstdio>
#include <cstdlib>

#include "front/tui/chat_view.h"
#include "front/tui/frame_pacer.h"

namespace sepp::front::tui {
namespace {

std::string Answer12K() {
  std::string answer;
  for (int i = 0; answer.size() < 12 * 1024; ++i) {
    answer += "line " + std::to_string(i) + " of the answer, with some words to wrap and stream\n";
  }
  return answer;
}

std::string Markdown12K() {
  std::string answer;
  for (int i = 0; answer.size() < 12 * 1024; ++i) {
    answer += "## Step " + std::to_string(i) + "\n\nA paragraph with **bold**, `code` and a [link](https://example.com/" +
              std::to_string(i) + ") that runs on\nfor a second line of the paragraph.\n\n- an item\n- another item\n\n"
              "```python\ndef step_" + std::to_string(i) + "(x):\n    return x * 2  # doubled\n```\n\n"
              "| key | value |\n|-----|------:|\n| a | " + std::to_string(i) + " |\n\n";
  }
  return answer;
}

// piece: the bytes of answer in each delta. gap_ms 0: a frame per delta;
// else the deltas arrive gap_ms apart on a simulated clock and are drawn
// when the loop's FramePacer would draw them.
void Stream(benchmark::State& state, const std::string& answer, size_t piece = 7, int gap_ms = 0) {
  uint64_t bytes = 0, frames = 0;
  RenderStats stats;
  for (auto _ : state) {
    InlineRenderer renderer(120, 40);
    renderer.set_synchronized_output(state.range(0) != 0);
    renderer.set_scroll_region(state.range(1) != 0);
    ChatView view(&renderer);
    Editor editor;
    view.SetFooter({"/work/project", "model"});
    FramePacer pacer;
    auto now = FramePacer::Clock::time_point{} + std::chrono::hours(1);
    auto draw = [&] {
      view.Refresh(editor);
      std::string f = renderer.Frame();
      if (std::getenv("DUMP")) { static FILE* fp = fopen(std::getenv("DUMP"), "w"); std::string q; for (unsigned char c : f) { if (c == 0x1b) q += "\\e"; else if (c == '\n') q += "\\n"; else if (c == '\r') q += "\\r"; else q += (char)c; } fprintf(fp, "%zu|%s\n", f.size(), q.c_str()); fflush(fp); }
      pacer.Drawn(now);
    };
    draw();
    // The frames the loop draws at their deadlines before time t.
    auto until = [&](FramePacer::Clock::time_point t) {
      if (pacer.pending() && pacer.deadline() <= t) {
        now = pacer.deadline();
        draw();
      }
      now = t;
    };
    agent::Event delta(agent::EventType::kMessageDelta);
    for (size_t i = 0; i < answer.size(); i += piece) {
      if (gap_ms > 0) until(now + std::chrono::milliseconds(gap_ms));
      delta.text = answer.substr(i, piece);
      view.OnEvent(delta);
      pacer.Changed();
      if (gap_ms == 0 || pacer.Due(now)) draw();
    }
    view.OnEvent(agent::Event(agent::EventType::kTurnFinished));
    pacer.Changed();
    until(now + std::chrono::seconds(1));
    bytes = renderer.stats().bytes;
    frames = renderer.stats().frames;
    stats = renderer.stats();
  }
  state.counters["bytes_written"] = static_cast<double>(bytes);
  state.counters["frames"] = static_cast<double>(frames);
  state.counters["in_place"] = static_cast<double>(stats.committed_in_place);
  state.counters["region_scrolls"] = static_cast<double>(stats.region_scrolls);
  state.counters["frame_p99_us"] = static_cast<double>(stats.FrameTimeQuantileUs(0.99));
}

void BM_Stream12KB(benchmark::State& state) { Stream(state, Answer12K()); }
// {DEC 2026, scroll region}
#define SEPP_STREAM_ARGS ->Args({0, 1})->Args({1, 1})->Args({0, 0})->Args({1, 0})->Unit(benchmark::kMillisecond)
BENCHMARK(BM_Stream12KB) SEPP_STREAM_ARGS;

void BM_StreamMarkdown12KB(benchmark::State& state) { Stream(state, Markdown12K()); }
BENCHMARK(BM_StreamMarkdown12KB) SEPP_STREAM_ARGS;

// The same answer arriving as from peers.sh's provider (12-byte pieces 5 ms
// apart), and in 7-byte pieces 5 ms apart, as the loop draws them.
void BM_StreamMarkdown12KBPaced(benchmark::State& state) { Stream(state, Markdown12K(), 12, 5); }
BENCHMARK(BM_StreamMarkdown12KBPaced) SEPP_STREAM_ARGS;
void BM_StreamMarkdown12KBPaced7(benchmark::State& state) { Stream(state, Markdown12K(), 7, 5); }
BENCHMARK(BM_StreamMarkdown12KBPaced7) SEPP_STREAM_ARGS;

void BM_KeystrokeAfter2000Messages(benchmark::State& state) {
  InlineRenderer renderer(120, 40);
  ChatView view(&renderer);
  Editor editor;
  view.SetFooter({"/work/project", "model"});
  for (int i = 0; i < 2000; ++i) {
    agent::Event user(agent::EventType::kUserMessage);
    user.text = "question " + std::to_string(i);
    view.OnEvent(user);
    agent::Event delta(agent::EventType::kMessageDelta);
    delta.text = "an answer of a line or two, number " + std::to_string(i) + "\n";
    view.OnEvent(delta);
    view.OnEvent(agent::Event(agent::EventType::kTurnFinished));
  }
  view.Refresh(editor);
  renderer.Frame();
  InputEvent key;
  key.codepoint = 'x';
  uint64_t bytes_before = renderer.stats().bytes;
  uint64_t frames_before = renderer.stats().frames;
  for (auto _ : state) {
    editor.Handle(key);
    if (editor.text().size() > 60) editor.Take();
    view.Refresh(editor);
    benchmark::DoNotOptimize(renderer.Frame());
  }
  state.counters["bytes_per_key"] = static_cast<double>(renderer.stats().bytes - bytes_before) /
                                    static_cast<double>(renderer.stats().frames - frames_before);
}
BENCHMARK(BM_KeystrokeAfter2000Messages)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace sepp::front::tui

BENCHMARK_MAIN();
