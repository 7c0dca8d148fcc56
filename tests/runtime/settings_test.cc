// settings.toml: the TUI's theme key, and a wrong type named with file and line.
#include "runtime/settings.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

namespace sepp::runtime {
namespace {

namespace fs = std::filesystem;

struct Home {
  fs::path root;
  std::string old_home;
  bool had_home = false;
  Home() {
    if (const char* h = getenv("SEPP_HOME")) old_home = h, had_home = true;
    char tmpl[] = "/tmp/sepp-settings-XXXXXX";
    root = mkdtemp(tmpl);
    fs::create_directories(root / "home" / ".sepp");
    fs::create_directories(root / "ws");
    setenv("SEPP_HOME", (root / "home" / ".sepp").c_str(), 1);
  }
  ~Home() {
    if (had_home) setenv("SEPP_HOME", old_home.c_str(), 1);
    else unsetenv("SEPP_HOME");
    fs::remove_all(root);
  }
  void Write(const std::string& text) const { std::ofstream(root / "home" / ".sepp" / "settings.toml") << text; }
};

TEST(Settings, ThemeNamesTheTuisTheme) {
  Home h;
  auto none = LoadSettings(h.root / "ws");
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->theme, "");
  h.Write("theme = \"nord\"\n");
  auto s = LoadSettings(h.root / "ws");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->theme, "nord");
}

TEST(Settings, AThemeThatIsNotAStringSaysWhere) {
  Home h;
  h.Write("\n\ntheme = 3\n");
  auto s = LoadSettings(h.root / "ws");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("settings.toml:3: theme must be a string"), std::string::npos) << s.error().message;
}

}  // namespace
}  // namespace sepp::runtime
