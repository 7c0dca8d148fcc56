#include "front/tui/theme_watcher.h"

#include <sys/inotify.h>
#include <unistd.h>

#include <cstring>

#include "ext/themes/theme_file.h"

namespace sepp::front::tui {

ThemeWatcher::ThemeWatcher(std::filesystem::path dir, std::string name)
    : dir_(std::move(dir)), name_(std::move(name)) {
  Watch();
}

void ThemeWatcher::SetName(std::string name) {
  name_ = std::move(name);
  Watch();
}

void ThemeWatcher::Watch() {
  if (fd_ >= 0 || name_.empty() || Theme::BuiltIn(name_)) return;
  fd_ = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd_ < 0) return;
  // Editors save by writing in place or by renaming a new file over the old.
  if (inotify_add_watch(fd_, dir_.c_str(), IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE) < 0) {
    close(fd_);
    fd_ = -1;
  }
}

ThemeWatcher::~ThemeWatcher() {
  if (fd_ >= 0) close(fd_);
}

void ThemeWatcher::Load(std::string* error) {
  error->clear();
  if (name_.empty()) {
    theme_ = Theme::Dark();
    return;
  }
  if (const Theme* built_in = Theme::BuiltIn(name_)) {
    theme_ = *built_in;
    return;
  }
  auto file = ext::themes::LoadTheme(dir_, name_);
  if (!file.ok()) {
    *error = file.error().message + "; keeping the " + theme_.name + " theme";
    return;
  }
  theme_ = Theme::FromFile(*file, Theme::Dark());
}

bool ThemeWatcher::Changed() {
  if (fd_ < 0) return false;
  alignas(inotify_event) char buf[4096];
  bool ours = false;
  std::string file = name_ + ".json";
  ssize_t n;
  while ((n = read(fd_, buf, sizeof buf)) > 0) {
    for (ssize_t off = 0; off < n;) {
      auto* ev = reinterpret_cast<inotify_event*>(buf + off);
      if (ev->len > 0 && file == ev->name) ours = true;
      off += static_cast<ssize_t>(sizeof(inotify_event) + ev->len);
    }
  }
  return ours;
}

}  // namespace sepp::front::tui
