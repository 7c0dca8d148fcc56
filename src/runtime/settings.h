// Settings from settings.toml: the user's (SeppHome()/settings.toml), then the
// project's (.sepp/settings.toml in cwd), later keys winning. Flags and the
// environment override both (the callers apply them).
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "base/result.h"
#include "session/store.h"

namespace sepp::runtime {

struct Settings {
  session::StoreKind session_store = session::StoreKind::kJsonl;  // [session] store
  std::string theme;  // theme: the TUI's theme ("dark", "light" or a file in SeppHome()/themes); "" dark
  // model / thinking: the default model ("" : the provider's) and thinking
  // level ("" : off), from the user's file only; -m, SEPP_MODEL and
  // --thinking win.
  std::string model;
  std::string thinking;
  std::vector<std::string> warnings;  // for stderr: project files skipped, and why
};

// The user's file, when it exists but does not parse, is an error naming the
// file, line and key; the project's is skipped with a warning saying the
// same; a missing file is fine.
Result<Settings> LoadSettings(const std::filesystem::path& cwd);

// Sets a top-level string key ("model", "thinking", "theme") in the user's
// settings.toml (SeppHome()), keeping every other line and comment; the
// file is made (0600) when missing. A value the key does not accept (an
// unknown thinking level) is an error saying which are.
Status SaveUserSetting(const std::string& key, const std::string& value);

}  // namespace sepp::runtime
