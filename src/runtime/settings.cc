#include "runtime/settings.h"

#include "base/file.h"
#include "base/paths.h"
#include "base/toml.h"

namespace sepp::runtime {
namespace {

Status Apply(const std::filesystem::path& file, Settings& s) {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return Ok();
  auto text = ReadFile(file);
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
  return Ok();
}

}  // namespace

Result<Settings> LoadSettings(const std::filesystem::path& cwd) {
  Settings s;
  if (auto st = Apply(SeppHome() / "settings.toml", s); !st.ok()) return st.error();
  if (auto st = Apply(cwd / ".sepp" / "settings.toml", s); !st.ok()) return st.error();
  return s;
}

}  // namespace sepp::runtime
