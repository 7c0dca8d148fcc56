// An MCP server's prompts as slash commands (ext/mcp/prompt_commands.h):
// how the words after the name become the prompt's arguments (hostile and
// malformed input included), how its messages become the model's prompt,
// and list_changed for tools and prompts against the scripted probe server.
#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

#include "ext/capabilities.h"
#include "ext/mcp/prompt_commands.h"
#include "ext/mcp/servers.h"
#include "sandbox/probe.h"

namespace sepp::ext::mcp {
namespace {
namespace fs = std::filesystem;

PromptInfo Args(Json arguments) {
  PromptInfo p;
  p.name = "p";
  p.arguments = std::move(arguments);
  return p;
}
const Json kCityState = Json::array({{{"name", "city"}, {"description", "Name of the city"}, {"required", true}},
                                     {{"name", "state"}}});

TEST(PromptArguments, PositionalNamedQuotedAndTheRestOfTheLine) {
  PromptInfo p = Args(kCityState);
  EXPECT_EQ(PromptArgumentHint(p), "<city> [state]");
  auto a = PromptArguments(p, " Paris", "/c");
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(*a, Json({{"city", "Paris"}}));
  a = PromptArguments(p, "state=Texas city=Austin", "/c");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(*a, Json({{"city", "Austin"}, {"state", "Texas"}}));
  a = PromptArguments(p, "\"New York\" New York State", "/c");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(*a, Json({{"city", "New York"}, {"state", "New York State"}}));
  a = PromptArguments(p, "state='a b' Rome", "/c");  // the name given, then the others in order
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(*a, Json({{"city", "Rome"}, {"state", "a b"}}));
  a = PromptArguments(p, "x=1", "/c");  // not a declared name: a value like any other
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(*a, Json({{"city", "x=1"}}));
  a = PromptArguments(p, R"("say \"hi\"")", "/c");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(*a, Json({{"city", "say \"hi\""}}));
}

TEST(PromptArguments, WhatIsWrongIsSaidWithTheUsage) {
  PromptInfo p = Args(kCityState);
  auto a = PromptArguments(p, "", "/mcp__s__p");
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.error().kind, "usage");
  EXPECT_EQ(a.error().message,
            "/mcp__s__p needs the argument city (Name of the city); usage: /mcp__s__p <city> [state]");
  a = PromptArguments(p, "state=x", "/c");
  EXPECT_FALSE(a.ok());
  a = PromptArguments(p, "\"Paris", "/c");
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.error().message.find("unclosed double quote"), std::string::npos) << a.error().message;
  a = PromptArguments(p, "city=a city=b", "/c");
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.error().message.find("given twice"), std::string::npos);
  a = PromptArguments(p, "city=a state=b more", "/c");
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.error().message.find("every argument is given by name"), std::string::npos);
  a = PromptArguments(Args(Json::array()), "words", "/c");
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.error().message, "/c takes no arguments; usage: /c");
}

TEST(PromptArguments, HostileArgumentListsAndTextDoNotBreakIt) {
  // A server's argument list of the wrong shapes: entries without a name
  // or of another type are skipped; "required" must be a boolean.
  PromptInfo p = Args(Json::array({1, "x", Json::object(), {{"name", 5}}, {{"name", "a"}, {"required", "yes"}}}));
  EXPECT_EQ(PromptArgumentHint(p), "[a]");
  auto a = PromptArguments(p, "", "/c");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(*a, Json::object());
  EXPECT_TRUE(PromptArguments(Args("not a list"), "", "/c").ok());
  std::string junk;
  for (int i = 0; i < 4096; ++i) junk.push_back(static_cast<char>(i % 256));
  a = PromptArguments(Args(kCityState), junk, "/c");  // unbalanced quotes or not: an answer, no crash
  if (a.ok()) EXPECT_TRUE(a->contains("city"));
  EXPECT_TRUE(PromptArguments(Args(kCityState), "=", "/c").ok());
  EXPECT_TRUE(PromptArguments(Args(kCityState), "'' \"\"", "/c").ok());
}

TEST(PromptMessages, AsTheModelsPrompt) {
  Json only_user = {{"messages", Json::array({
      {{"role", "user"}, {"content", {{"type", "text"}, {"text", "Analyze this:"}}}},
      {{"role", "user"}, {"content", {{"type", "resource"}, {"resource", {{"uri", "x://1"}, {"text", "RESOURCE TEXT"}}}}}},
      {{"role", "user"}, {"content", {{"type", "image"}, {"mimeType", "image/png"}, {"data", "AAAA"}}}}})}};
  auto t = PromptMessagesText(only_user);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(*t, "Analyze this:\n\nRESOURCE TEXT\n\n[image image/png, 3 bytes]");
  Json mixed = {{"messages", Json::array({{{"role", "user"}, {"content", {{"type", "text"}, {"text", "Q"}}}},
                                          {{"role", "assistant"}, {"content", {{"type", "text"}, {"text", "A"}}}}})}};
  t = PromptMessagesText(mixed);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(*t, "[user]\nQ\n\n[assistant]\nA");
  EXPECT_FALSE(PromptMessagesText(Json::object()).ok());
  EXPECT_FALSE(PromptMessagesText({{"messages", "x"}}).ok());
  EXPECT_FALSE(PromptMessagesText({{"messages", Json::array({1, {{"role", "user"}, {"content", 7}}})}}).ok());
}

// --- against the probe server -----------------------------------------------

class PromptCommandsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fs::exists(SEPP_NODE)) << "node is not installed: run scripts/setup";
    char tmpl[] = "/tmp/sepp-mcp-prompts-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    fs::create_directories(root_ / "ws");
    old_home_ = getenv("HOME") ? getenv("HOME") : "";
    setenv("HOME", root_.c_str(), 1);
    setenv("SEPP_HOME", (root_ / "sepp-home").c_str(), 1);
    if (auto s = sandbox::CheckEnforceable(ToPolicy({}, root_ / "ws")); !s.ok())
      GTEST_SKIP() << "the sandbox cannot be enforced here: " << s.error().message;
  }
  void TearDown() override {
    setenv("HOME", old_home_.c_str(), 1);
    unsetenv("SEPP_HOME");
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  std::shared_ptr<McpServers> StartProbe() {
    ServerConfig c;
    c.name = "probe";
    c.command = {SEPP_NODE, (fs::path(SEPP_SOURCE_DIR) / "tests/mcp/servers/probe_server.mjs").string()};
    EXPECT_TRUE(Confirm(c.name, CapabilityKey(c.name, c.Runs(), c.capabilities)).ok());
    McpConfig config;
    config.servers = {c};
    StartOptions o;
    o.workspace = root_ / "ws";
    std::shared_ptr<McpServers> servers = McpServers::Start(config, o);
    EXPECT_EQ(servers->running().size(), 1u) << (servers->infos().empty() ? "" : servers->infos()[0].errors[0]);
    return servers;
  }
  static tools::Tool* Find(std::vector<std::unique_ptr<tools::Tool>>& tools, const std::string& name) {
    for (auto& t : tools)
      if (t->name() == name) return t.get();
    return nullptr;
  }
  fs::path root_;
  std::string old_home_;
};

TEST_F(PromptCommandsTest, ListedAndExpandedThroughPromptsGet) {
  auto servers = StartProbe();
  ASSERT_EQ(servers->running().size(), 1u);
  auto commands = MakePromptCommands(servers);
  auto list = commands->List();
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0].name, "mcp__probe__greet");
  EXPECT_EQ(list[0].argument_hint, "<who> [how]");
  EXPECT_EQ(list[0].source, "mcp");
  EXPECT_EQ(list[0].description, "(MCP server probe) Greet someone");

  auto r = commands->Expand("/mcp__probe__greet Ada kindly");
  ASSERT_TRUE(r.has_value());
  ASSERT_TRUE(r->ok()) << r->error().message;
  EXPECT_EQ(**r, "[user]\nGreet Ada kindly.\n\n[assistant]\nHow should I sign?\n\n[user]\nAs the probe.");
  r = commands->Expand("/mcp__probe__greet");
  ASSERT_TRUE(r.has_value());
  ASSERT_FALSE(r->ok());
  EXPECT_EQ(r->error().kind, "usage");
  EXPECT_NE(r->error().message.find("needs the argument who"), std::string::npos);
  // Not one of its commands: left to the others.
  EXPECT_FALSE(commands->Expand("/mcp__probe__nope x").has_value());
  EXPECT_FALSE(commands->Expand("/greet Ada").has_value());
  EXPECT_FALSE(commands->Expand("hello").has_value());
}

TEST_F(PromptCommandsTest, ListChangedToolsAndPromptsFollow) {
  auto servers = StartProbe();
  ASSERT_EQ(servers->running().size(), 1u);
  auto commands = MakePromptCommands(servers);
  const uint64_t before = servers->Version();
  auto tools = servers->MakeTools();
  EXPECT_EQ(Find(tools, "mcp__probe__late"), nullptr);
  tools::Tool* add = Find(tools, "mcp__probe__add_late");
  ASSERT_NE(add, nullptr);
  tools::ToolContext ctx;
  auto r = add->Run(Json::object(), ctx);
  ASSERT_FALSE(r.is_error) << r.text;
  // The notifications came before the answer: counted by the time it is here.
  EXPECT_EQ(servers->Version(), before + 2);
  auto now = servers->MakeTools();
  tools::Tool* late = Find(now, "mcp__probe__late");
  ASSERT_NE(late, nullptr);
  EXPECT_EQ(late->Run(Json::object(), ctx).text, "late tool ran");
  auto list = commands->List();
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[1].name, "mcp__probe__late");
  auto e = commands->Expand("/mcp__probe__late");
  ASSERT_TRUE(e.has_value() && e->ok());
  EXPECT_EQ(**e, "the late prompt");
}

}  // namespace
}  // namespace sepp::ext::mcp
