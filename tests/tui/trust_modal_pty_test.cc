// Issue 11 in the terminal UI, on a pty against the scripted fake provider:
// an untrusted project's hook is asked about in a modal at the first prompt
// (the file and its hash on screen). Denied, the hook never runs (its
// marker file stays absent) while the model's tool call works; allowed in a
// second run, it runs at that prompt.
#include <fstream>

#include "tui/tui_pty.h"

namespace sepp::front::tui {
namespace {

constexpr const char* kHooks =
    R"({"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "touch hook-ran"}]}]}})";

class TrustModalPty : public TuiPty {
 protected:
  void SetUpProject() {
    fs::create_directories(root_ / "ws/.sepp");
    std::ofstream(root_ / "ws/.sepp/hooks.json") << kHooks;
  }
  Json Script() {
    return {{{"tool_calls", {{{"id", "b1"}, {"name", "bash"}, {"arguments", {{"command", "echo normal > ok.txt"}}}}}}},
            {{"text", "all finished"}}};
  }
  void Quit() {
    Type("\x03\x04");
    int status = WaitExit();
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  }
};

TEST_F(TrustModalPty, DeniedInTheModalTheHookDoesNotRunAndTheToolCallDoes) {
  SetUpProject();
  Start(Script());
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("Enter sends"); }));
  Type("go\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("Trust this project's code?"); }))
      << ::testing::PrintToString(term_->Transcript());
  EXPECT_TRUE(ScreenHas("hooks-json: ")) << ::testing::PrintToString(term_->Transcript());
  EXPECT_TRUE(ScreenHas(".sepp/hooks.json"));
  EXPECT_TRUE(ScreenHas("sha256 "));
  EXPECT_FALSE(fs::exists(root_ / "ws/hook-ran"));
  Type("2");  // deny
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("all finished"); })) << ::testing::PrintToString(term_->Transcript());
  EXPECT_FALSE(fs::exists(root_ / "ws/hook-ran")) << "a denied project's hook ran";
  EXPECT_TRUE(fs::exists(root_ / "ws/ok.txt"));
  Quit();
}

TEST_F(TrustModalPty, AllowedInTheModalTheHookRunsAtThatPrompt) {
  SetUpProject();
  Start(Script());
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("Enter sends"); }));
  Type("go\r");
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("Trust this project's code?"); }))
      << ::testing::PrintToString(term_->Transcript());
  Type("1");  // allow
  ASSERT_TRUE(WaitFor([&] { return ScreenHas("all finished"); })) << ::testing::PrintToString(term_->Transcript());
  EXPECT_TRUE(fs::exists(root_ / "ws/hook-ran"));
  EXPECT_TRUE(fs::exists(root_ / "ws/ok.txt"));
  Quit();
}

}  // namespace
}  // namespace sepp::front::tui
