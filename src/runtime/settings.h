// Settings from settings.toml: the user's (SeppHome()/settings.toml), then the
// project's (.sepp/settings.toml in cwd), later keys winning. Flags and the
// environment override both (the callers apply them).
#pragma once
#include <filesystem>

#include "base/result.h"
#include "session/store.h"

namespace sepp::runtime {

struct Settings {
  session::StoreKind session_store = session::StoreKind::kJsonl;  // [session] store
};

// A file that exists but does not parse is an error naming the file, line
// and key; a missing file is fine.
Result<Settings> LoadSettings(const std::filesystem::path& cwd);

}  // namespace sepp::runtime
