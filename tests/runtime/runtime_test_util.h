// Test doubles for the session runtime: a provider whose calls a test can
// hold and release, and a temporary SEPP_HOME + workspace.
#pragma once
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include "llm/provider.h"
#include "runtime/agent_session.h"
#include "sandbox/defaults.h"

namespace sepp::runtime::testing {

inline llm::Message Reply(std::vector<llm::ContentBlock> blocks) {
  llm::Message m;
  m.role = llm::Role::kAssistant;
  m.content = std::move(blocks);
  m.stop_reason = llm::StopReason::kStop;
  for (const auto& b : m.content)
    if (b.kind == llm::ContentBlock::Kind::kToolCall) m.stop_reason = llm::StopReason::kToolUse;
  m.usage.input = 10;
  m.usage.output = 5;
  return m;
}
inline llm::Message TextReply(const std::string& t) { return Reply({llm::ContentBlock::Text(t)}); }
inline llm::Message CallReply(const std::string& id, const std::string& tool, Json args) {
  return Reply({llm::ContentBlock::ToolCall(id, tool, std::move(args))});
}

// Replies from a queue. With hold(), each call waits (after recording its
// request) until release() or a cancel: a test can act while a model call
// is "in flight" without sleeping.
class HeldProvider {
 public:
  std::deque<llm::Message> replies;
  std::vector<llm::Request> requests;
  // false: count calls without keeping their requests (memory tests: every
  // request holds the whole history).
  bool keep_requests = true;

  void hold() { std::lock_guard<std::mutex> l(mu_); held_ = true; }
  // Only calls from the n-th on (0-based) wait while held.
  void hold_from(size_t n) { std::lock_guard<std::mutex> l(mu_); held_ = true; hold_from_ = n; }
  void release() {
    { std::lock_guard<std::mutex> l(mu_); held_ = false; }
    cv_.notify_all();
  }
  // Waits until n calls have started.
  void WaitCalls(size_t n) {
    std::unique_lock<std::mutex> l(mu_);
    cv_.wait(l, [&] { return requests.size() >= n; });
  }
  size_t calls() { std::lock_guard<std::mutex> l(mu_); return requests.size(); }
  std::vector<llm::Request> Requests() { std::lock_guard<std::mutex> l(mu_); return requests; }

  Result<llm::Message> Complete(const llm::Request& r, const llm::StreamSink& sink, CancelToken* c) {
    std::unique_lock<std::mutex> l(mu_);
    requests.push_back(keep_requests ? r : llm::Request());
    size_t index = requests.size() - 1;
    cv_.notify_all();
    std::unique_ptr<CancelToken::Registration> reg;
    if (c) {
      l.unlock();
      reg = c->OnCancel([this] { std::lock_guard<std::mutex> g(mu_); cv_.notify_all(); });
      l.lock();
    }
    cv_.wait(l, [&] { return !held_ || index < hold_from_ || (c && c->cancelled()); });
    if (c && c->cancelled()) return Error::Make("aborted", "aborted");
    llm::Message m = replies.empty() ? TextReply("(no more replies)") : replies.front();
    if (!replies.empty()) replies.pop_front();
    l.unlock();
    if (sink.on_text)
      for (const auto& b : m.content)
        if (b.kind == llm::ContentBlock::Kind::kText) sink.on_text(b.text);
    return m;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool held_ = false;
  size_t hold_from_ = 0;
};

class Forward : public llm::Provider {
 public:
  explicit Forward(HeldProvider& p) : p_(p) {}
  std::string name() const override { return "anthropic"; }
  Result<llm::Message> Complete(const llm::Request& r, const llm::StreamSink& s,
                                CancelToken* c) override {
    return p_.Complete(r, s, c);
  }

 private:
  HeldProvider& p_;
};

// A fresh SEPP_HOME and workspace per test.
class TempHome {
 public:
  TempHome() {
    char tmpl[] = "/tmp/sepp-runtime-test-XXXXXX";
    root_ = mkdtemp(tmpl);
    std::filesystem::create_directories(root_ / "home");
    std::filesystem::create_directories(root_ / "work");
    setenv("SEPP_HOME", (root_ / "home").c_str(), 1);
  }
  ~TempHome() {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }
  std::filesystem::path home() const { return root_ / "home"; }
  std::filesystem::path work() const { return root_ / "work"; }

 private:
  std::filesystem::path root_;
};

inline SessionOptions OptionsFor(HeldProvider& p, const std::filesystem::path& cwd) {
  SessionOptions o;
  o.make_provider = [&p] { return std::make_unique<Forward>(p); };
  o.model = "claude-test";
  o.cwd = cwd;
  o.policy = sandbox::DefaultToolPolicy(cwd);
  o.on_warning = [](const std::string&) {};
  return o;
}

// Every event up to and including the first of type `until`.
inline std::vector<agent::Event> Collect(Subscription& sub, agent::EventType until) {
  std::vector<agent::Event> out;
  agent::Event e(agent::EventType::kError);
  while (sub.Pop(&e, 30) == Subscription::Next::kEvent) {
    out.push_back(e);
    if (e.type == until) break;
  }
  return out;
}

inline std::vector<std::string> Types(const std::vector<agent::Event>& events) {
  std::vector<std::string> t;
  for (const auto& e : events) t.push_back(agent::ToString(e.type));
  return t;
}

}  // namespace sepp::runtime::testing
