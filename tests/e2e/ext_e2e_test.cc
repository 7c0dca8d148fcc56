// Tier 1 end to end: the real sepp binary against the fake provider — a
// prompt template expanded in -p, a skill listed in the system prompt and
// then loaded (and its script run in the sandbox) when the model uses it,
// and `sepp ext list`.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "base/ids.h"
#include "base/json.h"
#include "e2e/run_sepp.h"
#include "support/fake_provider.h"

namespace sepp::e2e {
namespace {

namespace fs = std::filesystem;

class ExtE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("sepp-ext-e2e-" + ShortId());
    ws_ = root_ / "ws";
    home_ = root_ / "home";
    fs::create_directories(ws_);
    fs::create_directories(home_);
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
  RunOutput Sepp(std::vector<std::string> args, const Json& script = Json::array()) {
    fp_.SetScript({{"responses", script}});
    RunOptions o;
    o.args = std::move(args);
    o.env = {{"PATH", "/usr/local/bin:/usr/bin:/bin"},
             {"HOME", home_.string()},
             {"SEPP_HOME", (home_ / ".sepp").string()},
             {"ANTHROPIC_BASE_URL", fp_.base_url()},
             {"ANTHROPIC_API_KEY", "sk-ext-e2e-key"},
             {"LANG", "C.UTF-8"}};
    o.cwd = ws_.string();
    return RunSepp(o);
  }
  // The text of the tool results in request i.
  std::string ToolResultsOf(size_t i) {
    std::string out;
    auto reqs = fp_.requests();
    if (i >= reqs.size()) return out;
    for (const auto& m : reqs[i].body.value("messages", Json::array()))
      if (m["content"].is_array())
        for (const auto& c : m["content"])
          if (c.value("type", "") == "tool_result") out += c["content"].dump() + "\n";
    return out;
  }
  fs::path root_, ws_, home_;
  fake::FakeProvider fp_;
};

TEST_F(ExtE2E, PrintModeExpandsATemplateWithItsArguments) {
  Write(ws_ / ".sepp/prompts/review.md",
        "---\ndescription: Review a folder\nargument-hint: <dir>\n---\nPlease review $1 closely.\n");
  auto r = Sepp({"-p", "/review src/"}, Json::array({{{"text", "looks fine"}}}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("looks fine"), std::string::npos);
  auto reqs = fp_.requests();
  ASSERT_EQ(reqs.size(), 1u);
  std::string sent = reqs[0].body["messages"].dump();
  EXPECT_NE(sent.find("Please review src/ closely."), std::string::npos) << sent;
  EXPECT_EQ(sent.find("/review"), std::string::npos);
  // Not a command: a prompt that merely starts with a path goes as written.
  auto plain = Sepp({"-p", "/etc/hosts is what?"}, Json::array({{{"text", "a file"}}}));
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_NE(fp_.requests().back().body["messages"].dump().find("/etc/hosts is what?"), std::string::npos);
}

TEST_F(ExtE2E, ASkillIsListedThenLoadedWhenUsedAndItsScriptRunsInTheSandbox) {
  fs::path dir = home_ / ".claude/skills/greet";
  Write(dir / "SKILL.md",
        "---\nname: greet\ndescription: Greets people in the house style. Use when asked to "
        "greet.\n---\nRun scripts/hello.sh and repeat what it prints.\n");
  Write(dir / "scripts/hello.sh", "echo hello-from-the-skill-script\n");
  // A skill in sepp's own home, which the sandbox hides: its folder must not
  // be offered to commands (the sandbox would refuse the whole policy), and
  // the user is told why its scripts cannot run.
  Write(home_ / ".sepp/skills/hidden-home/SKILL.md",
        "---\nname: hidden-home\ndescription: Lives in sepp's home\n---\nbody\n");
  Write(home_ / ".sepp/skills/hidden-home/scripts/x.sh", "echo x\n");
  std::string script_path = fs::canonical(dir).string() + "/scripts/hello.sh";
  Json script = Json::array(
      {{{"tool_calls", {{{"name", "skill"}, {"arguments", {{"name", "greet"}}}}}}},
       {{"tool_calls", {{{"name", "bash"}, {"arguments", {{"command", "sh " + script_path}}}}}}},
       {{"text", "greeted"}}});
  auto r = Sepp({"-p", "greet the team"}, script);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto reqs = fp_.requests();
  ASSERT_EQ(reqs.size(), 3u) << r.err;
  // 1. Only the name and description are in the system prompt.
  std::string system = reqs[0].body["system"].dump();
  EXPECT_NE(system.find("<skill><name>greet</name><description>Greets people in the house style."),
            std::string::npos)
      << system;
  EXPECT_EQ(system.find("Run scripts/hello.sh"), std::string::npos);
  bool has_tool = false;
  for (const auto& t : reqs[0].body["tools"]) has_tool |= t.value("name", "") == "skill";
  EXPECT_TRUE(has_tool);
  // 2. The body arrives when the model uses the skill, with its files.
  std::string loaded = ToolResultsOf(1);
  EXPECT_NE(loaded.find("Run scripts/hello.sh and repeat what it prints."), std::string::npos) << loaded;
  EXPECT_NE(loaded.find("<file>scripts/hello.sh</file>"), std::string::npos);
  // 3. The script runs through the sandbox, which can read the skill's folder.
  EXPECT_NE(ToolResultsOf(2).find("hello-from-the-skill-script"), std::string::npos)
      << ToolResultsOf(2);
  EXPECT_NE(r.err.find("skill hidden-home: its scripts are in"), std::string::npos) << r.err;
  EXPECT_NE(system.find("<name>hidden-home</name>"), std::string::npos);
}

TEST_F(ExtE2E, ExtListShowsEveryResourceWithSourceTrustAndErrors) {
  Write(ws_ / ".sepp/prompts/review.md", "Review $1\n");
  Write(ws_ / ".claude/commands/review.md", "Claude review $0\n");
  Write(home_ / ".sepp/skills/notes/SKILL.md", "---\nname: notes\ndescription: Notes\n---\nbody\n");
  Write(home_ / ".sepp/skills/bad/SKILL.md", "---\nname: bad\ndescription: \"open\n---\n");
  Write(home_ / ".sepp/themes/nord.json", R"({"name": "nord", "colors": {"accent": "#88c0d0"}})");
  Write(home_ / ".sepp/themes/broken.json", R"({"colors": {"accent": "#zz"}})");
  auto r = Sepp({"ext", "list", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Json j = Json::parse(r.out);
  std::map<std::string, Json> by;
  for (const auto& e : j["extensions"])
    by[e["kind"].get<std::string>() + ":" + e["name"].get<std::string>() + ":" +
       e["scope"].get<std::string>() + ":" + (e["loaded"].get<bool>() ? "1" : "0")] = e;
  ASSERT_TRUE(by.count("skill:notes:user:1")) << r.out;
  EXPECT_EQ(by["skill:notes:user:1"]["tier"], 1);
  EXPECT_EQ(by["skill:notes:user:1"]["trust"], "not needed (data)");
  ASSERT_TRUE(by.count("skill:bad:user:0")) << r.out;
  EXPECT_NE(by["skill:bad:user:0"]["errors"][0].get<std::string>().find("SKILL.md:3: the double-quoted"),
            std::string::npos);
  ASSERT_TRUE(by.count("theme:nord:user:1")) << r.out;
  EXPECT_EQ(by["theme:nord:user:1"]["trust"], "not needed (data)");
  ASSERT_TRUE(by.count("theme:broken:user:0")) << r.out;
  EXPECT_NE(by["theme:broken:user:0"]["errors"][0].get<std::string>().find("broken.json"),
            std::string::npos) << r.out;
  ASSERT_TRUE(by.count("prompt:review:project:1"));
  ASSERT_TRUE(by.count("prompt:review:project:0"));
  EXPECT_NE(by["prompt:review:project:0"]["errors"][0].get<std::string>().find("shadowed by"),
            std::string::npos);
  auto text = Sepp({"ext", "list"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("Tier 1 (resource):"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("skill bad  [user]  ~/.sepp/skills/bad/SKILL.md  NOT LOADED"),
            std::string::npos) << text.out;
  EXPECT_NE(text.out.find("3 extensions did not load"), std::string::npos);
  EXPECT_EQ(Sepp({"ext", "list", "/no/such/dir"}).exit_code, 2);
  EXPECT_EQ(Sepp({"ext"}).exit_code, 2);
}

}  // namespace
}  // namespace sepp::e2e
