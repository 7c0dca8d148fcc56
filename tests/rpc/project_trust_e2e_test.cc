// Issue 11 over pi's RPC, end to end against the scripted fake provider: a
// project whose hooks.json would run a command is asked about through the
// permission gate at the first prompt (extension_ui_request, kind
// project_trust, every file with its SHA-256). Denied: the hook never runs
// (its marker file stays absent) while the model's own tool call works, and
// `sepp ext list` says why. Allowed: it runs from that prompt on and later
// sessions do not ask; a changed hook asks again.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "base/sha256.h"
#include "rpc_child.h"
#include "support/fake_provider.h"

namespace sepp::rpc_test {
namespace {

namespace fs = std::filesystem;

constexpr const char* kHooks =
    R"({"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "touch hook-ran"}]}]}})";

class RpcProjectTrust : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/sepp-rpc-trust-XXXXXX";
    root_ = mkdtemp(tmpl);
    fs::create_directories(root_ / "home");
    fs::create_directories(work() / ".sepp");
    WriteHooks(kHooks);
    ASSERT_TRUE(fp_.Start().ok());
  }
  void TearDown() override {
    fp_.Stop();
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  fs::path work() const { return root_ / "work"; }
  void WriteHooks(const std::string& text) { std::ofstream(work() / ".sepp/hooks.json") << text; }
  std::map<std::string, std::string> Env() {
    return {{"PATH", "/usr/bin:/bin"},
            {"HOME", root_.string()},
            {"SEPP_HOME", (root_ / "home").string()},
            {"ANTHROPIC_BASE_URL", fp_.base_url()},
            {"ANTHROPIC_API_KEY", "sk-test-rpc-trust"}};
  }
  void Start(Child& c) {
    ASSERT_TRUE(c.Start({std::string(SEPP_BINARY_DIR) + "/sepp", "--mode", "rpc"}, Env(),
                        work().string(), (root_ / "stderr.txt").string()));
  }
  std::string Stderr() {
    std::ifstream in(root_ / "stderr.txt");
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  // One tool call that must work whatever the trust, then an answer.
  void ScriptToolCallThenText() {
    fp_.SetScript({{"responses",
                    {{{"tool_calls", {{{"name", "bash"}, {"arguments", {{"command", "echo normal > ok.txt"}}}}}}},
                     {{"text", "done"}}}}});
  }
  // Prompts and returns the trust dialog (or null when none came before
  // the agent settled).
  Json PromptAndTakeDialog(Child& c, std::vector<Json>* seen) {
    EXPECT_TRUE(c.Send(Json{{"id", "p"}, {"type", "prompt"}, {"message", "go"}}));
    while (auto j = c.Next(60)) {
      seen->push_back(*j);
      if (j->value("type", "") == "extension_ui_request") return *j;
      if (j->value("type", "") == "agent_settled") return nullptr;
    }
    ADD_FAILURE() << "no dialog and no agent_settled; stderr: " << Stderr();
    return nullptr;
  }
  Json ExtList() {
    Child c;
    EXPECT_TRUE(c.Start({std::string(SEPP_BINARY_DIR) + "/sepp", "ext", "list", "--json"}, Env(),
                        work().string(), (root_ / "ext-stderr.txt").string()));
    std::string out;
    while (auto l = c.NextLine(30)) out += *l + "\n";
    EXPECT_EQ(c.Wait(), 0);
    auto j = ParseJson(out);
    return j.ok() ? *j : Json();
  }
  Json HooksJsonEntry() {
    for (const Json& e : ExtList().value("extensions", Json::array()))
      if (e.value("kind", "") == "hooks-json" && e.value("scope", "") == "project") return e;
    return nullptr;
  }

  fs::path root_;
  fake::FakeProvider fp_;
};

TEST_F(RpcProjectTrust, DeniedTheHookNeverRunsWhileTheModelsToolCallWorks) {
  ScriptToolCallThenText();
  Child c;
  Start(c);
  std::vector<Json> seen;
  Json dialog = PromptAndTakeDialog(c, &seen);
  ASSERT_TRUE(dialog.is_object()) << Stderr();
  const Json& perm = dialog["sepp"]["permission"];
  EXPECT_EQ(perm["kind"], "project_trust");
  EXPECT_EQ(perm["subject"], fs::canonical(work()).string());
  EXPECT_EQ(perm["choices"], Json::array({"allow", "deny"}));
  EXPECT_EQ(dialog["options"], Json::array({"Allow", "Deny"}));
  bool listed = false;
  for (const Json& item : perm["items"])
    if (item.value("path", "") == (fs::canonical(work()) / ".sepp/hooks.json").string()) {
      listed = true;
      EXPECT_EQ(item["sha256"], Sha256Hex(kHooks));
      EXPECT_EQ(item["detail"], "hooks-json");
    }
  EXPECT_TRUE(listed) << perm.dump();
  EXPECT_NE(dialog["title"].get<std::string>().find(".sepp/hooks.json"), std::string::npos);
  EXPECT_FALSE(fs::exists(work() / "hook-ran"));  // the question comes before anything runs
  ASSERT_TRUE(c.Send(Json{{"type", "extension_ui_response"}, {"id", dialog["id"]}, {"value", "Deny"}}));
  ASSERT_FALSE(c.Until("agent_settled", "", 60).empty()) << Stderr();
  EXPECT_FALSE(fs::exists(work() / "hook-ran")) << "a denied project's hook ran";
  EXPECT_TRUE(fs::exists(work() / "ok.txt")) << "the model's own tool call must still work";
  EXPECT_EQ(fp_.requests().size(), 2u);
  c.CloseStdin();
  EXPECT_EQ(c.Wait(), 0) << Stderr();
  EXPECT_NE(Stderr().find("the project's code does not run: the user denied trust"), std::string::npos)
      << Stderr();
  Json entry = HooksJsonEntry();
  ASSERT_TRUE(entry.is_object());
  EXPECT_FALSE(entry["loaded"].get<bool>());
  EXPECT_NE(entry["trust"].get<std::string>().find("the user denied trust in a session"),
            std::string::npos) << entry.dump();
}

TEST_F(RpcProjectTrust, AllowedTheHookRunsFromThatPromptOnAndAChangedHookAsksAgain) {
  ScriptToolCallThenText();
  {
    Child c;
    Start(c);
    std::vector<Json> seen;
    Json dialog = PromptAndTakeDialog(c, &seen);
    ASSERT_TRUE(dialog.is_object()) << Stderr();
    ASSERT_TRUE(c.Send(Json{{"type", "extension_ui_response"}, {"id", dialog["id"]}, {"value", "Allow"}}));
    ASSERT_FALSE(c.Until("agent_settled", "", 60).empty()) << Stderr();
    EXPECT_TRUE(fs::exists(work() / "hook-ran")) << "the trusted hook did not run at this prompt: " << Stderr();
    EXPECT_TRUE(fs::exists(work() / "ok.txt"));
    c.CloseStdin();
    EXPECT_EQ(c.Wait(), 0) << Stderr();
  }
  Json entry = HooksJsonEntry();
  ASSERT_TRUE(entry.is_object());
  EXPECT_TRUE(entry["loaded"].get<bool>()) << entry.dump();

  // Trusted as it is: the next session does not ask, and the hook runs.
  fs::remove(work() / "hook-ran");
  fp_.SetScript({{"responses", {{{"text", "again"}}}}});
  {
    Child c;
    Start(c);
    std::vector<Json> seen;
    EXPECT_TRUE(PromptAndTakeDialog(c, &seen).is_null()) << "asked again for unchanged content";
    EXPECT_TRUE(fs::exists(work() / "hook-ran"));
    c.CloseStdin();
    EXPECT_EQ(c.Wait(), 0) << Stderr();
  }

  // A changed hook is other content: asked again (here answered with the
  // permission_response command), and denied it does not run.
  std::string changed =
      R"({"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "touch hook-changed"}]}]}})";
  WriteHooks(changed);
  fp_.SetScript({{"responses", {{{"text", "third"}}}}});
  {
    Child c;
    Start(c);
    std::vector<Json> seen;
    Json dialog = PromptAndTakeDialog(c, &seen);
    ASSERT_TRUE(dialog.is_object()) << "a changed hook was not asked about: " << Stderr();
    const Json& perm = dialog["sepp"]["permission"];
    EXPECT_NE(perm["justification"].get<std::string>().find("changed since you trusted it"),
              std::string::npos);
    bool hashed = false;
    for (const Json& item : perm["items"]) hashed |= item.value("sha256", "") == Sha256Hex(changed);
    EXPECT_TRUE(hashed) << perm.dump();
    ASSERT_TRUE(c.Send(Json{{"id", "r"}, {"type", "permission_response"},
                            {"requestId", dialog["id"]}, {"choice", "deny"}}));
    ASSERT_FALSE(c.Until("agent_settled", "", 60).empty()) << Stderr();
    EXPECT_FALSE(fs::exists(work() / "hook-changed")) << "the changed hook ran without trust";
    c.CloseStdin();
    EXPECT_EQ(c.Wait(), 0) << Stderr();
  }
}

// Headless -p keeps its rules: no question, the hook does not run, one note
// on stderr says how to trust the project.
TEST_F(RpcProjectTrust, HeadlessPrintModeNeverAsksAndRunsNothing) {
  fp_.SetScript({{"responses", {{{"text", "printed"}}}}});
  Child c;
  ASSERT_TRUE(c.Start({std::string(SEPP_BINARY_DIR) + "/sepp", "-p", "go"}, Env(), work().string(),
                      (root_ / "stderr.txt").string()));
  c.CloseStdin();
  std::string out;
  while (auto l = c.NextLine(60)) out += *l;
  EXPECT_EQ(c.Wait(), 0) << Stderr();
  EXPECT_EQ(out, "printed");
  EXPECT_FALSE(fs::exists(work() / "hook-ran"));
  std::string err = Stderr();
  size_t first = err.find("sepp trust");
  EXPECT_NE(first, std::string::npos) << err;
}

}  // namespace
}  // namespace sepp::rpc_test
