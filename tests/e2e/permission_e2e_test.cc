// The permission gate end to end in headless -p: a write the sandbox
// refuses, then the model's retry_with_access. The flags grant exactly what
// they name; without them the retry is denied, saying how to allow it.
#include <gtest/gtest.h>

#include <filesystem>

#include "base/file.h"
#include "base/ids.h"
#include "e2e/run_sepp.h"
#include "support/fake_provider.h"
#include "support/tool_results.h"

namespace sepp::e2e {
namespace {

namespace fs = std::filesystem;

class PermissionE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    // Not under /tmp: inside the session sandbox /tmp is the sandbox's own,
    // so a write to a host /tmp path would land there, not be refused.
    root_ = fs::path(SEPP_BINARY_DIR) / "test-tmp" / ("perm-e2e-" + NewId().substr(0, 12));
    fs::create_directories(root_ / "ws");
    fs::create_directories(root_ / "home");
    fs::create_directories(root_ / "outside");
    ASSERT_TRUE(fp_.Start().ok());
  }
  void TearDown() override {
    fp_.Stop();
    fs::remove_all(root_);
  }
  // The model writes outside the workspace, is refused, asks to retry with
  // `ask_for`, then finishes.
  RunOutput Run(const std::string& ask_for, std::vector<std::string> flags) {
    std::string target = (root_ / "outside" / "out.txt").string();
    Json script = {
        {{"tool_calls", {{{"id", "w1"}, {"name", "write"},
                          {"arguments", {{"path", target}, {"content", "written\n"}}}}}}},
        {{"tool_calls", {{{"id", "r1"}, {"name", "retry_with_access"},
                          {"arguments", {{"call_id", "w1"}, {"write_paths", {ask_for}},
                                         {"justification", "the user asked for the report there"}}}}}}},
        {{"text", "finished"}}};
    fp_.SetScript({{"responses", script}});
    RunOptions o;
    o.args = {"-p", "write the report"};
    o.args.insert(o.args.end(), flags.begin(), flags.end());
    o.env = {{"PATH", "/usr/bin:/bin"},
             {"HOME", (root_ / "home").string()},
             {"SEPP_HOME", (root_ / "home" / ".sepp").string()},
             {"ANTHROPIC_BASE_URL", fp_.base_url()},
             {"ANTHROPIC_API_KEY", "sk-perm-e2e"}};
    o.cwd = (root_ / "ws").string();
    return RunSepp(o);
  }
  std::string ResultFor(const std::string& id) { return fake::LastToolResult(fp_, id); }
  fs::path root_;
  fake::FakeProvider fp_;
};

TEST_F(PermissionE2E, AFlagGrantsExactlyItsPathToTheRetry) {
  auto r = Run((root_ / "outside").string(), {"--allow-write", (root_ / "outside").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(ResultFor("w1").find("retry_with_access"), std::string::npos) << ResultFor("w1");
  EXPECT_TRUE(fs::exists(root_ / "outside" / "out.txt")) << ResultFor("r1");
  EXPECT_NE(ResultFor("r1").find("allow_once"), std::string::npos) << ResultFor("r1");
}

TEST_F(PermissionE2E, WithoutAFlagTheRetryIsDeniedAndSaysHowToAllowIt) {
  auto r = Run((root_ / "outside").string(), {});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(root_ / "outside" / "out.txt"));
  std::string res = ResultFor("r1");
  EXPECT_NE(res.find("permission denied"), std::string::npos) << res;
  EXPECT_NE(res.find("--allow-write"), std::string::npos) << res;
}

TEST_F(PermissionE2E, AFlagForOneFolderDoesNotCoverItsNeighbour) {
  fs::create_directories(root_ / "outside-not");
  auto r = Run((root_ / "outside").string(), {"--allow-write", (root_ / "outside-not").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(root_ / "outside" / "out.txt"));
  EXPECT_NE(ResultFor("r1").find("permission denied"), std::string::npos);
}

}  // namespace
}  // namespace sepp::e2e
