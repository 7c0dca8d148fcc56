// Hooks end to end: the real sepp binary, the fake provider, the model's
// bash in the sandbox. A --hook Lua file denies one command, rewrites
// another and adds context; a looping hook is stopped and the turn goes
// on; a project's hooks (Lua and hooks.json) run only once it is trusted.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "base/ids.h"
#include "e2e/run_sepp.h"
#include "support/fake_provider.h"
#include "support/tool_results.h"

namespace sepp::e2e {
namespace {

namespace fs = std::filesystem;

class HooksE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(SEPP_BINARY_DIR) / "test-tmp" / ("hooks-e2e-" + NewId().substr(0, 12));
    fs::create_directories(root_ / "ws");
    fs::create_directories(root_ / "home");
    std::ofstream(root_ / "ws" / "keep.txt") << "precious\n";
    ASSERT_TRUE(fp_.Start().ok());
  }
  void TearDown() override {
    fp_.Stop();
    fs::remove_all(root_);
  }
  void Write(const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  // The model runs these bash commands in one batch (ids c0, c1, ... of
  // this run: C(0), C(1)), then says "finished".
  RunOutput Run(const std::vector<std::string>& commands, std::vector<std::string> flags) {
    ++run_;
    Json calls = Json::array();
    for (size_t i = 0; i < commands.size(); ++i)
      calls.push_back({{"id", C(i)},
                       {"name", "bash"},
                       {"arguments", {{"command", commands[i]}}}});
    fp_.SetScript({{"responses", {{{"tool_calls", calls}}, {{"text", "finished"}}}}});
    RunOptions o;
    o.args = {"-p", "do it"};
    o.args.insert(o.args.end(), flags.begin(), flags.end());
    o.env = {{"PATH", "/usr/bin:/bin"},
             {"HOME", (root_ / "home").string()},
             {"SEPP_HOME", (root_ / "home" / ".sepp").string()},
             {"ANTHROPIC_BASE_URL", fp_.base_url()},
             {"ANTHROPIC_API_KEY", "sk-hooks-e2e"}};
    o.cwd = (root_ / "ws").string();
    return RunSepp(o);
  }
  // One prompt answered with text only; extra flags (e.g. -c).
  RunOutput RunText(std::vector<std::string> flags) {
    fp_.SetScript({{"responses", {{{"text", "ok"}}}}});
    RunOptions o;
    o.args = {"-p", "hello"};
    o.args.insert(o.args.end(), flags.begin(), flags.end());
    o.env = {{"PATH", "/usr/bin:/bin"},
             {"HOME", (root_ / "home").string()},
             {"SEPP_HOME", (root_ / "home" / ".sepp").string()},
             {"ANTHROPIC_BASE_URL", fp_.base_url()},
             {"ANTHROPIC_API_KEY", "sk-hooks-e2e"}};
    o.cwd = (root_ / "ws").string();
    return RunSepp(o);
  }
  // `sepp ext list --json` in the workspace: its entries of the given kind.
  std::vector<Json> Listed(const std::string& kind) {
    RunOptions o;
    o.args = {"ext", "list", "--json"};
    o.env = {{"PATH", "/usr/bin:/bin"},
             {"HOME", (root_ / "home").string()},
             {"SEPP_HOME", (root_ / "home" / ".sepp").string()}};
    o.cwd = (root_ / "ws").string();
    auto r = RunSepp(o);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::vector<Json> out;
    auto j = ParseJson(r.out);
    if (!j.ok()) return out;
    for (const auto& e : (*j)["extensions"])
      if (e.value("kind", "") == kind) out.push_back(e);
    return out;
  }
  // The text of the last request's first user message.
  std::string FirstUserText() {
    auto rs = fp_.requests();
    if (rs.empty()) return "(no request)";
    for (const auto& m : rs.back().body.value("messages", Json::array())) {
      if (m.value("role", "") != "user") continue;
      if (m["content"].is_string()) return m["content"];
      std::string t;
      for (const auto& b : m["content"]) t += b.value("text", "");
      return t;
    }
    return "(no user message)";
  }
  std::string ResultFor(const std::string& id) {
    std::string r = fake::LastToolResult(fp_, id);
    return r.empty() ? "(no result)" : r;
  }
  std::string C(size_t i) const { return "r" + std::to_string(run_) + "c" + std::to_string(i); }
  std::string Result(size_t i) { return ResultFor(C(i)); }
  int run_ = 0;
  fs::path root_;
  fake::FakeProvider fp_;
};

TEST_F(HooksE2E, ALuaHookDeniesRewritesAndAddsContext) {
  Write(root_ / "guard.lua", R"lua(
    sepp.on("tool_call", "bash", function(ev)
      if ev.input.command:find("rm ") then return {action = "deny", reason = "no deleting here"} end
      if ev.input.command == "echo hi" then return {input = {command = "echo rewritten-by-hook"}} end
    end)
    sepp.on("tool_result", "bash", function(ev) return {context = "checked " .. ev.call_id} end)
  )lua");
  auto r = Run({"rm -f keep.txt", "echo hi"}, {"--hook", (root_ / "guard.lua").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(root_ / "ws" / "keep.txt")) << "the denied command did not run";
  EXPECT_NE(Result(0).find("a hook denied this call: no deleting here"), std::string::npos)
      << Result(0);
  std::string c1 = Result(1);
  EXPECT_NE(c1.find("rewritten-by-hook"), std::string::npos) << c1;
  EXPECT_NE(c1.find("<system-reminder>\nchecked " + C(1) + "\n</system-reminder>"), std::string::npos) << c1;
  EXPECT_NE(r.out.find("finished"), std::string::npos);
}

// Claude's PermissionRequest: a PreToolUse hook asks, and with no one to
// answer in -p, a PermissionRequest hook decides for the user, by Claude's
// JSON (allow) or exit 2 (deny, stderr to the model).
TEST_F(HooksE2E, APermissionRequestHookAnswersWhatAPreToolUseHookAsks) {
  Write(root_ / "home" / ".sepp" / "hooks.json", R"json({"hooks": {
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command":
      "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"ask\", \"permissionDecisionReason\": \"confirm it\"}}'"}]}],
    "PermissionRequest": [{"matcher": "Bash", "hooks": [{"type": "command", "command":
      "grep -q '\"command\":\"echo fine\"' && echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PermissionRequest\", \"decision\": {\"behavior\": \"allow\"}}}' || { echo 'not on my watch' >&2; exit 2; }"}]}]
  }})json");
  auto r = Run({"echo fine", "echo bad > planted.txt"}, {});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(Result(0).find("fine"), std::string::npos) << Result(0);
  EXPECT_NE(Result(1).find("not run: a hook denied it: not on my watch"), std::string::npos) << Result(1);
  EXPECT_FALSE(fs::exists(root_ / "ws" / "planted.txt"));
}

// sepp.register_command in -p: "/name args" runs the hook's function; a
// command that sends nothing ends the run without a model call; one that
// fails says why and exits 1; the events of a prompt reach the hooks.
TEST_F(HooksE2E, AHookCommandRunsFromPrintMode) {
  Write(root_ / "cmds.lua", R"lua(
    sepp.register_command{name = "greet", run = function(args)
      sepp.send_message("say hello to " .. args, {deliver = "follow_up"})
    end}
    sepp.register_command{name = "quiet", run = function(args) sepp.notify("quiet ran with " .. args) end}
    sepp.register_command{name = "broken", run = function() error("the command broke") end}
    sepp.on("before_agent_start", function(ev) return {system = "hook-system-addition"} end)
    sepp.on("message_end", function(ev)
      if ev.role == "assistant" then sepp.notify("assistant said " .. ev.text) end
    end)
  )lua");
  std::string hook = (root_ / "cmds.lua").string();
  fp_.SetScript({{"responses", {{{"text", "hello everyone"}}}}});
  RunOptions o;
  o.env = {{"PATH", "/usr/bin:/bin"},
           {"HOME", (root_ / "home").string()},
           {"SEPP_HOME", (root_ / "home" / ".sepp").string()},
           {"ANTHROPIC_BASE_URL", fp_.base_url()},
           {"ANTHROPIC_API_KEY", "sk-hooks-e2e"}};
  o.cwd = (root_ / "ws").string();
  size_t before = fp_.requests().size();
  o.args = {"-p", "/greet the team", "--hook", hook};
  auto greet = RunSepp(o);
  ASSERT_EQ(greet.exit_code, 0) << greet.err;
  EXPECT_NE(greet.out.find("hello everyone"), std::string::npos) << greet.out;
  auto reqs = fp_.requests();
  ASSERT_EQ(reqs.size(), before + 1);
  EXPECT_NE(reqs.back().body["messages"].dump().find("say hello to the team"), std::string::npos);
  EXPECT_NE(reqs.back().body["system"].dump().find("hook-system-addition"), std::string::npos);
  EXPECT_NE(greet.err.find("assistant said hello everyone"), std::string::npos) << greet.err;

  o.args = {"-p", "/quiet a b", "--hook", hook};
  auto q = RunSepp(o);
  EXPECT_EQ(q.exit_code, 0) << q.err;
  EXPECT_NE(q.err.find("quiet ran with a b"), std::string::npos) << q.err;
  EXPECT_EQ(fp_.requests().size(), before + 1) << "no model call";

  o.args = {"-p", "/broken", "--hook", hook};
  auto b = RunSepp(o);
  EXPECT_EQ(b.exit_code, 1) << b.err;
  EXPECT_NE(b.err.find("the command broke"), std::string::npos) << b.err;
  EXPECT_EQ(fp_.requests().size(), before + 1);
}

TEST_F(HooksE2E, ALoopingHookIsStoppedAndTheTurnGoesOn) {
  Write(root_ / "loop.lua", "sepp.on('tool_call', function(ev) while true do end end)");
  auto r = Run({"echo still-runs"}, {"--hook", (root_ / "loop.lua").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(Result(0).find("still-runs"), std::string::npos) << Result(0);
  EXPECT_NE(r.err.find("loop.lua"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("stopped"), std::string::npos) << r.err;
}

TEST_F(HooksE2E, AProjectsHooksRunOnlyOnceTrusted) {
  Write(root_ / "ws" / ".sepp" / "hooks" / "deny.lua",
        "sepp.on('tool_call', function() return {action = 'deny', reason = 'project lua hook'} end)");
  Write(root_ / "ws" / ".sepp" / "hooks.json", R"({"hooks": {"PreToolUse": [{"matcher": "Bash",
        "hooks": [{"type": "command", "command": "cat >/dev/null; echo 'project hooks.json' >&2; exit 2"}]}]}})");
  auto untrusted = Run({"echo ran-untrusted"}, {});
  ASSERT_EQ(untrusted.exit_code, 0) << untrusted.err;
  EXPECT_NE(Result(0).find("ran-untrusted"), std::string::npos) << Result(0);
  EXPECT_NE(untrusted.err.find("deny.lua"), std::string::npos) << untrusted.err;
  EXPECT_NE(untrusted.err.find("hooks.json"), std::string::npos) << untrusted.err;
  EXPECT_NE(untrusted.err.find("sepp trust"), std::string::npos) << untrusted.err;
  // sepp ext list says so too, without running the hook.
  auto lua = Listed("lua-hook");
  ASSERT_EQ(lua.size(), 1u);
  EXPECT_EQ(lua[0]["tier"], 2);
  EXPECT_EQ(lua[0]["scope"], "project");
  EXPECT_FALSE(lua[0]["loaded"].get<bool>()) << lua[0];
  EXPECT_NE(lua[0]["trust"].get<std::string>().find("untrusted"), std::string::npos) << lua[0];

  auto trusted = Run({"echo ran-trusted"}, {"--trust"});
  ASSERT_EQ(trusted.exit_code, 0) << trusted.err;
  std::string res = Result(0);
  EXPECT_EQ(res.find("ran-trusted"), std::string::npos) << res;
  // Lua first, then hooks.json: the first deny ends the chain.
  EXPECT_NE(res.find("project lua hook"), std::string::npos) << res;

  // hooks.json alone, trusted, blocks with its stderr.
  fs::remove(root_ / "ws" / ".sepp" / "hooks" / "deny.lua");
  auto changed = Run({"echo ran-changed"}, {});
  EXPECT_NE(Result(0).find("ran-changed"), std::string::npos)
      << "the content changed: untrusted again";
  auto json_only = Run({"echo ran-json"}, {"--trust"});
  ASSERT_EQ(json_only.exit_code, 0) << json_only.err;
  EXPECT_NE(Result(0).find("a hook denied this call: project hooks.json"), std::string::npos)
      << Result(0);
}

TEST_F(HooksE2E, SessionStartContextAndStateThatSurvivesResume) {
  Write(root_ / "state.lua", R"lua(
    sepp.on("session_start", function(ev, ctx)
      return {context = "SESSION-CTX " .. ev.source .. " runs=" .. tostring(ctx.state.get("runs") or 0)}
    end)
    sepp.on("input", function(ev, ctx) ctx.state.set("runs", (ctx.state.get("runs") or 0) + 1) end)
  )lua");
  std::string hook = (root_ / "state.lua").string();
  auto first = RunText({"--hook", hook});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(FirstUserText().find("SESSION-CTX startup runs=0"), std::string::npos) << FirstUserText();
  auto again = RunText({"--hook", hook, "-c"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  // The resumed session's first user message is the first run's; the new
  // prompt carries the new context.
  bool found = false;
  for (const auto& m : fp_.requests().back().body.value("messages", Json::array()))
    if (m.dump().find("SESSION-CTX resume runs=1") != std::string::npos) found = true;
  EXPECT_TRUE(found) << "ctx.state came back from the session";
}

}  // namespace
}  // namespace sepp::e2e
