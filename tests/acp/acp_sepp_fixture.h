// A test that runs `sepp --acp` children against an in-process fake
// provider: a throwaway root with home/ and project/ (the session's cwd),
// the fake started and stopped, and the environment those tests share.
#pragma once
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <map>
#include <string>

#include "support/fake_provider.h"

namespace sepp::acptest {

class AcpSeppTest : public ::testing::Test {
 protected:
  // name: the root's prefix under /tmp.
  explicit AcpSeppTest(std::string name) : name_(std::move(name)) {}

  void SetUp() override {
    std::string tmpl = "/tmp/sepp-" + name_ + "-XXXXXX";
    root_ = mkdtemp(tmpl.data());
    std::filesystem::create_directories(root_ / "home");
    std::filesystem::create_directories(root_ / "project");
    ASSERT_TRUE(fake_.Start().ok());
  }
  void TearDown() override {
    fake_.Stop();
    std::filesystem::remove_all(root_);
  }
  std::map<std::string, std::string> Env() const {
    return {{"HOME", (root_ / "home").string()},
            {"SEPP_HOME", (root_ / "home").string()},
            {"ANTHROPIC_BASE_URL", fake_.base_url()},
            {"ANTHROPIC_API_KEY", "test-key"}};
  }
  std::string cwd() const { return (root_ / "project").string(); }

  std::filesystem::path root_;
  fake::FakeProvider fake_;

 private:
  std::string name_;
};

}  // namespace sepp::acptest
