// Where sepp keeps its files, and path helpers.
#pragma once
#include <filesystem>
#include <string>

namespace sepp {

std::filesystem::path HomeDir();   // $HOME, else the passwd entry
// $SEPP_HOME, else ~/.sepp: settings.toml, sessions/, skills/, ...
std::filesystem::path SeppHome();
// "~/x" -> "$HOME/x"; other paths unchanged.
std::filesystem::path ExpandUser(const std::string& path);
// path relative to base if it lies below it, else path itself: for display.
std::string DisplayPath(const std::filesystem::path& path, const std::filesystem::path& base);
// Resolves path against base (if relative) and normalises "." and "..",
// without touching the filesystem.
std::filesystem::path ResolveAgainst(const std::filesystem::path& base, const std::string& path);

}  // namespace sepp
