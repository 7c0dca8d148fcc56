// A test that runs `sepp --mode rpc` as a child against an in-process fake
// provider: a throwaway root with home/ and work/, the fake started and
// stopped, and Start() with the environment those tests share.
#pragma once
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <map>
#include <string>

#include "rpc_child.h"
#include "support/fake_provider.h"

namespace sepp::rpc_test {

class RpcSeppTest : public ::testing::Test {
 protected:
  // name: the root's prefix under /tmp and the test key's suffix.
  explicit RpcSeppTest(std::string name) : name_(std::move(name)) {}

  void SetUp() override {
    std::string tmpl = "/tmp/sepp-" + name_ + "-XXXXXX";
    root_ = mkdtemp(tmpl.data());
    std::filesystem::create_directories(root_ / "home");
    std::filesystem::create_directories(root_ / "work");
    ASSERT_TRUE(fp_.Start().ok());
  }
  void TearDown() override {
    fp_.Stop();
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }
  void Start(Child& c) {
    std::map<std::string, std::string> env = {{"PATH", "/usr/bin:/bin"},
                                              {"HOME", root_.string()},
                                              {"SEPP_HOME", (root_ / "home").string()},
                                              {"ANTHROPIC_BASE_URL", fp_.base_url()},
                                              {"ANTHROPIC_API_KEY", "sk-test-" + name_}};
    ASSERT_TRUE(c.Start({std::string(SEPP_BINARY_DIR) + "/sepp", "--mode", "rpc", "--no-themes"}, env,
                        (root_ / "work").string(), (root_ / "stderr.txt").string()));
  }

  std::filesystem::path root_;
  fake::FakeProvider fp_;

 private:
  std::string name_;
};

}  // namespace sepp::rpc_test
