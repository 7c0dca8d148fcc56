// `sepp ext list [--json] [DIR]`: every extension of every tier that sepp
// would load in DIR (default: here) — where it came from, its tier and
// kind, what it may do, whether it needs or has the user's trust, and why it
// did not load (a parse error with file and line, a shadowing name). It
// reads the catalog (ext/catalog.h); it never runs an extension.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>

#include "app/commands.h"
#include "base/json.h"
#include "base/paths.h"
#include "base/terminal_text.h"
#include "ext/catalog.h"
#include "ext/plugins/manifest.h"

namespace sepp::app {
namespace {

// Files and messages quote what extension authors wrote: shown, never
// obeyed by the terminal.
void Line(const std::string& s) { std::printf("%s\n", VisibleControls(s).c_str()); }

int List(const std::filesystem::path& dir, bool json) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    std::fprintf(stderr, "sepp: ext list: %s is not a folder\n", dir.c_str());
    return 2;
  }
  std::filesystem::path cwd = std::filesystem::absolute(dir, ec).lexically_normal();
  std::vector<ext::ExtensionInfo> all = ext::ListExtensions(cwd);
  if (json) {
    Json list = Json::array();
    for (const auto& e : all) list.push_back(ext::ToJson(e));
    std::printf("%s\n", Json{{"extensions", list}}.dump(2).c_str());
    return 0;
  }
  if (all.empty()) {
    std::printf("No extensions found for %s (see docs/extensions.md for the folders sepp "
                "looks in).\n", cwd.c_str());
    return 0;
  }
  int tier = 0;
  size_t problems = 0;
  for (const auto& e : all) {
    if (static_cast<int>(e.tier) != tier) {
      tier = static_cast<int>(e.tier);
      Line((tier == 1 ? "" : "\n") + std::string("Tier ") + std::to_string(tier) + " (" +
           ext::ToString(e.tier) + "):");
    }
    std::string where = DisplayPath(e.source, cwd);
    std::string home = HomeDir().string();
    if (where == e.source.string() && !home.empty() && where.rfind(home + "/", 0) == 0)
      where = "~" + where.substr(home.size());
    Line("  " + e.kind + " " + e.name + "  [" + e.scope + "]  " + where +
         (e.loaded ? "" : "  NOT LOADED"));
    for (const auto& m : e.may) Line("      may: " + m);
    Line("      trust: " + e.trust);
    for (const auto& err : e.errors) Line((e.loaded ? "      warning: " : "      error: ") + err);
    if (!e.loaded) ++problems;
  }
  if (problems)
    std::printf("\n%zu extension%s did not load: see the errors above.\n", problems,
                problems == 1 ? "" : "s");
  return 0;
}

}  // namespace

// `sepp ext trust NAME`: the headless confirmation of an extension's
// capabilities, whichever tier it is: a plugin of that name
// (`sepp plugin trust`), else an MCP server (`sepp mcp trust`).
int TrustExtension(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "sepp: usage: sepp ext trust NAME (a plugin or an MCP server; see `sepp ext list`)\n");
    return 2;
  }
  std::vector<std::string> warnings;
  std::error_code ec;
  for (const auto& found : ext::plugins::FindPlugins(std::filesystem::current_path(ec), &warnings))
    if (found.manifest.ok() && found.manifest->name == argv[2]) return RunPluginCommand(argc, argv);
  return RunMcpCommand(argc, argv);
}

int RunExtCommand(int argc, char** argv) {
  // `sepp ext audit FILE.wasm` is the plugin audit (plugin_command.cc).
  if (argc >= 2 && std::string_view(argv[1]) == "audit") return RunPluginCommand(argc, argv);
  if (argc >= 2 && std::string_view(argv[1]) == "trust") return TrustExtension(argc, argv);
  CLI::App app{"Show sepp's extensions (skills, prompt templates, hooks, plugins, MCP servers).",
               "sepp ext"};
  app.require_subcommand(1);
  bool json = false;
  std::string dir = ".";
  CLI::App* list = app.add_subcommand(
      "list", "every extension sepp would load here: where from, tier, what it may do, trust, "
              "load errors");
  app.add_subcommand("audit", "FILE.wasm: a plugin module's imports mapped to capabilities");
  app.add_subcommand("trust", "NAME: confirm a plugin's or an MCP server's capabilities as they are now");
  list->add_flag("--json", json, "one JSON object {extensions: [...]}");
  list->add_option("DIR", dir, "the working folder to look from (default: the current one)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  return List(dir, json);
}

}  // namespace sepp::app
