// `sepp trust [DIR]`: the user's headless confirmation that a project's
// configuration (agent definitions, hooks, plugins, project policy: whatever
// can widen the sandbox or add code to run) may take effect as it is now.
// The trust is keyed to the files' content (base/project_trust.h): any later
// change, by a command or by hand, needs a new `sepp trust`.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>
#include <string>

#include "app/commands.h"
#include "base/paths.h"
#include "base/project_trust.h"

namespace sepp::app {

int TrustCurrentProject(const std::filesystem::path& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    std::fprintf(stderr, "sepp: cannot trust %s: it is not a folder\n", dir.c_str());
    return 2;
  }
  ProjectConfig config = ReadProjectConfig(dir);
  if (config.files.empty()) {
    std::fprintf(stderr, "sepp: %s has no project configuration to trust (none of: .sepp/, "
                 ".claude/agents, .claude/settings.json, .mcp.json)\n", config.root.c_str());
    return 0;
  }
  if (auto st = TrustProject(config); !st.ok()) {
    std::fprintf(stderr, "sepp: %s\n", st.error().message.c_str());
    return 1;
  }
  std::fprintf(stderr, "sepp: trusted the configuration of %s as it is now (%zu file%s):\n",
               config.root.c_str(), config.files.size(), config.files.size() == 1 ? "" : "s");
  for (const auto& f : config.files)
    std::fprintf(stderr, "  %s\n", DisplayPath(f, config.root).c_str());
  return 0;
}

int RunTrustCommand(int argc, char** argv) {
  CLI::App app{"Trust a project's configuration as it is now: its agent definitions (and, as "
               "they come, hooks, plugins and MCP servers) take effect until a file changes.",
               "sepp trust"};
  std::string dir = ".";
  app.add_option("DIR", dir, "the project folder (default: the current one)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  return TrustCurrentProject(dir);
}

}  // namespace sepp::app
