// End-to-end: the real sepp binary in one-shot mode, scripted by the fake
// provider, calls file_search and content_search (registered for every
// session) in the session sandbox: an edit is found by both at once, the
// file the session changed ranks first, and a planted key (in the home, in
// a denied .env and behind a link to it) stays out of every result.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "base/file.h"
#include "base/ids.h"
#include "base/json.h"
#include "e2e/run_sepp.h"
#include "support/fake_provider.h"

namespace sepp::e2e {
namespace {

namespace fs = std::filesystem;
constexpr char kKey[] = "sk-e2e-secret-key-0123456789abcdef";
constexpr char kPlanted[] = "PLANTED-KEY-search-e2e";

void Put(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

// The tool results of an Anthropic request, in order.
std::vector<std::string> ToolResults(const fake::RecordedRequest& r) {
  std::vector<std::string> out;
  for (const auto& m : r.body.value("messages", Json::array()))
    if (m.value("role", "") == "user" && m["content"].is_array())
      for (const auto& c : m["content"])
        if (c.value("type", "") == "tool_result") {
          const Json& content = c.value("content", Json());
          std::string text = content.is_string() ? content.get<std::string>() : "";
          if (content.is_array())
            for (const auto& b : content) text += b.value("text", "");
          out.push_back(text);
        }
  return out;
}

Json Call(const std::string& name, Json args) {
  return {{"tool_calls", {{{"name", name}, {"arguments", std::move(args)}}}}};
}

TEST(SearchToolsE2E, EveryToolCallSeesTheWorkspaceAndNeverTheKey) {
  fs::path root = fs::temp_directory_path() / ("sepp-search-e2e-" + ShortId());
  fs::path ws = root / "ws", home = root / "home";
  Put(home / ".ssh/id_rsa", std::string(kPlanted) + "\n");
  Put(ws / "src/parser/token_stream.cc", "int next_token() { return 0; }\n");
  Put(ws / "src/parser/token_stream_test.cc", "// tests\n");
  Put(ws / "docs/tokens.md", "about tokens\n");
  Put(ws / ".env", std::string(kPlanted) + "\n");
  // A link in the workspace to a name the policy denies (**/.env).
  fs::create_symlink("../.env", ws / "src/env_link");
  fake::FakeProvider fp;
  ASSERT_TRUE(fp.Start().ok());
  fp.SetScript({{"responses",
                 {Call("edit", {{"path", "src/parser/token_stream.cc"},
                                {"old_string", "return 0;"}, {"new_string", "return zebra_marker;"}}),
                  Call("file_search", {{"mode", "search"}, {"query", "tokstream"}}),
                  Call("content_search", {{"query", "zebra_marker"}}),
                  Call("content_search", {{"query", "PLANTED"}, {"ignoreCase", false}}),
                  Call("file_search", {{"mode", "search"}, {"query", "env"}, {"includeHidden", true}}),
                  {{"text", "done"}}}}});
  RunOptions o;
  o.args = {"-p", "find the tokenizer"};
  o.env = {{"PATH", "/usr/local/bin:/usr/bin:/bin"},
           {"HOME", home.string()},
           {"SEPP_HOME", (home / ".sepp").string()},
           {"SEPP_PROVIDER", "anthropic"},
           {"ANTHROPIC_BASE_URL", fp.base_url()},
           {"ANTHROPIC_API_KEY", kKey},
           {"LANG", "C.UTF-8"}};
  o.cwd = ws.string();
  RunOutput r = RunSepp(o);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "done\n") << r.err;
  auto reqs = fp.requests();
  ASSERT_EQ(reqs.size(), 6u) << r.err;
  // Both tools are offered to the model.
  std::string tools = reqs[0].body.value("tools", Json::array()).dump();
  EXPECT_NE(tools.find("\"file_search\""), std::string::npos);
  EXPECT_NE(tools.find("\"content_search\""), std::string::npos);
  auto results = ToolResults(reqs.back());
  ASSERT_EQ(results.size(), 5u);
  EXPECT_NE(results[0].find("Edited"), std::string::npos) << results[0];
  Json found = Json::parse(results[1]);
  ASSERT_FALSE(found["result"]["items"].empty()) << results[1];
  // The file just edited (read and changed by this session) ranks first.
  EXPECT_EQ(found["result"]["items"][0]["path"], "src/parser/token_stream.cc") << results[1];
  Json hits = Json::parse(results[2]);
  ASSERT_EQ(hits["result"]["total_matched"], 1) << results[2];
  EXPECT_EQ(hits["result"]["matches"][0]["path"], "src/parser/token_stream.cc");
  for (size_t i = 3; i < 5; ++i) {
    EXPECT_EQ(results[i].find(kPlanted), std::string::npos) << results[i];
    EXPECT_EQ(results[i].find("env_link"), std::string::npos) << results[i];
    EXPECT_EQ(results[i].find("\".env\""), std::string::npos) << results[i];
  }
  fp.Stop();
  fs::remove_all(root);
}

}  // namespace
}  // namespace sepp::e2e
