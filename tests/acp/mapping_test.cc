// The ACP mapping: sepp's events, tool calls and history as session/update
// payloads, and ACP prompts as sepp's user text. The shapes are checked
// against what ACP v1 (the SDK's schema) requires; the Node client test
// (tests/acp/node) checks them against the real SDK.
#include <gtest/gtest.h>

#include "front/acp/permission.h"
#include "front/acp/session_config.h"
#include "front/acp/tool_calls.h"
#include "front/acp/updates.h"

namespace sepp::front::acp {
namespace {

TEST(AcpToolCalls, KindsFollowWhatEachToolDoes) {
  EXPECT_STREQ(ToolKind("read"), "read");
  EXPECT_STREQ(ToolKind("edit"), "edit");
  EXPECT_STREQ(ToolKind("write"), "edit");
  EXPECT_STREQ(ToolKind("grep"), "search");
  EXPECT_STREQ(ToolKind("find"), "search");
  EXPECT_STREQ(ToolKind("ls"), "search");
  EXPECT_STREQ(ToolKind("bash"), "execute");
  EXPECT_STREQ(ToolKind("agent"), "think");
  EXPECT_STREQ(ToolKind("mcp__x__y"), "other");
}

TEST(AcpToolCalls, LocationsAreAbsoluteAndReadsCarryTheirLine) {
  Json loc = ToolLocations("read", {{"path", "src/../a.cc"}, {"offset", 40}}, "/w");
  ASSERT_EQ(loc.size(), 1u);
  EXPECT_EQ(loc[0]["path"], "/w/a.cc");
  EXPECT_EQ(loc[0]["line"], 40);
  EXPECT_EQ(ToolLocations("edit", {{"path", "/etc/x"}}, "/w")[0]["path"], "/etc/x");
  EXPECT_TRUE(ToolLocations("bash", {{"command", "ls"}}, "/w").empty());
  EXPECT_TRUE(ToolLocations("read", "not an object", "/w").empty());
  EXPECT_FALSE(ToolLocations("read", {{"path", "a"}, {"offset", -3}}, "/w")[0].contains("line"));
}

TEST(AcpToolCalls, AStartedCallHasTitleKindStatusAndRawInput) {
  Json args = {{"path", "a.txt"}};
  Json u = ToolCallStarted("call_1", "read", "read a.txt", args, "/w");
  EXPECT_EQ(u["sessionUpdate"], "tool_call");
  EXPECT_EQ(u["toolCallId"], "call_1");
  EXPECT_EQ(u["title"], "read a.txt");
  EXPECT_EQ(u["kind"], "read");
  EXPECT_EQ(u["status"], "in_progress");
  EXPECT_EQ(u["locations"][0]["path"], "/w/a.txt");
  EXPECT_EQ(u["rawInput"], args);
  EXPECT_EQ(ToolCallStarted("c", "bash", "", Json(), "/w")["title"], "bash");
}

TEST(AcpToolCalls, AnEditShowsEachChangeAsADiff) {
  Json one = {{"path", "a.txt"}, {"old_string", "x"}, {"new_string", "y"}};
  Json u = ToolCallFinished("c", "edit", one, "Edited a.txt", false, Json(), "/w");
  EXPECT_EQ(u["sessionUpdate"], "tool_call_update");
  EXPECT_EQ(u["status"], "completed");
  ASSERT_EQ(u["content"].size(), 1u);
  EXPECT_EQ(u["content"][0]["type"], "diff");
  EXPECT_EQ(u["content"][0]["path"], "/w/a.txt");
  EXPECT_EQ(u["content"][0]["oldText"], "x");
  EXPECT_EQ(u["content"][0]["newText"], "y");

  Json many = {{"path", "a.txt"},
               {"edits", {{{"old_string", "1"}, {"new_string", "2"}},
                          {{"old_string", "3"}, {"new_string", "4"}}}}};
  Json m = ToolCallFinished("c", "edit", many, "ok", false, Json(), "/w");
  ASSERT_EQ(m["content"].size(), 2u);
  EXPECT_EQ(m["content"][1]["oldText"], "3");
}

TEST(AcpToolCalls, AWriteShowsTheNewTextAndAFailureShowsTheError) {
  Json w = ToolCallFinished("c", "write", {{"path", "n.txt"}, {"content", "hello\n"}}, "Wrote",
                            false, Json(), "/w");
  EXPECT_EQ(w["content"][0]["type"], "diff");
  EXPECT_TRUE(w["content"][0]["oldText"].is_null());
  EXPECT_EQ(w["content"][0]["newText"], "hello\n");

  Json f = ToolCallFinished("c", "edit", {{"path", "a"}, {"old_string", "x"}, {"new_string", "y"}},
                            "old_string was not found", true, Json(), "/w");
  EXPECT_EQ(f["status"], "failed");
  EXPECT_EQ(f["content"][0]["type"], "content");
  EXPECT_EQ(f["content"][0]["content"]["text"], "old_string was not found");
}

TEST(AcpToolCalls, BashOutputIsShownAndBoundedWithoutSplittingACharacter) {
  Json details = {{"exit_code", 0}};
  Json u = ToolCallFinished("c", "bash", {{"command", "echo hi"}}, "hi\nexit code 0", false,
                            details, "/w");
  EXPECT_EQ(u["content"][0]["content"]["text"], "hi\nexit code 0");
  EXPECT_EQ(u["rawOutput"]["details"]["exit_code"], 0);

  std::string big(kMaxShownOutput - 1, 'a');
  big += "\xc3\xa9";  // a two-byte character across the limit
  big += std::string(1000, 'b');
  Json b = ToolCallFinished("c", "bash", Json(), big, false, Json(), "/w");
  std::string shown = b["content"][0]["content"]["text"];
  EXPECT_LT(shown.size(), big.size());
  EXPECT_EQ(shown.find("\xef\xbf\xbd"), std::string::npos);  // no replacement character
  EXPECT_NE(shown.find("shortened"), std::string::npos);
}

TEST(AcpToolCalls, ARunningCallShowsItsOutputSoFar) {
  Json u = ToolCallProgress("c", "line 1\nline 2\n");
  EXPECT_EQ(u["sessionUpdate"], "tool_call_update");
  EXPECT_EQ(u["status"], "in_progress");
  EXPECT_EQ(u["content"][0]["content"]["text"], "line 1\nline 2\n");
  EXPECT_EQ(ToolCallProgress("c", "\xff")["content"][0]["content"]["text"], "\xef\xbf\xbd");
}

TEST(AcpUpdates, DeltasUsageAndToolEventsMapToUpdates) {
  UpdateContext ctx{"/w", 200000, nullptr};
  agent::Event text(agent::EventType::kMessageDelta);
  text.text = "Hel";
  EXPECT_EQ(*UpdateForEvent(text, ctx, Json()),
            (Json{{"sessionUpdate", "agent_message_chunk"}, {"content", {{"type", "text"}, {"text", "Hel"}}}}));
  agent::Event think(agent::EventType::kThinkingDelta);
  think.text = "hmm";
  EXPECT_EQ((*UpdateForEvent(think, ctx, Json()))["sessionUpdate"], "agent_thought_chunk");

  agent::Event usage(agent::EventType::kUsage);
  usage.usage.input = 100;
  usage.usage.output = 20;
  usage.usage.cache_read = 5;
  Json u = *UpdateForEvent(usage, ctx, Json());
  EXPECT_EQ(u["sessionUpdate"], "usage_update");
  EXPECT_EQ(u["used"], 125);
  EXPECT_EQ(u["size"], 200000);
  EXPECT_TRUE(u["used"].is_number_integer());

  agent::Event started(agent::EventType::kToolStarted);
  started.call_id = "t1";
  started.tool = "bash";
  started.args = {{"command", "ls"}};
  started.summary = "bash ls";
  EXPECT_EQ((*UpdateForEvent(started, ctx, Json()))["title"], "bash ls");

  agent::Event finished(agent::EventType::kToolFinished);
  finished.call_id = "t1";
  finished.tool = "bash";
  finished.result = "a\nb";
  Json f = *UpdateForEvent(finished, ctx, started.args);
  EXPECT_EQ(f["toolCallId"], "t1");
  EXPECT_EQ(f["status"], "completed");

  for (auto t : {agent::EventType::kTurnStarted, agent::EventType::kRetry,
                 agent::EventType::kTurnFinished, agent::EventType::kSessionStarted})
    EXPECT_FALSE(UpdateForEvent(agent::Event(t), ctx, Json()));
  EXPECT_FALSE(UpdateForEvent(agent::Event(agent::EventType::kMessageDelta), ctx, Json()));
}

TEST(AcpUpdates, HistoryReplaysUserTextThinkingToolCallsAndResults) {
  std::vector<llm::Message> history;
  history.push_back(llm::Message::User("fix it"));
  llm::Message a;
  a.role = llm::Role::kAssistant;
  a.content.push_back(llm::ContentBlock::Thinking("let me look", "sig"));
  a.content.push_back(llm::ContentBlock::Text("Looking."));
  a.content.push_back(llm::ContentBlock::ToolCall("c1", "edit",
                                                  {{"path", "a"}, {"old_string", "x"}, {"new_string", "y"}}));
  history.push_back(a);
  history.push_back(llm::Message::ToolResult("c1", "edit", "Edited a", false));
  llm::Message done;
  done.role = llm::Role::kAssistant;
  done.content.push_back(llm::ContentBlock::Text("Done."));
  history.push_back(done);

  UpdateContext ctx{"/w", 0, [](const std::string& tool, const Json& args) {
                      return tool + " " + args.value("path", "");
                    }};
  auto u = HistoryUpdates(history, ctx);
  ASSERT_EQ(u.size(), 6u);
  EXPECT_EQ(u[0]["sessionUpdate"], "user_message_chunk");
  EXPECT_EQ(u[0]["content"]["text"], "fix it");
  EXPECT_EQ(u[1]["sessionUpdate"], "agent_thought_chunk");
  EXPECT_EQ(u[2]["sessionUpdate"], "agent_message_chunk");
  EXPECT_EQ(u[3]["sessionUpdate"], "tool_call");
  EXPECT_EQ(u[3]["title"], "edit a");
  EXPECT_EQ(u[4]["sessionUpdate"], "tool_call_update");
  EXPECT_EQ(u[4]["content"][0]["type"], "diff");  // the call's arguments were remembered
  EXPECT_EQ(u[5]["content"]["text"], "Done.");
}

TEST(AcpPrompt, TextLinksAndEmbeddedResourcesBecomeOneUserMessage) {
  Json blocks = {{{"type", "text"}, {"text", "look at"}},
                 {{"type", "resource_link"}, {"uri", "file:///w/a.cc"}, {"name", "a.cc"}},
                 {{"type", "resource"}, {"resource", {{"uri", "file:///w/b.cc"}, {"text", "int b;"}}}}};
  auto t = PromptText(blocks);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(*t, "look at\n\n@file:///w/a.cc\n\n<resource uri=\"file:///w/b.cc\">\nint b;\n</resource>");
}

TEST(AcpPrompt, BadPromptsSayWhatIsWrong) {
  struct Case {
    Json blocks;
    const char* says;
  } cases[] = {
      {"text", "must be an array"},
      {Json::array(), "no text"},
      {{{{"type", "image"}, {"data", "AA=="}, {"mimeType", "image/png"}}}, "\"image\" are not supported"},
      {{42}, "with a \"type\""},
      {{{{"type", "text"}}}, "string \"text\""},
      {{{{"type", "resource_link"}}}, "\"uri\""},
      {{{{"type", "resource"}, {"resource", 1}}}, "{uri, text}"},
  };
  for (const auto& c : cases) {
    auto t = PromptText(c.blocks);
    ASSERT_FALSE(t.ok()) << c.blocks.dump();
    EXPECT_EQ(t.error().kind, "invalid_params");
    EXPECT_NE(t.error().message.find(c.says), std::string::npos) << t.error().message;
  }
}

TEST(AcpSessionConfig, ModesAndConfigOptionsHaveTheShapesACPDefines) {
  Mode m;
  EXPECT_TRUE(ParseMode("deny", &m));
  EXPECT_EQ(m, Mode::kDeny);
  EXPECT_FALSE(ParseMode("yolo", &m));
  Json modes = ModesJson(Mode::kAllow);
  EXPECT_EQ(modes["currentModeId"], "allow");
  EXPECT_EQ(modes["availableModes"].size(), 3u);

  Json opts = ConfigOptionsJson("m1", {"m1", "m2"}, "low", {"off", "low"});
  ASSERT_EQ(opts.size(), 2u);
  EXPECT_EQ(opts[0]["id"], "model");
  EXPECT_EQ(opts[0]["category"], "model");
  EXPECT_EQ(opts[0]["type"], "select");
  EXPECT_EQ(opts[0]["currentValue"], "m1");
  EXPECT_EQ(opts[0]["options"][1]["value"], "m2");
  EXPECT_EQ(opts[1]["category"], "thought_level");
  EXPECT_EQ(opts[1]["currentValue"], "low");
  EXPECT_EQ(AvailableCommandsJson({})[0]["name"], "compact");
  // Templates and skills follow, with their argument hint as the input hint;
  // one named like the front end's own /compact does not shadow it.
  std::vector<ext::CommandInfo> cmds = {
      {"review", "Review a path", "<path>", "prompt", "project", "/p/.sepp/prompts/review.md"},
      {"compact", "a template", "", "prompt", "user", "/u/compact.md"},
      {"pdf", "Work with PDFs", "", "skill", "user", "/u/pdf/SKILL.md"}};
  Json all = AvailableCommandsJson(cmds);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[1]["name"], "review");
  EXPECT_EQ(all[1]["description"], "Review a path");
  EXPECT_EQ(all[1]["input"]["hint"], "<path>");
  EXPECT_EQ(all[2]["name"], "pdf");
  EXPECT_EQ(all[2]["input"]["hint"], "arguments (optional)");
}

}  // namespace
}  // namespace sepp::front::acp

namespace sepp::front::acp {
namespace {

TEST(AcpPermission, ARequestNamesWhatWouldBeWidenedAndOffersTheFourAnswers) {
  Json request = {{"request_id", "perm-1"},
                  {"call_id", "toolu_1"},
                  {"tool", "bash"},
                  {"args", {{"command", "curl https://api.example.com"}}},
                  {"widen", {{{"kind", "domain"}, {"target", "api.example.com"}}}},
                  {"justification", "to fetch the docs"},
                  {"policy_change", "allow_domains = [\"api.example.com\"]\n"}};
  Json p = PermissionRequestParams("s1", request, "/w");
  EXPECT_EQ(p["sessionId"], "s1");
  EXPECT_EQ(p["toolCall"]["toolCallId"], "toolu_1");
  EXPECT_EQ(p["toolCall"]["kind"], "execute");
  EXPECT_EQ(p["toolCall"]["title"], "Allow: connect to api.example.com");
  std::string text = p["toolCall"]["content"][0]["content"]["text"];
  EXPECT_NE(text.find("to fetch the docs"), std::string::npos);
  EXPECT_NE(text.find("allow_domains"), std::string::npos);  // shown before it is saved
  std::vector<std::string> kinds;
  for (const Json& o : p["options"]) kinds.push_back(o["kind"]);
  EXPECT_EQ(kinds, (std::vector<std::string>{"allow_once", "allow_always", "allow_always", "reject_once"}));
}

// A sub-agent's request is shown on the parent's call (the client never
// saw the sub-agent's own calls), saying so, with both ids in _meta.
TEST(AcpPermission, ASubAgentsRequestIsShownOnTheParentsCall) {
  Json request = {{"request_id", "perm-2"},
                  {"call_id", "child_retry"},
                  {"parent_call_id", "toolu_agent"},
                  {"tool", "bash"},
                  {"widen", {{{"kind", "domain"}, {"target", "pypi.org"}}}}};
  Json p = PermissionRequestParams("s1", request, "/w");
  EXPECT_EQ(p["toolCall"]["toolCallId"], "toolu_agent");
  EXPECT_EQ(p["toolCall"]["_meta"]["sepp"]["call_id"], "child_retry");
  EXPECT_EQ(p["toolCall"]["_meta"]["sepp"]["parent_call_id"], "toolu_agent");
  std::string text = p["toolCall"]["content"][0]["content"]["text"];
  EXPECT_EQ(text.rfind("A sub-agent asks: ", 0), 0u) << text;
  // The parent's own request has no _meta.
  request.erase("parent_call_id");
  EXPECT_FALSE(PermissionRequestParams("s1", request, "/w")["toolCall"].contains("_meta"));
}

TEST(AcpPermission, OnlyAClearAllowAllows) {
  auto pick = [](const char* option) {
    return AnswerFromClient({{"outcome", {{"outcome", "selected"}, {"optionId", option}}}}, nullptr);
  };
  EXPECT_EQ(pick("allow_once").choice, agent::PermissionChoice::kAllowOnce);
  EXPECT_EQ(pick("allow_session").choice, agent::PermissionChoice::kAllowSession);
  EXPECT_EQ(pick("allow_project").choice, agent::PermissionChoice::kAllowProject);
  EXPECT_EQ(pick("deny").choice, agent::PermissionChoice::kDeny);
  EXPECT_EQ(pick("something-else").choice, agent::PermissionChoice::kDeny);
  auto cancelled = AnswerFromClient({{"outcome", {{"outcome", "cancelled"}}}}, nullptr);
  EXPECT_EQ(cancelled.choice, agent::PermissionChoice::kDeny);
  EXPECT_EQ(cancelled.source, "cancelled");
  EXPECT_EQ(AnswerFromClient(nullptr, {{"code", -32603}}).choice, agent::PermissionChoice::kDeny);
  EXPECT_EQ(AnswerFromClient("garbage", nullptr).choice, agent::PermissionChoice::kDeny);
  EXPECT_EQ(AnswerFromClient({{"outcome", 5}}, nullptr).choice, agent::PermissionChoice::kDeny);
}

}  // namespace
}  // namespace sepp::front::acp

namespace sepp::front::acp {
namespace {

// Whatever arguments the model sends (they are its output, not ours), the
// mapping of a call neither throws nor yields a non-object update.
TEST(AcpToolCalls, ArbitraryArgumentsNeverBreakTheMapping) {
  const Json values[] = {nullptr, 1, -7, 1.5, true, "s", Json::array(), Json::object(),
                         Json::array({1, "x"}), {{"k", 1}}, 18446744073709551615ull};
  const char* keys[] = {"path", "offset", "limit", "old_string", "new_string", "edits", "content", "command"};
  const char* tools[] = {"read", "write", "edit", "bash", "ls", "find", "grep", "agent", "x"};
  int n = 0;
  for (const char* tool : tools)
    for (const char* key : keys)
      for (const Json& v : values) {
        Json args = {{key, v}};
        if (std::string(key) == "edits") args["edits"] = Json::array({v, {{"old_string", v}, {"new_string", v}}});
        ASSERT_NO_THROW({
          Json a = ToolCallStarted("c", tool, "", args, "/w");
          Json b = ToolCallFinished("c", tool, args, "r", false, Json(), "/w");
          Json c = ToolCallFinished("c", tool, args, "r", true, args, "/w");
          EXPECT_TRUE(a.is_object() && b.is_object() && c.is_object());
          EXPECT_TRUE(b["content"].is_array() && !b["content"].empty());
        }) << tool << " " << args.dump();
        ++n;
      }
  EXPECT_EQ(n, 9 * 8 * 11);
}

}  // namespace
}  // namespace sepp::front::acp
