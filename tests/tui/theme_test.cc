// Themes: pi's JSON format parsed (colours, vars, 256-colour indexes), bad
// files rejected with the file, the place and what to fix, the TUI's roles
// coloured from the tokens, and a changed file noticed through inotify.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "ext/themes/theme_file.h"
#include "front/tui/theme.h"
#include "front/tui/theme_watcher.h"

namespace sepp::front::tui {
namespace {

using ext::themes::ParseThemeFile;
using ext::themes::ThemeColor;

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    char tmpl[] = "/tmp/sepp-theme-XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  void Write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name) << text;
  }
};

TEST(TuiTheme, PisFormatParses) {
  auto file = ParseThemeFile(R"({"name": "nord", "vars": {"frost": "#88C0d0", "alias": "frost"},
    "colors": {"accent": "frost", "mdHeading": "alias", "muted": 244, "text": "", "unknownToken": 3}})",
                             "nord.json");
  ASSERT_TRUE(file.ok()) << file.error().message;
  EXPECT_EQ(file->name, "nord");
  ThemeColor frost{ThemeColor::Kind::kRgb, 0, 0x88, 0xC0, 0xD0};
  EXPECT_EQ(file->colors.at("accent"), frost);
  EXPECT_EQ(file->colors.at("mdHeading"), frost);
  EXPECT_EQ(file->colors.at("muted"), (ThemeColor{ThemeColor::Kind::kIndex, 244}));
  EXPECT_EQ(file->colors.at("text"), ThemeColor{});
  EXPECT_EQ(file->colors.count("unknownToken"), 1u) << "pi's other tokens load";

  Theme t = Theme::FromFile(*file, Theme::Dark());
  EXPECT_EQ(t.name, "nord");
  EXPECT_EQ(t.accent.fg, Rgb(0x88, 0xC0, 0xD0));
  EXPECT_EQ(t.heading.fg, Rgb(0x88, 0xC0, 0xD0));
  EXPECT_TRUE(t.heading.bold) << "the role keeps its attributes";
  EXPECT_EQ(t.muted.fg, Ansi256(244));
  EXPECT_FALSE(t.muted.dim);
  EXPECT_EQ(t.syn_keyword, Theme::Dark().syn_keyword) << "tokens it does not set stay";
}

TEST(TuiTheme, BadFilesSayWhereAndWhat) {
  struct Case {
    const char* text;
    const char* expect;
  } cases[] = {
      {"{\"name\": \"x\",\n \"colors\": {\"accent\": \"#12\"", "line 2"},
      {"{\"colors\": {\"accent\": \"#12345g\"}}", "colors.accent: \"#12345g\" is not a #rrggbb colour"},
      {"{\"colors\": {\"accent\": 256}}", "colors.accent: colour index 256 is out of range"},
      {"{\"colors\": {\"accent\": \"nope\"}}", "\"nope\" is neither a colour nor a name in \"vars\""},
      {"{\"vars\": {\"a\": \"b\", \"b\": \"a\"}, \"colors\": {\"accent\": \"a\"}}", "in a loop"},
      {"{\"colors\": {\"accent\": true}}", "must be a string or a number"},
      {"{\"name\": \"x\"}", "\"colors\" is missing"},
      {"[1, 2]", "must hold a JSON object"},
  };
  for (const auto& c : cases) {
    auto file = ParseThemeFile(c.text, "/home/u/.sepp/themes/bad.json");
    ASSERT_FALSE(file.ok()) << c.text;
    EXPECT_NE(file.error().message.find("/home/u/.sepp/themes/bad.json"), std::string::npos) << file.error().message;
    EXPECT_NE(file.error().message.find(c.expect), std::string::npos) << file.error().message;
  }
}

TEST(TuiTheme, NamesCannotLeaveTheThemesFolder) {
  TempDir dir;
  for (const char* name : {"../etc/passwd", "/abs", ".hidden", "a/b", ""}) {
    auto file = ext::themes::LoadTheme(dir.path, name);
    ASSERT_FALSE(file.ok()) << name;
    EXPECT_NE(file.error().message.find("a theme name is"), std::string::npos) << file.error().message;
  }
}

TEST(TuiTheme, TheWatcherLoadsFallsBackAndReloadsOnChange) {
  TempDir dir;
  dir.Write("mine.json", R"({"name": "mine", "colors": {"accent": "#010203"}})");
  ThemeWatcher w(dir.path, "mine");
  std::string error;
  w.Load(&error);
  EXPECT_EQ(error, "");
  EXPECT_EQ(w.theme().accent.fg, Rgb(1, 2, 3));
  ASSERT_GE(w.fd(), 0);
  EXPECT_FALSE(w.Changed()) << "nothing happened yet";

  // Another file in the folder is not ours.
  dir.Write("other.json", "{}");
  EXPECT_FALSE(w.Changed());
  // A broken save: the error names the file and the place; the theme stays.
  dir.Write("mine.json", "{\"colors\": {\"accent\": \"#0102\"}}");
  EXPECT_TRUE(w.Changed());
  w.Load(&error);
  EXPECT_NE(error.find("mine.json"), std::string::npos) << error;
  EXPECT_NE(error.find("keeping the mine theme"), std::string::npos) << error;
  EXPECT_EQ(w.theme().accent.fg, Rgb(1, 2, 3));
  // Saved through a rename (as editors do): reloaded.
  dir.Write("mine.json.tmp", R"({"name": "mine", "colors": {"accent": 33}})");
  std::filesystem::rename(dir.path / "mine.json.tmp", dir.path / "mine.json");
  EXPECT_TRUE(w.Changed());
  w.Load(&error);
  EXPECT_EQ(error, "");
  EXPECT_EQ(w.theme().accent.fg, Ansi256(33));
}

TEST(TuiTheme, BuiltInsNeedNoFileAndAMissingOneFallsBack) {
  TempDir dir;
  std::string error;
  ThemeWatcher light(dir.path, "light");
  light.Load(&error);
  EXPECT_EQ(error, "");
  EXPECT_EQ(light.theme().name, "light");
  EXPECT_EQ(light.fd(), -1) << "nothing to watch";
  ThemeWatcher missing(dir.path, "absent");
  missing.Load(&error);
  EXPECT_NE(error.find("absent.json"), std::string::npos) << error;
  EXPECT_EQ(missing.theme().name, "dark");
}

}  // namespace
}  // namespace sepp::front::tui
