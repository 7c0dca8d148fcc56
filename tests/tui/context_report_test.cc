// /context's report (what fills the window) and /permissions' summary (the
// policy and the grants), as text.
#include "front/tui/context_report.h"

#include <gtest/gtest.h>

#include "front/tui/policy_summary.h"

namespace sepp::front::tui {
namespace {

bool HasLine(const std::string& text, const std::string& line) {
  size_t at = 0;
  while (at <= text.size()) {
    size_t end = text.find('\n', at);
    if (text.substr(at, end == std::string::npos ? std::string::npos : end - at) == line) return true;
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return false;
}

TEST(TuiContextReport, PartsAddUpAgainstTheWindowAndTheCompactionMark) {
  llm::Request preamble;
  preamble.system = std::string(40000, 's');  // 10,000 tokens at 4 bytes
  preamble.tools.push_back({"bash", std::string(3990, 'd'), Json::object()});  // 4 + 3990 + 2 bytes: 999 tokens
  std::vector<llm::Message> messages;
  messages.push_back(llm::Message::User(std::string(384, 'u')));  // 16 + 384: 100 tokens
  llm::Message answer;
  answer.role = llm::Role::kAssistant;
  answer.content.push_back(llm::ContentBlock::Text(std::string(784, 'a')));  // 4 + 196
  answer.content.push_back(llm::ContentBlock::ToolCall("c1", "bash", Json{{"command", "ls"}}));
  answer.usage.input = 11500;
  answer.usage.output = 200;
  messages.push_back(answer);
  messages.push_back(llm::Message::ToolResult("c1", "bash", std::string(80000, 'r'), false));  // 20,004
  ContextReportInput in{&preamble, &messages, 200000, 183616};
  std::string r = ContextReport(in);
  ASSERT_NE(r.find("context: ~"), std::string::npos) << r;
  EXPECT_NE(r.find("of the window's 200k"), std::string::npos) << r;
  EXPECT_NE(r.find("auto-compaction at 183.6k"), std::string::npos) << r;
  EXPECT_TRUE(HasLine(r, "  system prompt             10k     5.0%")) << r;
  EXPECT_TRUE(HasLine(r, "  tools (1)                 999     0.4%")) << r;
  EXPECT_TRUE(HasLine(r, "    your messages (1)       100     <0.1%")) << r;
  EXPECT_TRUE(HasLine(r, "    tool results (1)        20k     10.0%")) << r;
  EXPECT_NE(r.find("    tool calls (1)"), std::string::npos) << r;
  // The largest message first, named.
  EXPECT_NE(r.find("largest messages:\n  20k     #3 bash output"), std::string::npos) << r;
  // The bar has the compaction mark at 183.6k / 200k of 40 cells: cell 36.
  size_t bar = r.find("\u2503");
  ASSERT_NE(bar, std::string::npos) << r;
  EXPECT_NE(r.find("the provider counted 11.7k at the last call"), std::string::npos) << r;
  // Auto-compaction off and an unknown window are said, not invented.
  in.compacts_at = -1;
  in.window = 0;
  r = ContextReport(in);
  EXPECT_NE(r.find("auto-compaction off"), std::string::npos) << r;
  EXPECT_EQ(r.find("window"), std::string::npos) << r;
  EXPECT_EQ(r.find("\u2503"), std::string::npos) << r;
}

TEST(TuiContextReport, AnEmptySessionHasOnlyThePreamble) {
  llm::Request preamble;
  preamble.system = "be brief";
  std::vector<llm::Message> none;
  std::string r = ContextReport({&preamble, &none, 32768, 16384});
  EXPECT_NE(r.find("messages (0)"), std::string::npos) << r;
  EXPECT_EQ(r.find("largest"), std::string::npos) << r;
  EXPECT_EQ(r.find("provider counted"), std::string::npos) << r;
}

TEST(TuiPolicySummary, NamesThePolicyAndSeparatesProjectAndSessionGrants) {
  sandbox::Policy p;
  p.read_roots = {"/usr", "/work/project"};
  p.write_roots = {"/work/project"};
  p.protected_paths = {".git/"};
  p.net = sandbox::NetMode::kProxy;
  p.allow_domains = {"pypi.org"};
  std::vector<runtime::PermissionGrant> grants = {
      {{agent::Widening::Kind::kDomain, "example.com"}, true},
      {{agent::Widening::Kind::kWritePath, "/tmp/out"}, false}};
  std::string s = PolicySummary(p, grants);
  EXPECT_TRUE(HasLine(s, "  read:  /usr, /work/project")) << s;
  EXPECT_TRUE(HasLine(s, "  write: /work/project")) << s;
  EXPECT_TRUE(HasLine(s, "  not write (protected): .git/")) << s;
  EXPECT_TRUE(HasLine(s, "  network: through the proxy, to pypi.org")) << s;
  EXPECT_TRUE(HasLine(s, "granted for this project (asked once, kept): domain example.com")) << s;
  EXPECT_TRUE(HasLine(s, "granted for this session: write /tmp/out")) << s;
  p.enabled = false;
  s = PolicySummary(p, {});
  EXPECT_NE(s.find("sandbox: OFF"), std::string::npos) << s;
  EXPECT_TRUE(HasLine(s, "granted for this session: none")) << s;
}

}  // namespace
}  // namespace sepp::front::tui
