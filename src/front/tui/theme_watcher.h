// ThemeWatcher: the theme the settings name (`theme = "name"`), loaded from
// the themes folder (~/.sepp/themes/<name>.json, ext/themes) or built in
// ("dark", "light"), and loaded again when its file changes (inotify on the
// folder: no timer, no wake-ups while nothing changes).
#pragma once
#include <filesystem>
#include <string>

#include "front/tui/theme.h"

namespace sepp::front::tui {

class ThemeWatcher {
 public:
  // name "" is the built-in dark theme.
  ThemeWatcher(std::filesystem::path dir, std::string name);
  ~ThemeWatcher();
  ThemeWatcher(const ThemeWatcher&) = delete;
  ThemeWatcher& operator=(const ThemeWatcher&) = delete;

  // Loads the theme. A bad or missing file keeps the previous theme (the
  // built-in dark one at first) and says why in *error: the file, the place
  // and what to fix.
  void Load(std::string* error);
  // Another theme by name (/settings theme); Load() it next. The folder is
  // watched from the first theme that is a file.
  void SetName(std::string name);
  const Theme& theme() const { return theme_; }

  // An fd for poll() that is readable when the folder changed; -1 for a
  // built-in theme (nothing to watch) or without inotify.
  int fd() const { return fd_; }
  // Reads the folder's change events; true when the theme's file was among
  // them (then Load() again).
  bool Changed();

 private:
  void Watch();

  std::filesystem::path dir_;
  std::string name_;
  Theme theme_ = Theme::Dark();
  int fd_ = -1;
};

}  // namespace sepp::front::tui
