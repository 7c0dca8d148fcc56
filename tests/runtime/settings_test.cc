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

// /settings saves model, thinking and theme in the user's file: one line
// each, replaced in place, comments and tables kept; the values load back.
TEST(Settings, SavedSettingsKeepTheRestOfTheFileAndLoadBack) {
  Home h;
  h.Write("# my settings\ntheme = \"light\"  # bright room\n\n[session]\nstore = \"jsonl\"\n");
  ASSERT_TRUE(SaveUserSetting("model", "claude-opus-4-5").ok());
  ASSERT_TRUE(SaveUserSetting("thinking", "high").ok());
  ASSERT_TRUE(SaveUserSetting("theme", "dark").ok());
  ASSERT_TRUE(SaveUserSetting("model", "a \"quoted\" \\ id").ok());
  std::ifstream in(h.root / "home" / ".sepp" / "settings.toml");
  std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(text,
            "# my settings\ntheme = \"dark\"\n\nmodel = \"a \\\"quoted\\\" \\\\ id\"\nthinking = \"high\"\n"
            "[session]\nstore = \"jsonl\"\n");
  auto s = LoadSettings(h.root / "ws");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->model, "a \"quoted\" \\ id");
  EXPECT_EQ(s->thinking, "high");
  EXPECT_EQ(s->theme, "dark");
  EXPECT_EQ(fs::status(h.root / "home" / ".sepp" / "settings.toml").permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
}

TEST(Settings, BadValuesAreRefusedAndABrokenFileIsNotEdited) {
  Home h;
  auto level = SaveUserSetting("thinking", "extreme");
  ASSERT_FALSE(level.ok());
  EXPECT_NE(level.error().message.find("off, minimal, low, medium, high, xhigh"), std::string::npos);
  EXPECT_FALSE(SaveUserSetting("session_store", "x").ok());
  h.Write("thinking = \"loud\"\n");
  auto loaded = LoadSettings(h.root / "ws");
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.error().message.find("settings.toml:1"), std::string::npos) << loaded.error().message;
  h.Write("theme = [broken\n");
  auto saved = SaveUserSetting("model", "m");
  ASSERT_FALSE(saved.ok());
  std::ifstream in(h.root / "home" / ".sepp" / "settings.toml");
  std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(text, "theme = [broken\n") << "a broken file is left for the user to fix";
}

// A project's settings (a cloned repository's) cannot pick the model or
// the thinking budget: they are ignored with a warning saying where to set them.
TEST(Settings, AProjectCannotChooseTheModelOrThinking) {
  Home h;
  fs::create_directories(h.root / "ws" / ".sepp");
  std::ofstream(h.root / "ws" / ".sepp" / "settings.toml") << "model = \"expensive\"\nthinking = \"xhigh\"\ntheme = \"light\"\n";
  auto s = LoadSettings(h.root / "ws");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->model, "");
  EXPECT_EQ(s->thinking, "");
  EXPECT_EQ(s->theme, "light");
  ASSERT_EQ(s->warnings.size(), 2u);
  EXPECT_NE(s->warnings[0].find("model is read from"), std::string::npos) << s->warnings[0];
}

}  // namespace
}  // namespace sepp::runtime
