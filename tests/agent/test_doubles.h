// Test doubles for the agent layer: a scripted provider and small tools.
#pragma once
#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

#include "llm/provider.h"
#include "tools/tool.h"

namespace sepp::agent::testing {

inline llm::Message Assistant(std::vector<llm::ContentBlock> blocks,
                              llm::StopReason stop = llm::StopReason::kStop) {
  llm::Message m;
  m.role = llm::Role::kAssistant;
  m.content = std::move(blocks);
  m.stop_reason = stop;
  m.usage.input = 10;
  m.usage.output = 5;
  return m;
}

inline llm::ContentBlock Call(std::string id, std::string name, Json args) {
  return llm::ContentBlock::ToolCall(std::move(id), std::move(name), std::move(args));
}

// Answers each request with the reply a function picks (thread-safe), and
// records every request.
class ScriptedProvider : public llm::Provider {
 public:
  using Script = std::function<Result<llm::Message>(const llm::Request&, int index)>;
  explicit ScriptedProvider(Script script) : script_(std::move(script)) {}
  // Replies in order from a queue.
  ScriptedProvider() : script_([this](const llm::Request&, int) -> Result<llm::Message> {
    if (queue.empty()) return Assistant({llm::ContentBlock::Text("(script exhausted)")});
    auto r = std::move(queue.front());
    queue.pop_front();
    return r;
  }) {}

  std::deque<Result<llm::Message>> queue;
  std::vector<llm::Request> requests;
  std::atomic<int> running{0}, max_running{0};
  int delay_ms = 0;

  std::string name() const override { return "scripted"; }
  Result<llm::Message> Complete(const llm::Request& request, const llm::StreamSink& sink,
                                CancelToken* cancel) override {
    int index;
    {
      std::lock_guard<std::mutex> lock(mu_);
      index = static_cast<int>(requests.size());
      requests.push_back(request);
    }
    int now = ++running;
    for (int prev = max_running.load(); now > prev && !max_running.compare_exchange_weak(prev, now);) {
    }
    if (delay_ms) std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    --running;
    if (cancel && cancel->cancelled()) return Error::Make("aborted", "aborted");
    Result<llm::Message> r = [&] {
      std::lock_guard<std::mutex> lock(mu_);
      return script_(request, index);
    }();
    if (r.ok() && sink.on_text)
      for (const auto& b : r->content)
        if (b.kind == llm::ContentBlock::Kind::kText) sink.on_text(b.text);
    return r;
  }

 private:
  Script script_;
  std::mutex mu_;
};

// Forwards to a shared provider: what a provider factory hands each child.
class ForwardingProvider : public llm::Provider {
 public:
  explicit ForwardingProvider(llm::Provider& to) : to_(to) {}
  std::string name() const override { return to_.name(); }
  Result<llm::Message> Complete(const llm::Request& r, const llm::StreamSink& s,
                                CancelToken* c) override {
    return to_.Complete(r, s, c);
  }

 private:
  llm::Provider& to_;
};

// "echo": returns args.text; the text "cancel" cancels the run (the token
// given, as the user's Esc would), or, without one, this call's own token
// (as AbortCall does); fail=true makes it an error result.
class EchoTool : public tools::Tool {
 public:
  explicit EchoTool(CancelToken* run = nullptr) : run_(run) {}
  std::string name() const override { return "echo"; }
  std::string description() const override { return "echoes text\nsecond line"; }
  Json parameters() const override { return {{"type", "object"}}; }
  std::string Summary(const Json&) const override { return "echo"; }
  tools::ToolResult Run(const Json& args, tools::ToolContext& ctx) override {
    std::string t = args.value("text", "");
    if (t == "cancel") {
      if (run_) run_->Cancel();
      else if (ctx.cancel) ctx.cancel->Cancel();
    }
    return {t, args.value("fail", false)};
  }

 private:
  CancelToken* run_;
};

}  // namespace sepp::agent::testing
