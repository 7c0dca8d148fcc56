// Finding and loading a session's hooks (tier 2), with project trust.
//
// Lua hook files, in this order (load order = combination order, hooks.h):
//   1. ~/.sepp/hooks/*.lua (SeppHome()/hooks), the user's: always loaded;
//   2. .sepp/hooks/*.lua in the project: only when the project is trusted as
//      it is now (base/project_trust.h); otherwise skipped with a warning
//      naming the files and `sepp trust`, and listed as untrusted;
//   3. --hook FILE, in the order given: the user named them, so they run.
// Then hooks.json commands (Claude Code's format, hooks_json/), after the
// Lua files: ~/.claude/settings.json, ~/.sepp/hooks.json (the user's), then
// the project's .claude/settings.json and .sepp/hooks.json (trusted only).
// Files in a folder load in name order. A file that fails to load is
// reported (a warning and the listing's errors) and the others still load.
#pragma once
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "agent/hooks.h"
#include "ext/extension_info.h"
#include "ext/hooks_json/command_hooks.h"
#include "ext/lua/lua_hook_file.h"
#include "ext/lua/lua_sandbox.h"

namespace sepp::ext {

struct HookSources {
  std::filesystem::path cwd;                     // the project (trust root)
  std::filesystem::path user_dir;                // "": SeppHome()/hooks
  std::vector<std::filesystem::path> flag_files;  // --hook
  std::filesystem::path claude_home;             // "": HomeDir()/.claude
  // Only the project's hooks (.sepp/hooks/*.lua, .claude/settings.json,
  // .sepp/hooks.json): what a running session adds once the user trusted
  // the project through the permission gate.
  bool project_only = false;
};

struct LoadedHooks {
  // Every loaded file, as one LoopHooks; empty() when there is none, and
  // then the session passes no hooks to the Agent at all.
  std::shared_ptr<agent::HookChain> chain = std::make_shared<agent::HookChain>();
  std::vector<std::shared_ptr<LuaHookFile>> lua_files;
  std::vector<ExtensionInfo> infos;  // one per file found, loaded or not
  std::vector<std::string> warnings;
};

// command: how hooks.json commands run (its cwd and report are filled in
// from sources and host when empty).
LoadedHooks LoadHooks(const HookSources& sources, const LuaHost& host, CommandHost command = {},
                      LuaLimits limits = {});

// The catalog entries for `sepp ext list`, without running any hook:
// what LoadHooks would find, and whether it is trusted.
std::vector<ExtensionInfo> ListHooks(const HookSources& sources);

}  // namespace sepp::ext
