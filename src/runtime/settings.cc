#include "runtime/settings.h"

#include "base/file.h"
#include "base/paths.h"
#include "base/toml.h"

namespace sepp::runtime {
namespace {

Status Apply(const std::filesystem::path& file, Settings& s) {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return Ok();
  auto text = ReadBoundedFile(file, kMaxConfigFileBytes, "settings");
  if (!text.ok()) return Error::Make("cannot read " + file.string() + ": " + text.error().message, "usage");
  auto parsed = ParseToml(*text, file.string());
  if (!parsed.ok()) return Error::Make(parsed.error().message, "usage");
  toml::table& t = *parsed;
  if (auto node = t["session"]["store"]) {
    auto name = node.value<std::string>();
    auto line = node.node()->source().begin.line;
    if (!name) return Error::Make(file.string() + ":" + std::to_string(line) +
                                  ": session.store must be a string (\"jsonl\" or \"sqlite\")", "usage");
    auto kind = session::ParseStoreKind(*name);
    if (!kind.ok())
      return Error::Make(file.string() + ":" + std::to_string(line) + ": session.store: " +
                             kind.error().message, "usage");
    s.session_store = *kind;
  }
  if (auto node = t["theme"]) {
    auto name = node.value<std::string>();
    if (!name) return Error::Make(file.string() + ":" + std::to_string(node.node()->source().begin.line) +
                                  ": theme must be a string (\"dark\", \"light\" or the name of a file in " +
                                  (SeppHome() / "themes").string() + ")", "usage");
    s.theme = *name;
  }
  return Ok();
}

}  // namespace

Result<Settings> LoadSettings(const std::filesystem::path& cwd) {
  Settings s;
  if (auto st = Apply(SeppHome() / "settings.toml", s); !st.ok()) return st.error();
  // The project's file may have been written by anyone (a cloned repository,
  // a command): a broken one is reported and skipped whole, never fatal.
  Settings project = s;
  if (auto st = Apply(cwd / ".sepp" / "settings.toml", project); !st.ok())
    s.warnings.push_back("skipped the project settings: " + st.error().message);
  else
    s = std::move(project);
  return s;
}

}  // namespace sepp::runtime
