// Manifest parsing (manifest.h): strict, so a typo is an error with the
// file and line instead of a limit silently left at its default.
#include "ext/plugins/manifest.h"

#include <algorithm>

#include "base/file.h"
#include "base/paths.h"
#include "base/project_trust.h"
#include "base/toml.h"

namespace sepp::ext::plugins {
namespace {
namespace fs = std::filesystem;

std::string At(const std::string& source, const toml::node& node) {
  return source + ":" + std::to_string(node.source().begin.line) + ": ";
}

bool ValidName(const std::string& n) {
  if (n.empty() || n.size() > 64) return false;
  return std::all_of(n.begin(), n.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  });
}

bool ValidSha256(const std::string& h) {
  return h.size() == 64 && std::all_of(h.begin(), h.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

Error Usage(std::string m) { return Error::Make(std::move(m), "usage"); }

Result<uint64_t> Limit(const toml::node& node, const std::string& source, const std::string& key,
                       uint64_t lo, uint64_t hi) {
  const auto* v = node.as_integer();
  if (!v || v->get() < static_cast<int64_t>(lo) || static_cast<uint64_t>(v->get()) > hi)
    return Usage(At(source, node) + "limits." + key + ": expected an integer from " +
                 std::to_string(lo) + " to " + std::to_string(hi));
  return static_cast<uint64_t>(v->get());
}

Status ParseLimits(const toml::table& t, const std::string& source, PluginLimits* out) {
  for (const auto& [k, node] : t) {
    std::string key(k.str());
    Result<uint64_t> v = Error{};
    if (key == "max_memory_pages") {
      v = Limit(node, source, key, 1, 65536);
      if (v.ok()) out->max_memory_pages = *v;
    } else if (key == "fuel_per_call") {
      v = Limit(node, source, key, 1000, 1ull << 50);
      if (v.ok()) out->fuel_per_call = *v;
    } else if (key == "timeout_ms") {
      v = Limit(node, source, key, 1, 600'000);
      if (v.ok()) out->timeout_ms = *v;
    } else if (key == "max_call_depth") {
      v = Limit(node, source, key, 16, 10'000);
      if (v.ok()) out->max_call_depth = static_cast<uint32_t>(*v);
    } else {
      return Usage(At(source, node) + "limits." + key +
                   ": unknown limit (known: max_memory_pages, fuel_per_call, timeout_ms, "
                   "max_call_depth)");
    }
    if (!v.ok()) return v.error();
  }
  return Ok();
}

}  // namespace

Result<PluginManifest> ParseManifest(std::string_view text, const fs::path& source_path) {
  std::string source = source_path.string();
  auto parsed = ParseToml(text, source);
  if (!parsed.ok()) return Usage(parsed.error().message);
  PluginManifest m;
  m.source = source_path;
  auto str = [&](const toml::node& node, const std::string& key, std::string* out) -> Status {
    const auto* s = node.as_string();
    if (!s || s->get().empty() || s->get().find('\0') != std::string::npos)
      return Usage(At(source, node) + key + ": expected a non-empty string");
    *out = s->get();
    return Ok();
  };
  std::string wasm;
  for (const auto& [k, node] : *parsed) {
    std::string key(k.str());
    Status st = Ok();
    if (key == "name") st = str(node, key, &m.name);
    else if (key == "version") st = str(node, key, &m.version);
    else if (key == "wasm") st = str(node, key, &wasm);
    else if (key == "sha256") st = str(node, key, &m.sha256);
    else if (key == "capabilities") {
      const auto* t = node.as_table();
      if (!t) return Usage(At(source, node) + "capabilities: expected a table");
      auto caps = CapabilitiesFromToml(*t, source);
      if (!caps.ok()) return caps.error();
      m.capabilities = std::move(*caps);
    } else if (key == "limits") {
      const auto* t = node.as_table();
      if (!t) return Usage(At(source, node) + "limits: expected a table");
      st = ParseLimits(*t, source, &m.limits);
    } else {
      return Usage(At(source, node) + key +
                   ": unknown key (known: name, version, wasm, sha256, capabilities, limits)");
    }
    if (!st.ok()) return st.error();
  }
  for (const char* required : {"name", "version", "wasm", "sha256"})
    if (!parsed->contains(required))
      return Usage(source + ": " + required + " is missing (see docs/plugins.md)");
  auto line = [&](const char* key) { return At(source, *parsed->get(key)); };
  if (!ValidName(m.name))
    return Usage(line("name") + "name: \"" + m.name +
                 "\" must be 1-64 characters of a-z, 0-9 and -");
  if (!ValidSha256(m.sha256))
    return Usage(line("sha256") + "sha256: expected 64 lower-case hex digits (sha256sum FILE.wasm)");
  fs::path w(wasm);
  if (w.is_absolute() || w.has_parent_path() || wasm == "." || wasm == "..")
    return Usage(line("wasm") + "wasm: \"" + wasm +
                 "\" must be a file name in the plugin's folder, not a path");
  m.wasm = source_path.parent_path() / w;
  return m;
}

Result<PluginManifest> LoadManifest(const fs::path& manifest_file) {
  auto text = ReadBoundedFile(manifest_file, kMaxConfigFileBytes, "plugin manifest");
  if (!text.ok()) return text.error();
  return ParseManifest(*text, manifest_file);
}

std::vector<FoundPlugin> FindPlugins(const fs::path& workspace, std::vector<std::string>* warnings) {
  std::vector<FoundPlugin> found;
  auto scan = [&](const fs::path& root, const std::string& scope) {
    std::error_code ec;
    if (!fs::is_directory(root, ec)) return;
    std::vector<fs::path> dirs;
    for (const auto& e : fs::directory_iterator(root, ec))
      if (e.is_directory(ec)) dirs.push_back(e.path());
    std::sort(dirs.begin(), dirs.end());
    for (const auto& dir : dirs) {
      if (!fs::exists(dir / kManifestFile, ec)) {
        if (warnings)
          warnings->push_back("skipped plugin folder " + dir.string() + ": it has no " +
                              kManifestFile);
        continue;
      }
      FoundPlugin p{dir, scope, LoadManifest(dir / kManifestFile)};
      if (p.manifest.ok()) p.manifest->scope = scope;
      std::string name = p.manifest.ok() ? p.manifest->name : dir.filename().string();
      std::erase_if(found, [&](const FoundPlugin& f) {
        return (f.manifest.ok() ? f.manifest->name : f.dir.filename().string()) == name;
      });
      found.push_back(std::move(p));
    }
  };
  scan(SeppHome() / "plugins", "user");
  fs::path project = workspace / ".sepp" / "plugins";
  std::error_code ec;
  if (fs::is_directory(project, ec)) {
    ProjectConfig pc = ReadProjectConfig(workspace);
    TrustState trust = ProjectTrustOf(pc);
    if (trust == TrustState::kTrusted) scan(project, "project");
    else if (warnings) warnings->push_back(UntrustedNote(pc, trust, project));
  }
  return found;
}

}  // namespace sepp::ext::plugins
