// sepp plugin: the WebAssembly plugins (tier 3, docs/plugins.md).
//
//   sepp plugin list          the plugins found, what they may do, whether
//                             they are confirmed and why one did not load
//   sepp plugin trust NAME    confirm its capabilities for this binary and
//                             manifest (a rebuilt binary asks again)
//   sepp plugin audit FILE.wasm
//                             a module's imports mapped to capabilities
#include <cstdio>
#include <filesystem>

#include <CLI/CLI.hpp>

#include "app/commands.h"
#include "base/file.h"
#include "base/paths.h"
#include "ext/capabilities.h"
#include "ext/plugins/abi.h"
#include "ext/plugins/plugins.h"
#include "wasm/decoder.h"

namespace sepp::app {
namespace {
namespace fs = std::filesystem;
namespace pl = ext::plugins;

int List() {
  std::vector<std::string> warnings;
  auto plugins = pl::Plugins::Load(fs::current_path(), &warnings);
  for (const auto& w : warnings) std::fprintf(stderr, "sepp: %s\n", w.c_str());
  if (plugins->infos().empty()) {
    std::printf("no plugins (put one in %s/NAME/, see docs/plugins.md)\n",
                (SeppHome() / "plugins").c_str());
    return 0;
  }
  for (const auto& info : plugins->infos()) {
    std::printf("%s (%s, %s)\n  from: %s\n  trust: %s\n", info.name.c_str(), info.scope.c_str(),
                info.loaded ? "loaded" : "not loaded", info.source.c_str(), info.trust.c_str());
    for (const auto& m : info.may) std::printf("  may: %s\n", m.c_str());
    for (const auto& e : info.errors) std::printf("  error: %s\n", e.c_str());
  }
  for (const auto& p : plugins->loaded())
    for (const auto& t : p->tools())
      std::printf("tool %s: %s\n", pl::ToolName(p->manifest().name, t.name).c_str(), t.description.c_str());
  return 0;
}

int Trust(const std::string& name) {
  std::vector<std::string> warnings;
  for (const auto& found : pl::FindPlugins(fs::current_path(), &warnings)) {
    if (!found.manifest.ok() || found.manifest->name != name) continue;
    const pl::PluginManifest& m = *found.manifest;
    std::printf("plugin %s %s (%s)\n  runs: %s (sha256 %s)\n", m.name.c_str(), m.version.c_str(),
                found.scope.c_str(), m.wasm.c_str(), m.sha256.c_str());
    for (const auto& line : ext::Describe(m.capabilities)) std::printf("  may: %s\n", line.c_str());
    if (auto st = ext::Confirm(pl::ConfirmName(m.name), pl::ConfirmKey(m)); !st.ok()) {
      std::fprintf(stderr, "sepp: %s\n", st.error().message.c_str());
      return 1;
    }
    std::printf("confirmed; it loads in the next session\n");
    return 0;
  }
  for (const auto& w : warnings) std::fprintf(stderr, "sepp: %s\n", w.c_str());
  std::fprintf(stderr, "sepp: no plugin named %s (see `sepp plugin list`)\n", name.c_str());
  return 2;
}

int Audit(const std::string& file) {
  auto bytes = ReadBoundedFile(file, 64ull << 20, "module");
  if (!bytes.ok()) {
    std::fprintf(stderr, "sepp: %s\n", bytes.error().message.c_str());
    return 1;
  }
  auto module = wasm::DecodeModule(
      std::span(reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size()));
  if (!module.ok()) {
    std::fprintf(stderr, "sepp: %s is not a valid WebAssembly module: %s\n", file.c_str(),
                 module.error().message.c_str());
    return 1;
  }
  auto uses = pl::AuditImports(**module);
  bool outside = false;
  for (const auto& u : uses) {
    outside = outside || u.capability.empty();
    std::printf("%s.%s -> %s\n", u.module.c_str(), u.name.c_str(),
                u.capability.empty() ? "NOT IN THE ABI (the module is refused)"
                : u.capability == "core" ? "core (always linked)" : u.capability.c_str());
  }
  if (uses.empty()) std::printf("no imports\n");
  return outside ? 1 : 0;
}

}  // namespace

int RunPluginCommand(int argc, char** argv) {
  CLI::App cli{"WebAssembly plugins (docs/plugins.md)", "sepp plugin"};
  cli.require_subcommand(1);
  std::string name, file;
  auto* list = cli.add_subcommand("list", "the plugins, what they may do, and their state");
  auto* trust = cli.add_subcommand("trust", "confirm a plugin's capabilities as they are now");
  trust->add_option("name", name)->required();
  auto* audit = cli.add_subcommand("audit", "print a module's imports mapped to capabilities");
  audit->add_option("file", file, "FILE.wasm")->required();
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = cli.exit(e);
    return code == 0 ? 0 : 2;
  }
  if (*list) return List();
  if (*trust) return Trust(name);
  return Audit(file);
}

}  // namespace sepp::app
