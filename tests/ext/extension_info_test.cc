#include "ext/extension_info.h"

#include <gtest/gtest.h>

namespace sepp::ext {
namespace {

TEST(ExtensionInfo, ListsEveryFieldForTheListing) {
  ExtensionInfo info;
  info.name = "git";
  info.tier = Tier::kMcpServer;
  info.kind = "mcp-server";
  info.source = "/home/u/.sepp/config.toml";
  info.scope = "user";
  info.may = {"fs_read ./", "exec git"};
  info.trust = "confirmed";
  info.loaded = false;
  info.errors = {"not started: capabilities not confirmed"};
  Json j = ToJson(info);
  EXPECT_EQ(j["name"], "git");
  EXPECT_EQ(j["tier"], 4);
  EXPECT_EQ(j["tier_name"], "mcp-server");
  EXPECT_EQ(j["source"], "/home/u/.sepp/config.toml");
  EXPECT_EQ(j["may"].size(), 2u);
  EXPECT_FALSE(j["loaded"].get<bool>());
  EXPECT_EQ(j["errors"][0], "not started: capabilities not confirmed");
}

TEST(ExtensionInfo, TierNamesAreDistinct) {
  EXPECT_STREQ(ToString(Tier::kResource), "resource");
  EXPECT_STREQ(ToString(Tier::kHook), "hook");
  EXPECT_STREQ(ToString(Tier::kPlugin), "plugin");
  EXPECT_STREQ(ToString(Tier::kMcpServer), "mcp-server");
}

}  // namespace
}  // namespace sepp::ext
