// retry_with_access through the permission gate, with a gate the test
// controls and a tool that reports the policy it ran under.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>

#include "agent/agent.h"
#include "test_doubles.h"

namespace sepp::agent {
namespace {

using llm::ContentBlock;
using testing::Assistant;
using testing::Call;
using testing::ScriptedProvider;

// Refuses (details.denied) unless its policy allows pypi.org.
class NetProbe : public tools::Tool {
 public:
  std::atomic<int> runs{0};
  std::string name() const override { return "probe"; }
  std::string description() const override { return "probes"; }
  Json parameters() const override { return {{"type", "object"}}; }
  std::string Summary(const Json&) const override { return "probe"; }
  tools::ToolResult Run(const Json& args, tools::ToolContext& ctx) override {
    ++runs;
    bool ok = false;
    if (ctx.policy)
      for (const auto& d : ctx.policy->allow_domains) ok |= d == "pypi.org";
    tools::ToolResult r;
    if (ok) {
      r.text = "downloaded " + args.value("pkg", "");
      return r;
    }
    r.text = "connect to pypi.org: blocked";
    r.is_error = true;
    r.details = {{"denied", true}};
    r.denials = {{sandbox::DenialKind::kNetwork, "pypi.org", "net pypi.org"}};
    return r;
  }
};

class TestGate : public PermissionGate {
 public:
  PermissionAnswer next{PermissionChoice::kAllowOnce, "", "user"};
  std::vector<PermissionRequest> asked;
  PermissionAnswer Ask(const PermissionRequest& r, CancelToken&) override {
    std::lock_guard<std::mutex> l(mu);
    asked.push_back(r);
    return next;
  }
  std::mutex mu;
};

class PermissionTest : public ::testing::Test {
 protected:
  PermissionTest() {
    auto probe = std::make_unique<NetProbe>();
    probe_ = probe.get();
    registry_.Add(std::move(probe));
    policy_.net = sandbox::NetMode::kOff;
  }
  Outcome Run(bool with_gate = true) {
    AgentConfig c;
    c.model = "m";
    c.cwd = "/work";
    c.policy = &policy_;
    c.permission_gate = with_gate ? &gate_ : nullptr;
    Agent a(c, provider_, registry_, [this](const Event& e) { events_.push_back(e); },
            [](const llm::Message&) {});
    CancelToken cancel;
    return a.Prompt("install requests", cancel);
  }
  std::string LastToolResult() {
    const auto& msgs = provider_.requests.back().messages;
    for (auto it = msgs.rbegin(); it != msgs.rend(); ++it)
      if (it->role == llm::Role::kToolResult) return it->Text();
    return "";
  }
  void Script(Json retry_args) {
    provider_.queue.push_back(Assistant({Call("c1", "probe", {{"pkg", "requests"}})},
                                        llm::StopReason::kToolUse));
    provider_.queue.push_back(Assistant({Call("c2", "retry_with_access", retry_args)},
                                        llm::StopReason::kToolUse));
    provider_.queue.push_back(Assistant({ContentBlock::Text("done")}));
  }

  ScriptedProvider provider_;
  tools::ToolRegistry registry_;
  NetProbe* probe_;
  TestGate gate_;
  sandbox::Policy policy_;
  std::vector<Event> events_;  // Emit serialises the callback
};

TEST_F(PermissionTest, AnAllowedRetryRunsTheSameCallOnceWithTheWidening) {
  Script({{"call_id", "c1"}, {"domains", {"PyPI.org"}}, {"justification", "pip install"}});
  Outcome o = Run();
  EXPECT_EQ(o.status, Outcome::Status::kDone);
  ASSERT_EQ(gate_.asked.size(), 1u);
  const PermissionRequest& r = gate_.asked[0];
  EXPECT_EQ(r.call_id, "c2");
  EXPECT_EQ(r.tool, "probe");
  EXPECT_EQ(r.args["pkg"], "requests");
  ASSERT_EQ(r.widenings.size(), 1u);
  EXPECT_EQ(r.widenings[0].target, "pypi.org");
  EXPECT_EQ(r.justification, "pip install");
  ASSERT_EQ(r.denials.size(), 1u);
  EXPECT_EQ(r.denials[0].text, "net pypi.org");
  // As the tool typed it: no words are read back.
  EXPECT_EQ(r.denials[0].kind, sandbox::DenialKind::kNetwork);
  EXPECT_EQ(r.denials[0].target, "pypi.org");
  EXPECT_EQ(probe_->runs.load(), 2);
  std::string result = LastToolResult();
  EXPECT_NE(result.find("downloaded requests"), std::string::npos) << result;
  EXPECT_NE(result.find("network access to pypi.org (allow_once)"), std::string::npos) << result;
  // The session's own policy is unchanged: the widening was for that run.
  EXPECT_TRUE(policy_.allow_domains.empty());
  // The refused call told the model how to ask.
  const auto& msgs = provider_.requests[1].messages;
  EXPECT_NE(msgs.back().Text().find("retry_with_access"), std::string::npos);
}

TEST_F(PermissionTest, ADenialReachesTheModelWithTheMessageAndRunsNothing) {
  gate_.next = {PermissionChoice::kDeny, "not on this machine", "user"};
  Script({{"call_id", "c1"}, {"domains", {"pypi.org"}}, {"justification", "pip"}});
  Run();
  EXPECT_EQ(probe_->runs.load(), 1);
  std::string result = LastToolResult();
  EXPECT_NE(result.find("permission denied"), std::string::npos);
  EXPECT_NE(result.find("not on this machine"), std::string::npos);
  // The refusal is typed where the answer came: a permission denial per
  // widening, on the retry's tool.finished (and so in the session's trail).
  const Event* finished = nullptr;
  for (const auto& e : events_)
    if (e.type == EventType::kToolFinished && e.tool == kRetryWithAccessTool) finished = &e;
  ASSERT_NE(finished, nullptr);
  EXPECT_TRUE(finished->denied);
  ASSERT_EQ(finished->denials.size(), 1u);
  EXPECT_EQ(finished->denials[0].kind, sandbox::DenialKind::kPermission);
  EXPECT_EQ(finished->denials[0].target, "pypi.org");
  EXPECT_NE(finished->denials[0].text.find("not on this machine"), std::string::npos);
}

TEST_F(PermissionTest, TooBroadOrUnknownRequestsAreRefusedBeforeAnyoneIsAsked) {
  for (Json args : {Json{{"call_id", "c1"}, {"domains", {"*"}}, {"justification", "x"}},
                    Json{{"call_id", "c1"}, {"domains", {"com"}}, {"justification", "x"}},
                    Json{{"call_id", "c1"}, {"write_paths", {"/"}}, {"justification", "x"}},
                    Json{{"call_id", "c1"}, {"write_paths", {"/../.."}}, {"justification", "x"}},
                    Json{{"call_id", "c1"}, {"domains", {"a.com"}}},
                    Json{{"call_id", "c1"}, {"justification", "nothing asked"}},
                    Json{{"call_id", "nope"}, {"domains", {"a.com"}}, {"justification", "x"}},
                    Json{{"call_id", 5}, {"domains", {"a.com"}}, {"justification", "x"}},
                    Json{{"call_id", "c1"}, {"domains", "a.com"}, {"justification", "x"}}}) {
    provider_.requests.clear();
    Script(args);
    Run();
    EXPECT_TRUE(gate_.asked.empty()) << args.dump();
    EXPECT_EQ(LastToolResult().find("downloaded"), std::string::npos) << args.dump();
  }
  EXPECT_EQ(probe_->runs.load(), 9);  // only the first, refused call each time
}

TEST_F(PermissionTest, WithoutAGateThereIsNoRetryTool) {
  provider_.queue.push_back(Assistant({ContentBlock::Text("hi")}));
  Run(false);
  for (const auto& t : provider_.requests[0].tools) EXPECT_NE(t.name, "retry_with_access");
  provider_.requests.clear();
  provider_.queue.push_back(Assistant({ContentBlock::Text("hi")}));
  Run(true);
  bool offered = false;
  for (const auto& t : provider_.requests[0].tools) offered |= t.name == "retry_with_access";
  EXPECT_TRUE(offered);
}

TEST(Widen, AddsExactlyWhatWasAskedAndTurnsOnTheProxy) {
  sandbox::Policy p;
  p.net = sandbox::NetMode::kOff;
  p.deny_paths = {"/home/u/.ssh", "/data/x"};
  auto w = Widen(p, {{Widening::Kind::kDomain, "pypi.org"},
                     {Widening::Kind::kWritePath, "/data/x"},
                     {Widening::Kind::kReadPath, "/opt/lib"}});
  EXPECT_EQ(w.net, sandbox::NetMode::kProxy);
  EXPECT_EQ(w.allow_domains, std::vector<std::string>{"pypi.org"});
  EXPECT_EQ(w.write_roots, std::vector<std::string>{"/data/x"});
  EXPECT_EQ(w.read_roots, std::vector<std::string>{"/opt/lib"});
  EXPECT_EQ(w.deny_paths, std::vector<std::string>{"/home/u/.ssh"});
  std::string toml = DescribeAsPolicyToml({{Widening::Kind::kDomain, "pypi.org"},
                                           {Widening::Kind::kWritePath, "/a \"b\""}});
  EXPECT_NE(toml.find("allow_domains = [\"pypi.org\"]"), std::string::npos) << toml;
  EXPECT_NE(toml.find("write = [\"/a \\\"b\\\"\"]"), std::string::npos) << toml;
}

}  // namespace
}  // namespace sepp::agent
