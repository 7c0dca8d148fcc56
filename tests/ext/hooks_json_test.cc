// hooks.json (Claude Code's format): parsing, matchers, and real command
// hooks run through the sandbox with Claude's stdin and output protocol.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "agent/agent.h"
#include "agent/test_doubles.h"
#include "ext/hook_loader.h"
#include "ext/hooks_json/claude_names.h"
#include "ext/hooks_json/command_hooks.h"
#include "ext/hooks_json/hooks_config.h"
#include "sandbox/defaults.h"

namespace sepp::ext {
namespace {

using agent::ToolCallVerdict;

TEST(HooksJson, ParsesCommandsAndReportsWhatItSkips) {
  std::vector<std::string> skipped;
  auto hooks = ParseHooksJson(R"({"hooks": {
      "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "a", "timeout": 5}]}],
      "PostToolUse": [{"hooks": [{"type": "prompt", "prompt": "x"}, {"type": "command", "command": "b"}]}],
      "FileChanged": [{"hooks": [{"type": "command", "command": "c"}]}]},
      "permissions": {}})",
                              "/p/.claude/settings.json", &skipped);
  ASSERT_TRUE(hooks.ok()) << hooks.error().message;
  ASSERT_EQ(hooks->size(), 2u);
  // Events come in name order (a JSON object); handlers keep their order.
  const CommandHook& pre = (*hooks)[0].event == "PreToolUse" ? (*hooks)[0] : (*hooks)[1];
  const CommandHook& post = (*hooks)[0].event == "PreToolUse" ? (*hooks)[1] : (*hooks)[0];
  EXPECT_EQ(pre.event, "PreToolUse");
  EXPECT_EQ(pre.matcher, "Bash");
  EXPECT_EQ(pre.timeout_s, 5);
  EXPECT_EQ(post.event, "PostToolUse");
  EXPECT_EQ(post.timeout_s, 600);
  ASSERT_EQ(skipped.size(), 2u);
  std::string all = skipped[0] + "\n" + skipped[1];
  EXPECT_NE(all.find("type \"prompt\""), std::string::npos) << all;
  EXPECT_NE(all.find("FileChanged"), std::string::npos) << all;
  // A settings file without hooks is fine.
  EXPECT_TRUE(ParseHooksJson(R"({"model": "x"})", "s.json", nullptr)->empty());
}

TEST(HooksJson, ShapeErrorsNameTheFileAndThePath) {
  for (const char* bad : {R"([1])", R"({"hooks": []})", R"({"hooks": {"Stop": {}}})",
                          R"({"hooks": {"Stop": [{"hooks": [{"type": "command"}]}]}})",
                          R"({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": -1}]}]}})",
                          R"({"hooks": {"Stop": [{"matcher": 3, "hooks": []}]}})", "{not json"}) {
    auto r = ParseHooksJson(bad, "/p/.sepp/hooks.json", nullptr);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.error().message.find("/p/.sepp/hooks.json"), std::string::npos) << r.error().message;
  }
  auto r = ParseHooksJson(R"({"hooks": {"Stop": [{"hooks": [{"type": "command"}]}]}})", "h.json", nullptr);
  EXPECT_NE(r.error().message.find("hooks.Stop[0].hooks[0].command"), std::string::npos) << r.error().message;
}

TEST(HooksJson, MatchersFollowClaudeCode) {
  EXPECT_TRUE(MatcherMatches("", "Bash"));
  EXPECT_TRUE(MatcherMatches("*", "Bash"));
  EXPECT_TRUE(MatcherMatches("Edit|Write", "Write"));
  EXPECT_FALSE(MatcherMatches("Edit|Write", "WriteX"));
  EXPECT_FALSE(MatcherMatches("mcp__memory", "mcp__memory__create"));  // exact, not a prefix
  EXPECT_TRUE(MatcherMatches("mcp__memory__.*", "mcp__memory__create"));
  EXPECT_TRUE(MatcherMatches("^Note", "NotebookEdit"));
  EXPECT_FALSE(MatcherMatches("([", "Bash")) << "an invalid regex matches nothing";
}

TEST(HooksJson, ClaudeNamesBothWays) {
  EXPECT_EQ(ClaudeToolName("bash"), "Bash");
  EXPECT_EQ(ClaudeToolName("find"), "Glob");
  EXPECT_EQ(ClaudeToolName("mcp__x__y"), "mcp__x__y");
  Json in = {{"path", "a.txt"}, {"content", "x"}};
  Json claude = ClaudeToolInput("write", in);
  EXPECT_EQ(claude, (Json{{"file_path", "a.txt"}, {"content", "x"}}));
  EXPECT_EQ(SeppToolInput("write", claude), in);
  EXPECT_EQ(ClaudeToolInput("bash", {{"command", "ls"}}), (Json{{"command", "ls"}}));
}

class CommandHooksTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("sepp-cmdhooks-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    dir_ = std::filesystem::canonical(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::unique_ptr<CommandHooks> Make(const std::string& json) {
    auto hooks = ParseHooksJson(json, dir_ / "hooks.json", nullptr);
    EXPECT_TRUE(hooks.ok()) << hooks.error().message;
    CommandHost host;
    host.cwd = dir_;
    host.policy = sandbox::DefaultToolPolicy(dir_);
    host.session_id = [] { return std::string("sess-1"); };
    host.report = [this](const std::string& p) { reports_.push_back(p); };
    return std::make_unique<CommandHooks>(std::move(*hooks), host);
  }
  // A hooks.json whose one `event` hook runs `command` (matcher optional).
  static std::string One(const std::string& event, const std::string& command,
                         const std::string& matcher = "") {
    Json j = {{"hooks", {{event, {{{"matcher", matcher},
                                   {"hooks", {{{"type", "command"}, {"command", command}}}}}}}}}};
    return j.dump();
  }
  std::filesystem::path dir_;
  std::vector<std::string> reports_;
};

TEST_F(CommandHooksTest, ExitTwoDeniesWithStderrAndStdinCarriesClaudesShape) {
  auto hooks = Make(One("PreToolUse",
                        "cat > \"$CLAUDE_PROJECT_DIR/stdin.json\"; "
                        "grep -q 'rm -rf' \"$CLAUDE_PROJECT_DIR/stdin.json\" && "
                        "{ echo 'destructive command blocked' >&2; exit 2; }; exit 0",
                        "Bash"));
  auto v = hooks->BeforeToolCall({"bash", "call-1", {{"command", "rm -rf /"}}, 1, false});
  EXPECT_EQ(v.decision, ToolCallVerdict::Decision::kDeny);
  EXPECT_EQ(v.reason, "destructive command blocked");
  std::ifstream in(dir_ / "stdin.json");
  std::string text((std::istreambuf_iterator<char>(in)), {});
  auto j = ParseJson(text);
  ASSERT_TRUE(j.ok()) << text;
  EXPECT_EQ((*j)["hook_event_name"], "PreToolUse");
  EXPECT_EQ((*j)["tool_name"], "Bash");
  EXPECT_EQ((*j)["tool_input"]["command"], "rm -rf /");
  EXPECT_EQ((*j)["tool_use_id"], "call-1");
  EXPECT_EQ((*j)["session_id"], "sess-1");
  EXPECT_EQ((*j)["cwd"], dir_.string());
  // Another command passes; a tool the matcher does not name runs no hook.
  EXPECT_EQ(hooks->BeforeToolCall({"bash", "c2", {{"command", "ls"}}, 1, false}).decision,
            ToolCallVerdict::Decision::kNone);
  EXPECT_EQ(hooks->BeforeToolCall({"read", "c3", {{"path", "x"}}, 1, false}).decision,
            ToolCallVerdict::Decision::kNone);
  EXPECT_TRUE(reports_.empty());
}

TEST_F(CommandHooksTest, JsonOutputRewritesInputAndAddsContext) {
  auto hooks = Make(One("PreToolUse",
                        "cat >/dev/null; printf '%s' '{\"hookSpecificOutput\": {\"hookEventName\": "
                        "\"PreToolUse\", \"permissionDecision\": \"allow\", \"updatedInput\": "
                        "{\"command\": \"echo rewritten-by-hook\"}, \"additionalContext\": \"CTX1\"}}'"));
  auto v = hooks->BeforeToolCall({"bash", "c", {{"command", "echo hi"}, {"timeout", 5}}, 1, false});
  EXPECT_EQ(v.decision, ToolCallVerdict::Decision::kAllow);
  EXPECT_EQ(v.input, (Json{{"command", "echo rewritten-by-hook"}, {"timeout", 5}})) << "merged over";
  EXPECT_EQ(v.context, "PreToolUse:Bash hook additional context: CTX1");
}

TEST_F(CommandHooksTest, PostToolUseStopAndPromptHooks) {
  Json j = {{"hooks",
             {{"PostToolUse", {{{"hooks", {{{"type", "command"}, {"command",
                 "cat >/dev/null; echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PostToolUse\", "
                 "\"additionalContext\": \"CTX2\"}}'"}}}}}}},
              {"Stop", {{{"hooks", {{{"type", "command"}, {"command",
                 "grep -q '\"stop_hook_active\":true' && exit 0; echo 'run the tests' >&2; exit 2"}}}}}}},
              {"UserPromptSubmit", {{{"hooks", {{{"type", "command"}, {"command",
                 "cat >/dev/null; echo 'today is a test day'"}}}}}}}}}};
  auto hooks = Make(j.dump());
  auto p = hooks->AfterToolResult({"bash", "c", {{"command", "ls"}}, "out", false, 3, 1, false});
  EXPECT_EQ(p.context, "PostToolUse:Bash hook additional context: CTX2");
  EXPECT_FALSE(p.text);
  auto s = hooks->OnStop({false, "done", 1, false});
  EXPECT_TRUE(s.keep_going);
  EXPECT_EQ(s.reason, "run the tests");
  EXPECT_FALSE(hooks->OnStop({true, "done", 2, false}).keep_going) << "stop_hook_active is passed";
  auto in = hooks->OnInput({"hello"});
  EXPECT_EQ(in.action, agent::InputVerdict::Action::kContinue);
  EXPECT_EQ(in.context, "UserPromptSubmit hook additional context: today is a test day");
}

TEST_F(CommandHooksTest, SessionStartStdoutIsContext) {
  auto hooks = Make(One("SessionStart", "grep -q '\"source\":\"resume\"' && echo 'welcome back'", "resume"));
  EXPECT_EQ(hooks->OnSessionStart({"resume", "", "s"}).context,
            "SessionStart hook additional context: welcome back");
  EXPECT_EQ(hooks->OnSessionStart({"startup", "", "s"}).context, "") << "the matcher is the source";
}

TEST_F(CommandHooksTest, OtherExitCodesAreReportedNotObeyed) {
  auto hooks = Make(One("PreToolUse", "cat >/dev/null; echo 'oops' >&2; exit 1"));
  EXPECT_EQ(hooks->BeforeToolCall({"bash", "c", {{"command", "ls"}}, 1, false}).decision,
            ToolCallVerdict::Decision::kNone);
  ASSERT_EQ(reports_.size(), 1u);
  EXPECT_NE(reports_[0].find("exit 1"), std::string::npos) << reports_[0];
  EXPECT_NE(reports_[0].find("oops"), std::string::npos) << reports_[0];
}

TEST_F(CommandHooksTest, HookCommandsRunConfinedWithoutTheProvidersKey) {
  setenv("ANTHROPIC_API_KEY", "sk-ant-test-secret-0123456789", 1);
  // The hook tries to read the key and to write outside the project.
  auto hooks = Make(One("PreToolUse",
                        "cat >/dev/null; echo \"key=${ANTHROPIC_API_KEY:-none}\" >&2; "
                        "touch /etc/sepp-hook-escape 2>/dev/null && echo 'wrote /etc' >&2; "
                        "touch \"$HOME/sepp-hook-escape-$$\" 2>/dev/null && echo 'wrote home' >&2; exit 2"));
  auto v = hooks->BeforeToolCall({"bash", "c", {{"command", "ls"}}, 1, false});
  unsetenv("ANTHROPIC_API_KEY");
  EXPECT_EQ(v.decision, ToolCallVerdict::Decision::kDeny);
  EXPECT_EQ(v.reason, "key=none") << "neither the key nor a write escaped";
}

TEST_F(CommandHooksTest, TheLoopRunsThemAroundATool) {
  auto hooks = Make(One("PreToolUse",
                        "grep -q secret && { echo 'no secrets' >&2; exit 2; }; exit 0", "echo"));
  agent::testing::ScriptedProvider provider;
  provider.queue.push_back(agent::testing::Assistant(
      {agent::testing::Call("a", "echo", {{"text", "secret"}}),
       agent::testing::Call("b", "echo", {{"text", "fine"}})},
      llm::StopReason::kToolUse));
  provider.queue.push_back(agent::testing::Assistant({llm::ContentBlock::Text("done")}));
  tools::ToolRegistry registry;
  registry.Add(std::make_unique<agent::testing::EchoTool>());
  agent::AgentConfig config;
  config.model = "m";
  config.cwd = dir_;
  config.hooks = hooks.get();
  agent::Agent a(config, provider, registry, nullptr, nullptr);
  CancelToken cancel;
  auto o = a.Prompt("go", cancel);
  EXPECT_EQ(o.status, agent::Outcome::Status::kDone);
  ASSERT_EQ(provider.requests.size(), 2u);
  const auto& results = provider.requests[1].messages;
  std::string a_text, b_text;
  for (const auto& m : results) {
    if (m.tool_call_id == "a") a_text = m.Text();
    if (m.tool_call_id == "b") b_text = m.Text();
  }
  EXPECT_EQ(a_text, "a hook denied this call: no secrets");
  EXPECT_EQ(b_text, "fine");
}

// PermissionRequest's hookSpecificOutput.decision.updatedInput (Claude
// Code's shape): an allowing hook rewrites the call it answers, merged over
// its input; the loop runs the rewritten call. A deny carries no rewrite.
TEST_F(CommandHooksTest, PermissionRequestUpdatedInputRewritesTheCallItAllows) {
  Json j = {{"hooks",
             {{"PreToolUse", {{{"hooks", {{{"type", "command"}, {"command",
                 "cat >/dev/null; echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", "
                 "\"permissionDecision\": \"ask\", \"permissionDecisionReason\": \"check it\"}}'"}}}}}}},
              {"PermissionRequest", {{{"hooks", {{{"type", "command"}, {"command",
                 "grep -q '\"text\":\"deny me\"' && { echo '{\"hookSpecificOutput\": {\"hookEventName\": "
                 "\"PermissionRequest\", \"decision\": {\"behavior\": \"deny\", \"message\": \"no\", "
                 "\"updatedInput\": {\"text\": \"never\"}}}}'; exit 0; }; "
                 "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PermissionRequest\", "
                 "\"decision\": {\"behavior\": \"allow\", \"updatedInput\": {\"text\": \"rewritten\"}}}}'"}}}}}}}}}};
  auto hooks = Make(j.dump());
  auto v = hooks->OnPermissionRequest({"echo", "c", {{"text", "original"}, {"keep", 1}}, "why", {}, false});
  EXPECT_EQ(v.decision, agent::PermissionVerdict::Decision::kAllow);
  EXPECT_EQ(v.input, (Json{{"text", "rewritten"}, {"keep", 1}})) << "merged over the input";
  auto denied = hooks->OnPermissionRequest({"echo", "c", {{"text", "deny me"}}, "why", {}, false});
  EXPECT_EQ(denied.decision, agent::PermissionVerdict::Decision::kDeny);

  agent::testing::ScriptedProvider provider;
  provider.queue.push_back(agent::testing::Assistant(
      {agent::testing::Call("a", "echo", {{"text", "original"}}),
       agent::testing::Call("b", "echo", {{"text", "deny me"}})},
      llm::StopReason::kToolUse));
  provider.queue.push_back(agent::testing::Assistant({llm::ContentBlock::Text("done")}));
  tools::ToolRegistry registry;
  registry.Add(std::make_unique<agent::testing::EchoTool>());
  agent::AgentConfig config;
  config.model = "m";
  config.cwd = dir_;
  config.hooks = hooks.get();
  agent::Agent a(config, provider, registry, nullptr, nullptr);
  CancelToken cancel;
  EXPECT_EQ(a.Prompt("go", cancel).status, agent::Outcome::Status::kDone);
  ASSERT_EQ(provider.requests.size(), 2u);
  std::string a_text, b_text;
  for (const auto& m : provider.requests[1].messages) {
    if (m.tool_call_id == "a") a_text = m.Text();
    if (m.tool_call_id == "b") b_text = m.Text();
  }
  EXPECT_EQ(a_text, "rewritten");
  EXPECT_NE(b_text.find("no"), std::string::npos) << b_text;
  EXPECT_EQ(b_text.find("never"), std::string::npos) << b_text;
}

}  // namespace
}  // namespace sepp::ext
