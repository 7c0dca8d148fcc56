// Lua hooks (tier 2): the sandboxed state and its limits, the sepp API, and
// the loop driven by hooks through the scripted provider.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <thread>

#include "agent/agent.h"
#include "agent/test_doubles.h"
#include "base/project_trust.h"
#include "ext/hook_loader.h"
#include "ext/lua/lua_hook_file.h"
#include "ext/lua/lua_sandbox.h"

namespace sepp::ext {
namespace {

using agent::testing::Assistant;
using agent::testing::Call;
using agent::testing::EchoTool;
using agent::testing::ScriptedProvider;

// Records what the hooks report, send and notify.
struct HostLog {
  std::mutex mu;
  std::vector<std::string> reports, messages, notes;
  Json saved;
  LuaHost Host() {
    LuaHost h;
    h.cwd = "/tmp";
    h.report = [this](const std::string& s) {
      std::lock_guard<std::mutex> l(mu);
      reports.push_back(s);
    };
    h.send_message = [this](const std::string& t, const std::string& d) {
      std::lock_guard<std::mutex> l(mu);
      messages.push_back(d + ":" + t);
    };
    h.notify = [this](const std::string& lvl, const std::string& t) {
      std::lock_guard<std::mutex> l(mu);
      notes.push_back(lvl + ":" + t);
    };
    h.save_state = [this](const std::filesystem::path&, const Json& s) {
      std::lock_guard<std::mutex> l(mu);
      saved = s;
    };
    return h;
  }
};

std::shared_ptr<LuaHookFile> Load(const std::string& src, HostLog& log, LuaLimits limits = {}) {
  auto f = LuaHookFile::LoadSource(src, "test.lua", log.Host(), limits);
  EXPECT_TRUE(f.ok()) << (f.ok() ? "" : f.error().message);
  return f.ok() ? *f : nullptr;
}

LuaLimits Small() {
  LuaLimits l;
  l.memory_bytes = 4u << 20;
  l.instructions = 2'000'000;
  l.deadline = std::chrono::milliseconds(5000);
  return l;
}

// ---- the sandbox

TEST(LuaSandbox, OnlyTheSafeLibraryIsThere) {
  LuaSandbox lua;
  for (const char* escape :
       {"io.open('/etc/passwd')", "os.execute('true')", "os.getenv('HOME')", "os.remove('/tmp/x')",
        "dofile('/etc/passwd')", "loadfile('/etc/passwd')", "package.loadlib('x','y')",
        "debug.getinfo(1)", "string.dump(print)", "require('io')", "collectgarbage('stop')"}) {
    Status st = lua.Run(escape, "escape");
    EXPECT_FALSE(st.ok()) << escape << " should have failed";
  }
  // What a hook legitimately uses still works.
  EXPECT_TRUE(lua.Run("assert(string.format('%d', 42) == '42'); assert(math.max(1,2) == 2);"
                      "assert(#table.concat({'a','b'}) == 2); assert(os.time() > 0);"
                      "assert(utf8.len('é') == 1); local f = load('return 1 + 1'); assert(f() == 2)",
                      "legit")
                  .ok());
}

TEST(LuaSandbox, BytecodeIsRefusedEvenThroughLoad) {
  LuaSandbox lua;
  // A binary chunk starts with ESC "Lua"; load must refuse it whatever mode it is asked for.
  Status st = lua.Run("local f, err = load('\\27Lua\\84\\0', 'x', 'b'); assert(f == nil, 'loaded bytecode');"
                      "assert(err:find('binary'), err)",
                      "bytecode");
  EXPECT_TRUE(st.ok()) << st.error().message;
}

TEST(LuaSandbox, AnEndlessLoopIsStoppedByTheBudget) {
  LuaLimits l = Small();
  l.instructions = 100'000;
  LuaSandbox lua(l);
  Status st = lua.Run("while true do end", "loop");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("instruction budget"), std::string::npos) << st.error().message;
  // A loop that catches the error with pcall is stopped all the same.
  st = lua.Run("while true do pcall(function() while true do end end) end", "pcall-loop");
  ASSERT_FALSE(st.ok());
  // The state is usable afterwards, with a fresh budget.
  EXPECT_TRUE(lua.Run("local n = 0; for i = 1, 1000 do n = n + i end; assert(n == 500500)", "ok").ok());
}

TEST(LuaSandbox, AnEndlessLoopIsStoppedByTheDeadline) {
  LuaLimits l;
  l.instructions = int64_t{1} << 60;
  l.deadline = std::chrono::milliseconds(50);
  LuaSandbox lua(l);
  Status st = lua.Run("while true do end", "loop");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("deadline"), std::string::npos) << st.error().message;
}

TEST(LuaSandbox, AMemoryBombIsStoppedAndTheStateLivesOn) {
  LuaSandbox lua(Small());
  Status st = lua.Run("local t = {} ; while true do t[#t + 1] = string.rep('x', 4096) .. #t end",
                      "bomb");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("memory"), std::string::npos) << st.error().message;
  EXPECT_FALSE(lua.Run("local s = string.rep('x', 1 << 30)", "big").ok());
  EXPECT_LE(lua.memory_in_use(), Small().memory_bytes);
  EXPECT_TRUE(lua.Run("local s = string.rep('x', 1000); assert(#s == 1000)", "after").ok());
}

// ---- the API

TEST(LuaHookFile, LoadErrorsNameTheFileAndLine) {
  HostLog log;
  auto f = LuaHookFile::LoadSource("local x = 1\nsepp.on('no_such_event', function() end)\n",
                                   "bad.lua", log.Host());
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.error().message.find("bad.lua:2"), std::string::npos) << f.error().message;
  EXPECT_NE(f.error().message.find("tool_call"), std::string::npos) << "lists the events";
  auto syntax = LuaHookFile::LoadSource("sepp.on('stop', function(\n", "syntax.lua", log.Host());
  ASSERT_FALSE(syntax.ok());
  EXPECT_NE(syntax.error().message.find("syntax.lua"), std::string::npos);
}

TEST(LuaHookFile, ToolCallDecisionsFiltersAndRewrites) {
  HostLog log;
  auto f = Load(R"lua(
    local sepp = require("sepp")
    sepp.on("tool_call", "bash", function(ev, ctx)
      if ev.input.command:find("rm %-rf") then return {action = "deny", reason = "destructive"} end
      if ev.input.command == "ls" then
        return {action = "allow", input = {command = "ls -la"}, context = "listed long"}
      end
    end)
    sepp.on("tool_call", {tool = "write|edit"}, function(ev) return {action = "ask", reason = "writes"} end)
  )lua", log);
  ASSERT_TRUE(f);
  auto deny = f->BeforeToolCall({"bash", "c1", {{"command", "rm -rf /"}}, 1, false});
  EXPECT_EQ(deny.decision, agent::ToolCallVerdict::Decision::kDeny);
  EXPECT_EQ(deny.reason, "destructive");
  auto rw = f->BeforeToolCall({"bash", "c2", {{"command", "ls"}}, 1, false});
  EXPECT_EQ(rw.decision, agent::ToolCallVerdict::Decision::kAllow);
  EXPECT_EQ(rw.input, (Json{{"command", "ls -la"}}));
  EXPECT_EQ(rw.context, "listed long");
  EXPECT_EQ(f->BeforeToolCall({"edit", "c3", Json::object(), 1, false}).decision,
            agent::ToolCallVerdict::Decision::kAsk);
  EXPECT_EQ(f->BeforeToolCall({"read", "c4", Json::object(), 1, false}).decision,
            agent::ToolCallVerdict::Decision::kNone);
  EXPECT_TRUE(log.reports.empty());
}

TEST(LuaHookFile, HandlersInOneFileCombineByTheRules) {
  HostLog log;
  auto f = Load(R"lua(
    sepp.on("tool_call", function(ev) return {action = "allow", input = {text = ev.input.text .. "+a"}, context = "one"} end)
    sepp.on("tool_call", function(ev) return {action = "ask", input = {text = ev.input.text .. "+b"}, context = "two"} end)
    sepp.on("tool_call", function(ev) if ev.input.text:find("deny") then return {action = "deny", reason = "no"} end end)
    sepp.on("tool_call", function(ev) error("never reached after a deny") end)
  )lua", log);
  ASSERT_TRUE(f);
  auto v = f->BeforeToolCall({"echo", "c", {{"text", "x"}}, 1, false});
  EXPECT_EQ(v.decision, agent::ToolCallVerdict::Decision::kAsk);  // ask > allow
  EXPECT_EQ(v.input["text"], "x+a+b");                            // transforms chain
  EXPECT_EQ(v.context, "one\n\ntwo");                             // context concatenates
  EXPECT_EQ(log.reports.size(), 1u) << "the fourth handler ran and failed (reported)";
  log.reports.clear();
  auto d = f->BeforeToolCall({"echo", "c", {{"text", "deny"}}, 1, false});
  EXPECT_EQ(d.decision, agent::ToolCallVerdict::Decision::kDeny);  // deny > ask
  EXPECT_TRUE(log.reports.empty()) << "the chain ends at the deny";
}

TEST(LuaHookFile, HookChainAcrossFilesDenyWinsAndContextJoins) {
  HostLog log;
  auto a = Load("sepp.on('tool_call', function(ev) return {action='allow', context='a'} end)", log);
  auto b = Load("sepp.on('tool_call', function(ev) return {action='deny', reason='b says no'} end)", log);
  agent::HookChain chain;
  chain.Add(a);
  chain.Add(b);
  auto v = chain.BeforeToolCall({"echo", "c", Json::object(), 1, false});
  EXPECT_EQ(v.decision, agent::ToolCallVerdict::Decision::kDeny);
  EXPECT_EQ(v.reason, "b says no");
  EXPECT_EQ(v.context, "a");
}

TEST(LuaHookFile, FailOpenByDefaultFailClosedWhenAsked) {
  HostLog log;
  auto open = Load("sepp.on('tool_call', function(ev) while true do end end)", log, [] {
    LuaLimits l = Small();
    l.instructions = 50'000;
    return l;
  }());
  ASSERT_TRUE(open);
  EXPECT_EQ(open->BeforeToolCall({"bash", "c", Json::object(), 1, false}).decision,
            agent::ToolCallVerdict::Decision::kNone);
  ASSERT_EQ(log.reports.size(), 1u);
  EXPECT_NE(log.reports[0].find("instruction budget"), std::string::npos) << log.reports[0];
  auto closed = Load("sepp.on('tool_call', {tool = 'bash', on_error = 'deny'}, function(ev) error('boom') end)", log);
  ASSERT_TRUE(closed);
  auto v = closed->BeforeToolCall({"bash", "c", Json::object(), 1, false});
  EXPECT_EQ(v.decision, agent::ToolCallVerdict::Decision::kDeny);
  EXPECT_NE(v.reason.find("failed"), std::string::npos);
  // A bad answer is reported, not obeyed.
  log.reports.clear();
  auto bad = Load("sepp.on('tool_call', function(ev) return {action = 'maybe'} end)", log);
  EXPECT_EQ(bad->BeforeToolCall({"bash", "c", Json::object(), 1, false}).decision,
            agent::ToolCallVerdict::Decision::kNone);
  ASSERT_EQ(log.reports.size(), 1u);
  EXPECT_NE(log.reports[0].find("maybe"), std::string::npos);
  EXPECT_FALSE(LuaHookFile::LoadSource("sepp.on('stop', {on_error = 'deny'}, function() end)",
                                       "x.lua", log.Host())
                   .ok())
      << "fail-closed is for tool_call only";
}

TEST(LuaHookFile, StateMessagesNotifyJsonAndCommands) {
  HostLog log;
  auto f = Load(R"lua(
    sepp.on("tool_result", function(ev, ctx)
      local n = (ctx.state.get("n") or 0) + 1
      ctx.state.set("n", n)
      local parsed = sepp.json.decode(ev.content)
      sepp.send_message("seen " .. parsed.k, {deliver = "steer"})
      sepp.notify("result " .. n, "warning")
      return {content = sepp.json.encode({n = n}), context = "count " .. n}
    end)
    sepp.register_command{name = "hello", description = "says hello",
      run = function(args, ctx) sepp.send_message("hello " .. args, {deliver = "follow_up"}) end}
  )lua", log);
  ASSERT_TRUE(f);
  agent::ToolResultInfo in{"echo", "c", Json::object(), R"({"k":"v"})", false, 1, 1, false};
  f->AfterToolResult(in);
  auto p = f->AfterToolResult(in);
  ASSERT_TRUE(p.text);
  EXPECT_EQ(*p.text, R"({"n":2})");
  EXPECT_EQ(p.context, "count 2");
  EXPECT_EQ(log.saved, (Json{{"n", 2}}));
  EXPECT_EQ(log.messages, (std::vector<std::string>{"steer:seen v", "steer:seen v"}));
  EXPECT_EQ(log.notes.back(), "warning:result 2");
  // The state comes back from the session.
  f->RestoreState({{"n", 40}});
  f->AfterToolResult(in);
  EXPECT_EQ(log.saved["n"], 41);
  ASSERT_EQ(f->commands().size(), 1u);
  EXPECT_TRUE(f->RunCommand("hello", "world").ok());
  EXPECT_EQ(log.messages.back(), "follow_up:hello world");
  EXPECT_FALSE(f->RunCommand("nope", "").ok());
}

TEST(LuaHookFile, RegisteredToolRunsInTheState) {
  HostLog log;
  auto f = Load(R"lua(
    sepp.register_tool{name = "ticket", description = "looks up a ticket",
      parameters = {type = "object", properties = {id = {type = "string"}}, required = {"id"}},
      run = function(args, ctx)
        if args.id == "bad" then error("no such ticket") end
        return {content = {{type = "text", text = "ticket " .. args.id}}}
      end}
  )lua", log);
  ASSERT_TRUE(f);
  auto tools = f->TakeTools();
  ASSERT_EQ(tools.size(), 1u);
  EXPECT_EQ(tools[0]->name(), "ticket");
  EXPECT_EQ(tools[0]->parameters()["required"][0], "id");
  tools::ToolContext ctx;
  auto r = tools[0]->Run({{"id", "42"}}, ctx);
  EXPECT_EQ(r.text, "ticket 42");
  EXPECT_FALSE(r.is_error);
  auto e = tools[0]->Run({{"id", "bad"}}, ctx);
  EXPECT_TRUE(e.is_error);
  EXPECT_NE(e.text.find("no such ticket"), std::string::npos);
  EXPECT_TRUE(f->TakeTools().empty()) << "tools are handed out once";
}

TEST(LuaHookFile, ParallelCallsAreSerialisedPerFile) {
  HostLog log;
  auto f = Load(R"lua(
    sepp.on("tool_call", function(ev, ctx)
      local n = (ctx.state.get("n") or 0)
      for i = 1, 1000 do end   -- widen the window a race would need
      ctx.state.set("n", n + 1)
    end)
  )lua", log);
  ASSERT_TRUE(f);
  std::vector<std::thread> ts;
  for (int t = 0; t < 8; ++t)
    ts.emplace_back([&] {
      for (int i = 0; i < 50; ++i) f->BeforeToolCall({"echo", "c", Json::object(), 1, false});
    });
  for (auto& t : ts) t.join();
  EXPECT_EQ(f->state()["n"], 400);
}

// ---- the loop, driven by Lua hooks

class LuaLoopTest : public ::testing::Test {
 protected:
  LuaLoopTest() {
    registry_.Add(std::make_unique<EchoTool>());
    config_.model = "m";
    config_.cwd = "/tmp";
  }
  agent::Outcome Run(const std::string& lua, const std::string& prompt, LuaLimits limits = {}) {
    file_ = Load(lua, log_, limits);
    config_.hooks = file_.get();
    agent::Agent a(config_, provider_, registry_, [&](const agent::Event& e) { events_.push_back(e); },
                   nullptr);
    auto o = a.Prompt(prompt, cancel_);
    messages_ = a.messages();
    return o;
  }
  // The text of the tool result message for call id.
  std::string ResultOf(const std::string& id) {
    for (const auto& m : messages_)
      if (m.role == llm::Role::kToolResult && m.tool_call_id == id) return m.Text();
    return "(none)";
  }

  HostLog log_;
  std::shared_ptr<LuaHookFile> file_;
  ScriptedProvider provider_;
  tools::ToolRegistry registry_;
  agent::AgentConfig config_;
  CancelToken cancel_;
  std::vector<agent::Event> events_;
  std::vector<llm::Message> messages_;
};

TEST_F(LuaLoopTest, DeniesOneCallRewritesAnotherAndAddsContext) {
  provider_.queue.push_back(Assistant({Call("a", "echo", {{"text", "rm -rf /"}}),
                                       Call("b", "echo", {{"text", "hello"}})},
                                      llm::StopReason::kToolUse));
  provider_.queue.push_back(Assistant({llm::ContentBlock::Text("done")}));
  auto o = Run(R"lua(
    sepp.on("tool_call", "echo", function(ev)
      if ev.input.text:find("rm %-rf") then return {action = "deny", reason = "destructive command"} end
      return {input = {text = ev.input.text .. " (rewritten)"}}
    end)
    sepp.on("tool_result", function(ev) return {context = "checked " .. ev.call_id} end)
  )lua", "go");
  EXPECT_EQ(o.status, agent::Outcome::Status::kDone);
  EXPECT_NE(ResultOf("a").find("a hook denied this call: destructive command"), std::string::npos)
      << ResultOf("a");
  EXPECT_EQ(ResultOf("b"), "hello (rewritten)\n\n<system-reminder>\nchecked b\n</system-reminder>");
  // The model saw exactly that in its next request.
  ASSERT_EQ(provider_.requests.size(), 2u);
  EXPECT_TRUE(log_.reports.empty());
}

TEST_F(LuaLoopTest, KeepsTheAgentGoingAtStopOnce) {
  provider_.queue.push_back(Assistant({llm::ContentBlock::Text("first")}));
  provider_.queue.push_back(Assistant({llm::ContentBlock::Text("second")}));
  provider_.queue.push_back(Assistant({llm::ContentBlock::Text("third")}));
  auto o = Run(R"lua(
    sepp.on("stop", function(ev)
      if not ev.stop_hook_active then return {action = "continue", reason = "run the tests first"} end
    end)
  )lua", "go");
  EXPECT_EQ(o.status, agent::Outcome::Status::kDone);
  EXPECT_EQ(o.turns, 2);
  EXPECT_EQ(o.final_text, "second");
  ASSERT_EQ(provider_.requests.size(), 2u);
  EXPECT_EQ(provider_.requests[1].messages.back().Text(), "run the tests first");
}

TEST_F(LuaLoopTest, TransformsBlocksAndHandlesInput) {
  provider_.queue.push_back(Assistant({llm::ContentBlock::Text("ok")}));
  auto o = Run(R"lua(
    sepp.on("input", function(ev)
      if ev.text == "secret" then return {action = "block", reason = "not that"} end
      if ev.text == "/local" then return {action = "handled"} end
      return {action = "transform", text = ev.text:upper(), context = "from a hook"}
    end)
  )lua", "shout");
  EXPECT_EQ(o.status, agent::Outcome::Status::kDone);
  ASSERT_EQ(provider_.requests.size(), 1u);
  EXPECT_EQ(provider_.requests[0].messages[0].Text(),
            "SHOUT\n\n<system-reminder>\nfrom a hook\n</system-reminder>");
  agent::Agent a(config_, provider_, registry_, nullptr, nullptr);
  auto blocked = a.Prompt("secret", cancel_);
  EXPECT_EQ(blocked.status, agent::Outcome::Status::kError);
  EXPECT_EQ(blocked.error.kind, "hook_blocked");
  auto handled = a.Prompt("/local", cancel_);
  EXPECT_EQ(handled.status, agent::Outcome::Status::kDone);
  EXPECT_EQ(provider_.requests.size(), 1u) << "neither reached the model";
}

TEST_F(LuaLoopTest, SuppliesACompactionSummary) {
  config_.compaction.keep_recent_tokens = 1;
  file_ = Load(R"lua(
    sepp.on("before_compact", function(ev)
      if ev.trigger == "manual" then return {summary = "the hook's summary: " .. ev.instructions} end
    end)
  )lua", log_);
  config_.hooks = file_.get();
  agent::Agent a(config_, provider_, registry_, nullptr, nullptr);
  provider_.queue.push_back(Assistant({llm::ContentBlock::Text("one")}));
  provider_.queue.push_back(Assistant({llm::ContentBlock::Text("two")}));
  a.Prompt("first", cancel_);
  a.Prompt("second", cancel_);
  size_t calls = provider_.requests.size();
  auto r = a.Compact("focus here", cancel_);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->summary, "the hook's summary: focus here");
  EXPECT_EQ(provider_.requests.size(), calls) << "no model call for the summary";
  EXPECT_NE(a.messages()[0].Text().find("the hook's summary"), std::string::npos);
}

TEST_F(LuaLoopTest, CancelsCompaction) {
  config_.compaction.keep_recent_tokens = 1;
  file_ = Load("sepp.on('before_compact', function() return {action = 'cancel'} end)", log_);
  config_.hooks = file_.get();
  agent::Agent a(config_, provider_, registry_, nullptr, nullptr);
  provider_.queue.push_back(Assistant({llm::ContentBlock::Text("one")}));
  a.Prompt("first", cancel_);
  auto r = a.Compact("", cancel_);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, "cancelled_by_hook");
}

TEST_F(LuaLoopTest, AnInfiniteLoopHookAndAMemoryBombDoNotHarmTheTurn) {
  provider_.queue.push_back(Assistant({Call("a", "echo", {{"text", "still runs"}})},
                                      llm::StopReason::kToolUse));
  provider_.queue.push_back(Assistant({llm::ContentBlock::Text("done")}));
  LuaLimits l = Small();
  l.instructions = 200'000;
  auto o = Run(R"lua(
    sepp.on("tool_call", function(ev) while true do end end)
    sepp.on("tool_result", function(ev) local t = {} while true do t[#t+1] = string.rep("y", 1000) .. #t end end)
    -- still obeyed after the failures
    sepp.on("stop", function(ev) if not ev.stop_hook_active then return {action = "continue"} end end)
  )lua", "go", l);
  EXPECT_EQ(ResultOf("a"), "still runs");
  ASSERT_GE(log_.reports.size(), 2u);
  EXPECT_NE(log_.reports[0].find("instruction budget"), std::string::npos) << log_.reports[0];
  EXPECT_NE(log_.reports[1].find("memory"), std::string::npos) << log_.reports[1];
  EXPECT_EQ(o.status, agent::Outcome::Status::kDone);
  EXPECT_EQ(o.final_text, "(script exhausted)") << "the stop hook kept it going once";
}

TEST_F(LuaLoopTest, StopAfterTheBatchAndBatchContext) {
  provider_.queue.push_back(Assistant({Call("a", "echo", {{"text", "x"}})}, llm::StopReason::kToolUse));
  provider_.queue.push_back(Assistant({llm::ContentBlock::Text("unreached")}));
  auto o = Run("sepp.on('tool_batch_end', function(ev) return {action = 'stop', reason = 'enough: ' .. #ev.calls} end)",
               "go");
  EXPECT_EQ(o.status, agent::Outcome::Status::kDone);
  EXPECT_EQ(provider_.requests.size(), 1u);
  bool told = false;
  for (const auto& e : events_)
    if (e.type == agent::EventType::kError && e.kind == "hook_stopped")
      told = e.text.find("enough: 1") != std::string::npos;
  EXPECT_TRUE(told);
}

// Allows every request, and counts them.
class AllowingGate : public agent::PermissionGate {
 public:
  int asked = 0;
  agent::PermissionAnswer Ask(const agent::PermissionRequest&, CancelToken&) override {
    ++asked;
    return {agent::PermissionChoice::kAllowOnce, "", "user"};
  }
};

TEST_F(LuaLoopTest, ACallAHookDeniedCannotBeRunByRetryingIt) {
  AllowingGate gate;
  config_.permission_gate = &gate;
  provider_.queue.push_back(Assistant({Call("a", "echo", {{"text", "forbidden"}})}, llm::StopReason::kToolUse));
  provider_.queue.push_back(Assistant({Call("r", "retry_with_access",
                                            {{"call_id", "a"}, {"domains", {"example.com"}},
                                             {"justification", "please"}})},
                                      llm::StopReason::kToolUse));
  provider_.queue.push_back(Assistant({Call("b", "echo", {{"text", "allowed"}})}, llm::StopReason::kToolUse));
  provider_.queue.push_back(Assistant({Call("r2", "retry_with_access",
                                            {{"call_id", "b"}, {"domains", {"example.com"}},
                                             {"justification", "again"}})},
                                      llm::StopReason::kToolUse));
  provider_.queue.push_back(Assistant({llm::ContentBlock::Text("done")}));
  // Denies "forbidden" only while it is asked the first time, then a
  // retry of "allowed" is rewritten and judged again.
  Run(R"lua(
    sepp.on("tool_call", "echo", function(ev)
      if ev.input.text == "forbidden" then return {action = "deny", reason = "not that"} end
      return {input = {text = ev.input.text .. " (hooked)"}}
    end)
  )lua", "go");
  EXPECT_NE(ResultOf("a").find("not that"), std::string::npos) << ResultOf("a");
  EXPECT_NE(ResultOf("r").find("no earlier call"), std::string::npos) << ResultOf("r");
  EXPECT_EQ(ResultOf("b"), "allowed (hooked)");
  // The retry repeats what ran (the rewritten arguments), judged by the hook again.
  EXPECT_NE(ResultOf("r2").find("allowed (hooked) (hooked)"), std::string::npos) << ResultOf("r2");
  EXPECT_EQ(gate.asked, 1) << "only the retry of the call that ran reached the user";
}

TEST_F(LuaLoopTest, BeforeAgentStartAddsToTheSystemPromptAndThePrompt) {
  config_.system_prompt = "base";
  provider_.queue.push_back(Assistant({Call("a", "echo", {{"text", "x"}})}, llm::StopReason::kToolUse));
  provider_.queue.push_back(Assistant({llm::ContentBlock::Text("done")}));
  Run(R"lua(
    sepp.on("before_agent_start", function(ev)
      return {system = "rules for " .. ev.prompt .. " (" .. ev.system_prompt .. ")", context = "started"}
    end)
  )lua", "go");
  ASSERT_EQ(provider_.requests.size(), 2u);
  for (const auto& r : provider_.requests) EXPECT_EQ(r.system, "base\n\nrules for go (base)");
  EXPECT_EQ(provider_.requests[0].messages[0].Text(), "go\n\n<system-reminder>\nstarted\n</system-reminder>");
}

TEST_F(LuaLoopTest, ContextReplacesWhatTheModelSeesForOneRequestOnly) {
  provider_.queue.push_back(Assistant({Call("a", "echo", {{"text", "secret-output"}})}, llm::StopReason::kToolUse));
  provider_.queue.push_back(Assistant({llm::ContentBlock::Text("done")}));
  Run(R"lua(
    sepp.on("context", function(ev)
      -- Hide tool outputs from the model: each tool result's text is replaced.
      for _, m in ipairs(ev.messages) do
        if m.role == "tool_result" then m.content = {{type = "text", text = "[hidden]"}} end
      end
      return {messages = ev.messages}
    end)
    sepp.on("context", function(ev)
      -- The second handler sees the first one's messages.
      local last = ev.messages[#ev.messages]
      if last.role == "tool_result" then sepp.notify("second saw " .. last.content[1].text) end
    end)
  )lua", "go");
  ASSERT_EQ(provider_.requests.size(), 2u);
  EXPECT_EQ(provider_.requests[1].messages.back().Text(), "[hidden]");
  EXPECT_EQ(ResultOf("a"), "secret-output") << "the session keeps its own context";
  EXPECT_EQ(log_.notes, std::vector<std::string>{"info:second saw [hidden]"});
}

TEST_F(LuaLoopTest, ABadContextAnswerIsReportedAndTheRealContextGoes) {
  provider_.queue.push_back(Assistant({llm::ContentBlock::Text("done")}));
  auto o = Run(R"lua(
    sepp.on("context", function(ev) return {messages = {{role = "wizard"}}} end)
    sepp.on("context", function(ev) return {messages = {}} end)
  )lua", "go");
  EXPECT_EQ(o.status, agent::Outcome::Status::kDone);
  ASSERT_EQ(provider_.requests.size(), 1u);
  EXPECT_EQ(provider_.requests[0].messages[0].Text(), "go");
  ASSERT_EQ(log_.reports.size(), 2u);
  EXPECT_NE(log_.reports[0].find("bad message 1"), std::string::npos) << log_.reports[0];
  EXPECT_NE(log_.reports[1].find("not a non-empty list"), std::string::npos) << log_.reports[1];
}

TEST_F(LuaLoopTest, MessageEndSeesEveryMessageInOrder) {
  provider_.queue.push_back(Assistant({Call("a", "echo", {{"text", "x"}})}, llm::StopReason::kToolUse));
  provider_.queue.push_back(Assistant({llm::ContentBlock::Text("done")}));
  Run("sepp.on('message_end', function(ev) sepp.notify(ev.role .. ':' .. ev.text) end)", "go");
  EXPECT_EQ(log_.notes, (std::vector<std::string>{"info:user:go", "info:assistant:",
                                                  "info:tool_result:x", "info:assistant:done"}));
}

TEST_F(LuaLoopTest, PermissionRequestAnswersForTheUser) {
  // No gate: without the hook, a call a hook asks about could not run.
  provider_.queue.push_back(Assistant({Call("a", "echo", {{"text", "fine"}}),
                                       Call("b", "echo", {{"text", "risky"}}),
                                       Call("c", "echo", {{"text", "unsure"}})},
                                      llm::StopReason::kToolUse));
  provider_.queue.push_back(Assistant({llm::ContentBlock::Text("done")}));
  Run(R"lua(
    sepp.on("tool_call", "echo", function(ev) return {action = "ask", reason = "check " .. ev.input.text} end)
    sepp.on("permission_request", "echo", function(ev)
      if ev.input.text == "fine" then return {action = "allow"} end
      if ev.input.text == "risky" then return {action = "deny", reason = "too risky (" .. ev.reason .. ")"} end
    end)
  )lua", "go");
  EXPECT_EQ(ResultOf("a"), "fine");
  EXPECT_NE(ResultOf("b").find("a hook denied it: too risky (a hook asks: check risky)"), std::string::npos)
      << ResultOf("b");
  EXPECT_NE(ResultOf("c").find("no one can answer"), std::string::npos) << ResultOf("c");
}

TEST_F(LuaLoopTest, PermissionRequestAnswersARetryWithoutAskingTheGate) {
  AllowingGate gate;
  config_.permission_gate = &gate;
  provider_.queue.push_back(Assistant({Call("a", "echo", {{"text", "x"}})}, llm::StopReason::kToolUse));
  provider_.queue.push_back(Assistant({Call("r", "retry_with_access",
                                            {{"call_id", "a"}, {"domains", {"example.com"}},
                                             {"justification", "please"}})},
                                      llm::StopReason::kToolUse));
  provider_.queue.push_back(Assistant({llm::ContentBlock::Text("done")}));
  Run(R"lua(
    sepp.on("permission_request", function(ev)
      sepp.notify(ev.tool .. " wants " .. table.concat(ev.widenings, ", "))
      return {action = "deny", reason = "no network"}
    end)
  )lua", "go");
  EXPECT_EQ(gate.asked, 0);
  EXPECT_NE(ResultOf("r").find("a hook denied it: no network"), std::string::npos) << ResultOf("r");
  ASSERT_EQ(log_.notes.size(), 1u);
  EXPECT_NE(log_.notes[0].find("echo wants"), std::string::npos) << log_.notes[0];
  EXPECT_NE(log_.notes[0].find("example.com"), std::string::npos) << log_.notes[0];
}

TEST_F(LuaLoopTest, ErrorInterruptAndModelSelectAreObserved) {
  provider_.queue.push_back(Error::Make("the provider fell over", "provider"));
  file_ = Load(R"lua(
    sepp.on("error", function(ev) sepp.notify("error " .. ev.kind .. ": " .. ev.message) end)
    sepp.on("interrupt", function(ev) sepp.notify("interrupted") end)
    sepp.on("model_select", function(ev) sepp.notify(ev.previous .. " -> " .. ev.model) end)
  )lua", log_);
  config_.hooks = file_.get();
  agent::Agent a(config_, provider_, registry_, nullptr, nullptr);
  EXPECT_EQ(a.Prompt("go", cancel_).status, agent::Outcome::Status::kError);
  a.SetModel("m2");
  a.SetModel("m2");  // no change, no event
  cancel_.Cancel();
  EXPECT_EQ(a.Prompt("again", cancel_).status, agent::Outcome::Status::kAborted);
  EXPECT_EQ(log_.notes, (std::vector<std::string>{"info:error provider: the provider fell over",
                                                  "info:m -> m2", "info:interrupted"}));
}

// The examples in examples/hooks load as written: every Lua file without
// an error, hooks.json with every event known to sepp.
TEST(HookExamples, LoadWithoutErrors) {
  std::filesystem::path dir = std::filesystem::path(SEPP_SOURCE_DIR) / "examples/hooks";
  HostLog log;
  int lua = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".lua") continue;
    ++lua;
    auto f = LuaHookFile::Load(e.path(), log.Host());
    EXPECT_TRUE(f.ok()) << e.path() << ": " << (f.ok() ? "" : f.error().message);
  }
  EXPECT_GE(lua, 3);
  std::ifstream in(dir / "hooks.json");
  std::string text((std::istreambuf_iterator<char>(in)), {});
  std::vector<std::string> skipped;
  auto hooks = ParseHooksJson(text, dir / "hooks.json", &skipped);
  ASSERT_TRUE(hooks.ok()) << hooks.error().message;
  EXPECT_TRUE(skipped.empty()) << skipped[0];
  std::set<std::string> events;
  for (const auto& h : *hooks) events.insert(h.event);
  EXPECT_TRUE(events.count("PermissionRequest") && events.count("Notification"));
  EXPECT_TRUE(log.reports.empty());
}

// ---- loading and trust

class HookLoaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() /
            ("sepp-hooks-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_ / "home" / "hooks");
    std::filesystem::create_directories(root_ / "project" / ".sepp" / "hooks");
    setenv("SEPP_HOME", (root_ / "home").c_str(), 1);
  }
  void TearDown() override {
    unsetenv("SEPP_HOME");
    std::filesystem::remove_all(root_);
  }
  void Write(const std::filesystem::path& p, const std::string& s) { std::ofstream(p) << s; }
  std::filesystem::path root_;
};

TEST_F(HookLoaderTest, UntrustedProjectHooksDoNotRunUntilTrusted) {
  std::filesystem::path marker = root_ / "ran";
  Write(root_ / "project" / ".sepp" / "hooks" / "guard.lua",
        "sepp.on('tool_call', function() return {action = 'deny', reason = 'project hook'} end)");
  Write(root_ / "home" / "hooks" / "mine.lua",
        "sepp.on('tool_call', function() return {context = 'user hook'} end)");
  HookSources src{root_ / "project", root_ / "home" / "hooks", {}, root_ / "claude"};
  HostLog log;
  LoadedHooks h = LoadHooks(src, log.Host());
  ASSERT_EQ(h.infos.size(), 2u);
  EXPECT_TRUE(h.infos[0].loaded);
  EXPECT_EQ(h.infos[0].scope, "user");
  EXPECT_FALSE(h.infos[1].loaded);
  EXPECT_NE(h.infos[1].trust.find("untrusted"), std::string::npos);
  ASSERT_EQ(h.warnings.size(), 1u);
  EXPECT_NE(h.warnings[0].find("guard.lua"), std::string::npos) << h.warnings[0];
  EXPECT_NE(h.warnings[0].find("sepp trust"), std::string::npos) << h.warnings[0];
  auto v = h.chain->BeforeToolCall({"bash", "c", Json::object(), 1, false});
  EXPECT_EQ(v.decision, agent::ToolCallVerdict::Decision::kNone) << "the project hook did not run";
  EXPECT_EQ(v.context, "user hook");

  ASSERT_TRUE(TrustProject(ReadProjectConfig(root_ / "project")).ok());
  LoadedHooks trusted = LoadHooks(src, log.Host());
  EXPECT_TRUE(trusted.infos[1].loaded);
  EXPECT_EQ(trusted.chain->BeforeToolCall({"bash", "c", Json::object(), 1, false}).decision,
            agent::ToolCallVerdict::Decision::kDeny);

  // A changed hook asks again.
  Write(root_ / "project" / ".sepp" / "hooks" / "guard.lua", "-- changed\n");
  LoadedHooks changed = LoadHooks(src, log.Host());
  EXPECT_FALSE(changed.infos[1].loaded);
  EXPECT_NE(changed.infos[1].trust.find("changed"), std::string::npos) << changed.infos[1].trust;
  EXPECT_EQ(ListHooks(src)[1].trust, changed.infos[1].trust);
}

TEST_F(HookLoaderTest, FlagFilesLoadAndBrokenFilesAreReported) {
  Write(root_ / "flag.lua", "sepp.on('stop', function() end)");
  Write(root_ / "home" / "hooks" / "broken.lua", "this is not lua");
  HookSources src{root_ / "project", root_ / "home" / "hooks", {root_ / "flag.lua"}, root_ / "claude"};
  HostLog log;
  LoadedHooks h = LoadHooks(src, log.Host());
  ASSERT_EQ(h.infos.size(), 2u);
  EXPECT_FALSE(h.infos[0].loaded);
  ASSERT_EQ(h.infos[0].errors.size(), 1u);
  EXPECT_NE(h.infos[0].errors[0].find("broken.lua"), std::string::npos);
  EXPECT_TRUE(h.infos[1].loaded);
  EXPECT_EQ(h.infos[1].scope, "flag");
  EXPECT_EQ(h.lua_files.size(), 1u);
}

}  // namespace
}  // namespace sepp::ext
