// Issue 11 over ACP, end to end against the scripted fake provider: an
// untrusted project's hook is asked about with session/request_permission
// (allow / deny options, the files and their hashes in the text), whatever
// the editor's widening mode. Denied: the hook's marker file stays absent
// while the model's tool call works. Allowed: the hook runs at that prompt.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "acp/acp_child.h"
#include "base/sha256.h"
#include "acp/acp_sepp_fixture.h"

namespace sepp::acptest {
namespace {

namespace fs = std::filesystem;

constexpr const char* kHooks =
    R"({"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "touch hook-ran"}]}]}})";

class AcpProjectTrust : public AcpSeppTest {
 protected:
  AcpProjectTrust() : AcpSeppTest("acp-trust") {}
  void SetUp() override {
    AcpSeppTest::SetUp();
    fs::create_directories(root_ / "project/.sepp");
    std::ofstream(root_ / "project/.sepp/hooks.json") << kHooks;
    fake_.SetScript({{"responses",
                      {{{"tool_calls", {{{"name", "bash"}, {"arguments", {{"command", "echo normal > ok.txt"}}}}}}},
                       {{"text", "done"}}}}});
  }
  std::unique_ptr<AcpChild> Start() {
    return std::make_unique<AcpChild>(cwd(), Env());
  }
  std::string Open(AcpChild& c) {
    Json r = c.Call(0, "initialize", {{"protocolVersion", 1}, {"clientCapabilities", Json::object()}});
    EXPECT_TRUE(r.contains("result")) << r.dump();
    Json s = c.Call(1, "session/new", {{"cwd", cwd()}, {"mcpServers", Json::array()}});
    EXPECT_TRUE(s.contains("result")) << s.dump();
    return s.contains("result") ? s["result"].value("sessionId", "") : "";
  }
  // Prompts; answers the first session/request_permission with optionId
  // and returns its params (null when none came before the turn ended).
  Json PromptAnswering(AcpChild& c, const std::string& sid, const std::string& option) {
    c.Send({{"jsonrpc", "2.0"}, {"id", 2}, {"method", "session/prompt"},
            {"params", {{"sessionId", sid}, {"prompt", {{{"type", "text"}, {"text", "go"}}}}}}});
    Json asked;
    while (auto m = c.Next(60)) {
      if (m->value("method", "") == "session/request_permission") {
        asked = (*m)["params"];
        c.Send({{"jsonrpc", "2.0"}, {"id", (*m)["id"]},
                {"result", {{"outcome", {{"outcome", "selected"}, {"optionId", option}}}}}});
        continue;
      }
      if (m->contains("id") && (*m)["id"] == 2 && (m->contains("result") || m->contains("error"))) {
        EXPECT_TRUE(m->contains("result")) << m->dump();
        return asked;
      }
    }
    ADD_FAILURE() << "the prompt never ended: " << c.stderr_text();
    return asked;
  }

};

TEST_F(AcpProjectTrust, DeniedTheHookDoesNotRunAndTheToolCallDoes) {
  auto c = Start();
  std::string sid = Open(*c);
  // "Always widen" answers sandbox widenings alone; trust is still asked.
  Json mode = c->Call(5, "session/set_mode", {{"sessionId", sid}, {"modeId", "allow"}});
  Json asked = PromptAnswering(*c, sid, "deny");
  ASSERT_TRUE(asked.is_object()) << "no trust question; set_mode: " << mode.dump() << c->stderr_text();
  std::vector<std::string> options;
  for (const Json& o : asked["options"]) options.push_back(o.value("optionId", ""));
  EXPECT_EQ(options, (std::vector<std::string>{"allow", "deny"}));
  std::string text = asked["toolCall"]["content"][0]["content"]["text"];
  EXPECT_NE(text.find(".sepp/hooks.json"), std::string::npos) << text;
  EXPECT_NE(text.find(Sha256Hex(kHooks)), std::string::npos) << text;
  EXPECT_EQ(asked["toolCall"]["_meta"]["sepp"]["permission"]["kind"], "project_trust");
  EXPECT_FALSE(fs::exists(root_ / "project/hook-ran")) << "a denied project's hook ran";
  EXPECT_TRUE(fs::exists(root_ / "project/ok.txt")) << c->stderr_text();
  c->CloseStdin();
  EXPECT_EQ(c->Wait(), 0) << c->stderr_text();
}

TEST_F(AcpProjectTrust, AllowedTheHookRunsAtThatPrompt) {
  auto c = Start();
  std::string sid = Open(*c);
  Json asked = PromptAnswering(*c, sid, "allow");
  ASSERT_TRUE(asked.is_object()) << c->stderr_text();
  EXPECT_TRUE(fs::exists(root_ / "project/hook-ran")) << c->stderr_text();
  EXPECT_TRUE(fs::exists(root_ / "project/ok.txt"));
  c->CloseStdin();
  EXPECT_EQ(c->Wait(), 0) << c->stderr_text();
}

}  // namespace
}  // namespace sepp::acptest
