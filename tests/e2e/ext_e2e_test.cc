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
}

// A sub-agent gets the skills like its parent: the catalog in its system
// prompt and the skill tool; restricted to other tools, neither.
TEST_F(ExtE2E, ASubagentSeesTheSkillCatalogAndLoadsASkill) {
  Write(ws_ / ".sepp/skills/greet/SKILL.md",
        "---\nname: greet\ndescription: Greets people in the house style.\n---\nSay hi-from-the-skill-body.\n");
  Json script = Json::array(
      {{{"tool_calls", {{{"name", "agent"}, {"arguments", {{"task", "greet the team"}}}}}}},
       {{"tool_calls", {{{"name", "skill"}, {"arguments", {{"name", "greet"}}}}}}},
       {{"text", "child greeted"}},
       {{"tool_calls", {{{"name", "agent"}, {"arguments", {{"task", "list files"}, {"tools", {"ls"}}}}}}}},
       {{"text", "child listed"}},
       {{"text", "all done"}}});
  auto r = Sepp({"-p", "delegate the greeting"}, script);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto reqs = fp_.requests();
  ASSERT_EQ(reqs.size(), 6u) << r.err;
  auto has_tool = [](const Json& body, const std::string& name) {
    for (const auto& t : body["tools"])
      if (t.value("name", "") == name) return true;
    return false;
  };
  std::string child_system = reqs[1].body["system"].dump();
  EXPECT_NE(child_system.find("You are a sub-agent"), std::string::npos) << child_system;
  EXPECT_NE(child_system.find("<skill><name>greet</name>"), std::string::npos) << child_system;
  EXPECT_TRUE(has_tool(reqs[1].body, "skill"));
  EXPECT_NE(ToolResultsOf(2).find("Say hi-from-the-skill-body."), std::string::npos) << ToolResultsOf(2);
  // The second child may use ls only: no skill tool, no catalog.
  std::string restricted = reqs[4].body["system"].dump();
  EXPECT_NE(restricted.find("You are a sub-agent"), std::string::npos);
  EXPECT_EQ(restricted.find("<available_skills>"), std::string::npos) << restricted;
  EXPECT_FALSE(has_tool(reqs[4].body, "skill"));
}

// ~/.sepp/skills is inside sepp's home, which commands never see (sessions,
// grants, settings): the skill's own folder is shown to them alone, read
// only. Attacks: reading the rest of the home, a skill that is a link to
// another folder of the home, a link inside the skill's folder that leads
// back into the home, and writing the skill's folder.
TEST_F(ExtE2E, ASkillInSeppsHomeRunsItsScriptWhileTheRestOfTheHomeStaysHidden) {
  fs::path sepp_home = home_ / ".sepp";
  fs::path dir = sepp_home / "skills/home-tool";
  Write(dir / "SKILL.md", "---\nname: home-tool\ndescription: Lives in sepp's home\n---\nRun scripts/run.sh\n");
  Write(dir / "scripts/run.sh", "echo home-skill-script-ran\n");
  Write(sepp_home / "settings.json", "{\"secret\": \"settings-secret-e2e\"}\n");
  Write(sepp_home / "sessions/s.jsonl", "session-secret-e2e\n");
  fs::create_directory_symlink("../../sessions", dir / "back-home");
  // A "skill" that is a link to another folder of the home.
  Write(sepp_home / "private/SKILL.md", "---\nname: escape\ndescription: a link out\n---\nbody\n");
  Write(sepp_home / "private/secret.txt", "private-secret-e2e\n");
  fs::create_directory_symlink("../private", sepp_home / "skills/escape");
  std::string real = fs::canonical(dir).string();
  std::string home = fs::canonical(sepp_home).string();
  std::string cmd = "sh " + real + "/scripts/run.sh; cat " + home + "/settings.json " + home +
                    "/sessions/s.jsonl " + home + "/private/secret.txt " + real +
                    "/back-home/s.jsonl; echo listing:; ls -a " + home + " " + home +
                    "/skills; echo x > " + real + "/planted && echo wrote-the-skill";
  Json script = Json::array(
      {{{"tool_calls", {{{"name", "bash"}, {"arguments", {{"command", cmd}}}}}}},
       {{"text", "done"}}});
  auto r = Sepp({"-p", "run the home tool"}, script);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string out = ToolResultsOf(1);
  EXPECT_NE(out.find("home-skill-script-ran"), std::string::npos) << out;
  for (const char* secret : {"settings-secret-e2e", "session-secret-e2e", "private-secret-e2e",
                             "wrote-the-skill"})
    EXPECT_EQ(out.find(secret), std::string::npos) << secret << " in " << out;
  // The home shows only the skills folder, and that only the shown skill.
  std::string listing = out.substr(out.find("listing:"));
  EXPECT_NE(listing.find("skills"), std::string::npos) << listing;
  EXPECT_NE(listing.find("home-tool"), std::string::npos) << listing;
  for (const char* name : {"settings.json", "sessions", "private", "escape"})
    EXPECT_EQ(listing.find(name), std::string::npos) << name << " in " << listing;
  EXPECT_FALSE(fs::exists(dir / "planted"));
  // The link is loaded as a skill (its instructions are data) but not shown
  // to commands, and the user is told.
  EXPECT_NE(r.err.find("skill escape: its folder"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("skill home-tool:"), std::string::npos) << r.err;
}

// Run in a folder that holds the home, sepp's home is inside the workspace
// and masked there: a skill in it cannot be shown (the mask covers it), the user is
// told, and the session works.
TEST_F(ExtE2E, ASkillInSeppsHomeCannotBeShownWhenTheWorkspaceHoldsTheHome) {
  fs::path dir = home_ / ".sepp/skills/home-tool";
  Write(dir / "SKILL.md", "---\nname: home-tool\ndescription: Lives in sepp's home\n---\nbody\n");
  Write(dir / "scripts/run.sh", "echo home-skill-script-ran\n");
  Write(home_ / ".sepp/settings.json", "{\"secret\": \"settings-secret-e2e\"}\n");
  std::string real = fs::canonical(dir).string();
  Json script = Json::array(
      {{{"tool_calls", {{{"name", "bash"}, {"arguments", {{"command", "sh " + real + "/scripts/run.sh; cat " + fs::canonical(home_).string() + "/.sepp/settings.json; echo after"}}}}}}},
       {{"text", "done"}}});
  ws_ = root_;  // the workspace holds the home, and sepp's home in it
  auto r = Sepp({"-p", "run it"}, script);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string out = ToolResultsOf(1);
  EXPECT_NE(out.find("after"), std::string::npos) << out;
  EXPECT_EQ(out.find("home-skill-script-ran"), std::string::npos) << out;
  EXPECT_EQ(out.find("settings-secret-e2e"), std::string::npos) << out;
  EXPECT_NE(r.err.find("skill home-tool: its scripts are in"), std::string::npos) << r.err;
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
