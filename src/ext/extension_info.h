// ExtensionInfo: one extension of any tier as `sepp ext list` shows it —
// where it came from, what it may do, whether it is trusted, why it did not
// load. Every tier's loader reports its extensions in this one shape, so the
// listing (and the front ends' views of it) need not know the tiers.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "base/json.h"

namespace sepp::ext {

enum class Tier {
  kResource = 1,  // skills, prompt templates, themes: data only
  kHook = 2,      // Lua hooks, hooks.json commands: in-process or sandboxed code
  kPlugin = 3,    // WebAssembly plugins: only the host functions granted
  kMcpServer = 4, // MCP servers: confined by the kernel sandbox
};

struct ExtensionInfo {
  std::string name;
  Tier tier = Tier::kResource;
  std::string kind;              // "skill", "prompt", "theme", "lua-hook", "plugin", "mcp-server", ...
  std::filesystem::path source;  // the file or folder it was loaded from
  std::string scope;             // "user", "project", "flag" (--hook), "settings"
  std::vector<std::string> may;  // what it may do, in words ("fs_read ./", "net api.example.com")
  std::string trust;             // "not needed", "trusted", "untrusted: run `sepp trust`", ...
  bool loaded = false;
  std::vector<std::string> errors;  // why it did not load, or what was wrong with it
};

// An entry for what could not be read or was skipped as a whole (a broken
// configuration file, an untrusted project's folder): not loaded, one error.
ExtensionInfo NotLoaded(Tier tier, std::string kind, std::string name, std::string scope,
                        std::string trust, std::string error);

const char* ToString(Tier tier);
// {"name","tier","kind","source","scope","may","trust","loaded","errors"}
Json ToJson(const ExtensionInfo& info);

}  // namespace sepp::ext
