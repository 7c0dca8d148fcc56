// Renderings used by `sepp sessions show/tree/export`.
#include <gtest/gtest.h>

#include "base/strings.h"
#include "session/jsonl_store.h"
#include "session/render.h"
#include "session/session_test_util.h"

namespace sepp::session {
namespace {

using testing::AssistantMessage;
using testing::UserMessage;

// An in-memory writable session (appends go nowhere).
class NullSink : public EntrySink {
 public:
  Status Write(const Entry&, const std::string&) override { return Ok(); }
};

std::unique_ptr<Session> MemorySession() {
  SessionHeader h;
  h.id = "0123456789abcdef0123456789abcdef";
  h.cwd = "/work/p";
  h.created = "2026-11-29T10:00:00.000Z";
  h.provider = "anthropic";
  h.model = "claude";
  return std::make_unique<Session>(h, std::vector<Entry>{}, std::make_unique<NullSink>(), "memory");
}

TEST(Render, TreeIndentsOnlyAtBranchPoints) {
  auto s = MemorySession();
  std::string a = *s->AppendMessage(UserMessage("question"));
  std::string b = *s->AppendMessage(AssistantMessage("answer one"));
  std::string c = *s->AppendMessage(UserMessage("follow up"));
  ASSERT_TRUE(s->SetLeaf(a).ok());
  std::string d = *s->AppendMessage(AssistantMessage("answer two"));
  ASSERT_TRUE(s->Label(b, "first try").ok());
  std::string tree = RenderTree(*s);
  auto lines = SplitLines(tree);
  ASSERT_EQ(lines.size(), 5u) << tree;
  EXPECT_EQ(lines[0], a + "  user: question");
  EXPECT_EQ(lines[1], "├─ " + b + "  assistant: answer one  [first try]");
  EXPECT_EQ(lines[2], "│  " + c + "  user: follow up");
  EXPECT_EQ(lines[3], "└─ " + d + "  assistant: answer two");
  EXPECT_TRUE(StartsWith(lines[4], "   ")) << lines[4];  // the label entry hangs off d
  EXPECT_NE(lines[4].find("label \"first try\""), std::string::npos);
  EXPECT_NE(lines[4].find("← leaf"), std::string::npos);
}

TEST(Render, BranchTextShowsOnlyTheActiveBranch) {
  auto s = MemorySession();
  std::string a = *s->AppendMessage(UserMessage("question"));
  *s->AppendMessage(AssistantMessage("abandoned answer"));
  ASSERT_TRUE(s->SetLeaf(a).ok());
  Json call = {{"role", "assistant"},
               {"content", Json::array({Json{{"type", "thinking"}, {"thinking", "hmm"}},
                                        Json{{"type", "tool_call"}, {"id", "t1"}, {"name", "bash"},
                                             {"arguments", {{"command", "ls"}}}}})}};
  *s->AppendMessage(call);
  *s->AppendMessage(Json{{"role", "tool_result"}, {"tool_name", "bash"}, {"is_error", true},
                         {"content", Json::array({Json{{"type", "text"}, {"text", "boom"}}})}});
  *s->Append("compaction", Json{{"summary", "short version"}, {"tokens_before", 100},
                               {"tokens_after", 10}});
  *s->Append("mystery_type", Json{{"x", 1}});
  std::string text = RenderBranchText(*s);
  EXPECT_NE(text.find("session 0123456789abcdef0123456789abcdef"), std::string::npos);
  EXPECT_NE(text.find("question"), std::string::npos);
  EXPECT_EQ(text.find("abandoned"), std::string::npos);
  EXPECT_NE(text.find("→ bash({\"command\":\"ls\"})"), std::string::npos);
  EXPECT_NE(text.find("[thinking] hmm"), std::string::npos);
  EXPECT_NE(text.find("Tool result (bash) — error"), std::string::npos);
  EXPECT_NE(text.find("boom"), std::string::npos);
  EXPECT_NE(text.find("compaction: 100 → 10 tokens"), std::string::npos);
  EXPECT_NE(text.find("short version"), std::string::npos);
  EXPECT_NE(text.find("mystery_type"), std::string::npos);
  // The other branch on request.
  std::string other = RenderBranchText(*s, s->Children(a)[0]->id);
  EXPECT_NE(other.find("abandoned answer"), std::string::npos);
}

TEST(Render, ExportsEscapeAndSurviveHostileContent) {
  auto s = MemorySession();
  *s->AppendMessage(UserMessage("<script>alert('x')</script> & ```fence```"));
  *s->AppendMessage(Json{{"role", "assistant"}, {"content", "plain string content"}});
  *s->AppendMessage(Json{{"role", 7}, {"content", Json::array({1, nullptr, Json::object()})}});
  *s->AppendMessage(Json{{"role", "tool_result"}, {"is_error", "yes"}, {"tool_name", 3},
                         {"content", Json::array({Json{{"type", 5}, {"text", 6}}})}});
  *s->Append("message", Json{{"message", "not an object"}});
  *s->AppendMessage(Json{{"role", "tool_result"}, {"content", Json::array({Json{
                                                     {"type", "text"}, {"text", "a ```` b"}}})}});
  std::string html = ExportHtml(*s);
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp;"), std::string::npos);
  EXPECT_NE(html.find("plain string content"), std::string::npos);
  std::string md = ExportMarkdown(*s);
  EXPECT_NE(md.find("# Session 0123456789abcdef0123456789abcdef"), std::string::npos);
  EXPECT_NE(md.find("`````\na ```` b\n`````"), std::string::npos) << md;
  for (const Entry& e : s->entries()) EXPECT_FALSE(EntrySummary(e).empty());
  MessageStats stats = ComputeMessageStats(s->entries());
  EXPECT_EQ(stats.message_count, 6u);
  EXPECT_EQ(stats.first_prompt, "<script>alert('x')</script> & ```fence```");
  EXPECT_TRUE(IsValidUtf8(RenderTree(*s)));
}

TEST(Render, SummariesAreShortAndValidUtf8) {
  Entry e;
  e.type = "message";
  e.id = "x";
  e.set_data(Json{{"message", UserMessage(std::string(50, 'a') + "✓✓✓✓✓✓✓✓✓✓✓✓✓✓✓✓✓✓✓✓✓✓✓✓✓✓")}});
  for (size_t max : {10u, 57u, 58u, 59u, 60u, 80u}) {
    std::string s = EntrySummary(e, max);
    EXPECT_TRUE(IsValidUtf8(s)) << max;
    EXPECT_LE(s.size(), max + 3) << max;
  }
  e.set_data(Json{{"message", UserMessage("line one\nline two")}});
  EXPECT_EQ(EntrySummary(e), "user: line one line two");
}

// Denial entries read the same whether they hold typed objects (today) or
// the plain strings older sessions wrote.
TEST(Render, DenialEntriesOldAndTyped) {
  Entry e;
  e.type = "denial";
  e.id = "d";
  e.set_data(Json{{"call_id", "c1"}, {"tool", "bash"}, {"denials", Json::array({"old words", 5})}});
  EXPECT_EQ(EntrySummary(e), "denied: old words");
  e.set_data(Json{{"call_id", "c1"},
                  {"tool", "write"},
                  {"denials", Json::array({Json{{"kind", "write"}, {"target", "/x"}, {"text", "typed"}},
                                           Json{{"kind", "network"}, {"text", "second"}},
                                           Json{{"kind", "read"}}})}});
  EXPECT_EQ(EntrySummary(e), "denied: typed; second");
  e.set_data(Json{{"denials", "not an array"}});
  EXPECT_EQ(EntrySummary(e), "denied: ");
}

TEST(Render, JsonlExportReadsBackAsTheSameSession) {
  auto s = MemorySession();
  *s->AppendMessage(UserMessage("q"));
  *s->Append("future", Json{{"deep", {{"a", Json::array({1, 2})}}}});
  auto c = ParseJsonlSession(ExportJsonl(*s), "export");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->header.id, s->id());
  EXPECT_EQ(c->header.model, "claude");
  ASSERT_EQ(c->entries.size(), 2u);
  EXPECT_EQ(c->entries[1].data(), s->entries()[1].data());
  EXPECT_EQ(c->bad_lines, 0u);
}

}  // namespace
}  // namespace sepp::session
