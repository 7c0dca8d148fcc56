#include "runtime/settings.h"

#include <cstdio>

#include "base/file.h"
#include "base/paths.h"
#include "base/toml.h"
#include "runtime/agent_session.h"

namespace sepp::runtime {
namespace {

// user_file: the user's own settings; the project's (a cloned repository's)
// may not pick the model or the thinking budget, which spend the user's money.
Status Apply(const std::filesystem::path& file, Settings& s, bool user_file) {
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
  for (const char* key : {"model", "thinking"}) {
    auto node = t[key];
    if (!node) continue;
    if (!user_file) {
      s.warnings.push_back(file.string() + ": " + key + " is read from " + (SeppHome() / "settings.toml").string() +
                           " only (a project cannot choose what you pay for); ignored");
      continue;
    }
    auto value = node.value<std::string>();
    std::string where = file.string() + ":" + std::to_string(node.node()->source().begin.line) + ": ";
    if (!value) return Error::Make(where + key + " must be a string", "usage");
    ThinkingLevel level;
    if (std::string(key) == "thinking" && !ParseThinkingLevel(*value, &level))
      return Error::Make(where + "thinking must be one of off, minimal, low, medium, high, xhigh", "usage");
    (std::string(key) == "model" ? s.model : s.thinking) = *value;
  }
  return Ok();
}

// A TOML basic string: quotes, backslashes and controls escaped.
std::string Quoted(const std::string& v) {
  std::string out = "\"";
  for (unsigned char c : v) {
    if (c == '"' || c == '\\') out += '\\', out += static_cast<char>(c);
    else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else out += static_cast<char>(c);
  }
  return out + "\"";
}

}  // namespace

Result<Settings> LoadSettings(const std::filesystem::path& cwd) {
  Settings s;
  if (auto st = Apply(SeppHome() / "settings.toml", s, true); !st.ok()) return st.error();
  // The project's file may have been written by anyone (a cloned repository,
  // a command): a broken one is reported and skipped whole, never fatal.
  Settings project = s;
  if (auto st = Apply(cwd / ".sepp" / "settings.toml", project, false); !st.ok())
    s.warnings.push_back("skipped the project settings: " + st.error().message);
  else
    s = std::move(project);
  return s;
}

Status SaveUserSetting(const std::string& key, const std::string& value) {
  if (key != "model" && key != "thinking" && key != "theme")
    return Error::Make("sepp cannot save the setting \"" + key + "\": model, thinking and theme can be saved", "usage");
  ThinkingLevel level;
  if (key == "thinking" && !ParseThinkingLevel(value, &level))
    return Error::Make("thinking must be one of off, minimal, low, medium, high, xhigh", "usage");
  std::filesystem::path file = SeppHome() / "settings.toml";
  std::string text;
  std::error_code ec;
  if (std::filesystem::exists(file, ec)) {
    auto read = ReadBoundedFile(file, kMaxConfigFileBytes, "settings");
    if (!read.ok()) return Error::Make("cannot read " + file.string() + ": " + read.error().message, "io");
    text = *read;
    // Only a file that parses is edited: a line-wise change to a broken one
    // could make it worse.
    if (auto parsed = ParseToml(text, file.string()); !parsed.ok())
      return Error::Make(parsed.error().message + " (fix it first)", "usage");
  }
  // The key's line before the first [table] is replaced; else the line goes
  // in before that table (a top-level key after it would belong to it).
  std::string line = key + " = " + Quoted(value) + "\n";
  std::string out;
  bool done = false, in_table = false;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    std::string l = text.substr(pos, end == std::string::npos ? std::string::npos : end - pos + 1);
    pos = end == std::string::npos ? text.size() : end + 1;
    size_t first = l.find_first_not_of(" \t");
    std::string body = first == std::string::npos ? "" : l.substr(first);
    if (!in_table && body.rfind("[", 0) == 0) {
      in_table = true;
      if (!done) out += line, done = true;
    }
    if (!in_table && body.rfind(key, 0) == 0) {
      size_t after = body.find_first_not_of(" \t", key.size());
      if (after != std::string::npos && body[after] == '=') {
        if (!done) out += line, done = true;
        continue;  // the old line (and any duplicate) goes
      }
    }
    if (!l.empty() && l.back() != '\n') l += '\n';
    out += l;
  }
  if (!done) out += line;
  if (auto parsed = ParseToml(out, file.string()); !parsed.ok())
    return Error::Make("internal: the edited settings would not parse: " + parsed.error().message, "internal");
  std::filesystem::create_directories(file.parent_path(), ec);
  return WriteFileAtomic(file, out, 0600);
}

}  // namespace sepp::runtime
