#include "base/project_trust.h"

#include <algorithm>
#include <cstdio>

#include "base/file.h"
#include "base/json.h"
#include "base/paths.h"
#include "base/sha256.h"

namespace sepp {
namespace fs = std::filesystem;
namespace {

constexpr size_t kMaxFiles = 1000;
constexpr uintmax_t kMaxBytes = 64ull << 20;

// Streams one file into the hash; false when it cannot be read.
bool HashFile(const fs::path& p, Sha256* h, Sha256* own, uintmax_t* total) {
  FILE* f = std::fopen(p.c_str(), "rb");
  if (!f) return false;
  char buf[65536];
  size_t n;
  bool ok = true;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) {
    *total += n;
    if (*total > kMaxBytes) {
      ok = false;
      break;
    }
    h->Update(std::string_view(buf, n));
    own->Update(std::string_view(buf, n));
  }
  if (std::ferror(f)) ok = false;
  std::fclose(f);
  return ok;
}

Json LoadStore() {
  auto text = ReadFile(TrustStorePath());
  if (!text.ok()) return Json::object();
  auto parsed = ParseJson(*text);
  if (!parsed.ok() || !parsed->is_object()) return Json::object();
  return *parsed;
}

}  // namespace

const std::vector<std::string>& ProjectConfigEntries() {
  static const std::vector<std::string> kEntries = {
      ".sepp/settings.toml", ".sepp/policy.toml",     ".sepp/agents/", ".sepp/hooks/",
      ".sepp/hooks.json",    ".sepp/plugins/",        ".sepp/mcp.toml", ".claude/agents/",
      ".claude/settings.json", ".mcp.json",
      // Where Claude Code projects keep the scripts their hooks.json runs.
      ".claude/hooks/"};
  return kEntries;
}

fs::path TrustStorePath() { return SeppHome() / "trust.json"; }

ProjectConfig ReadProjectConfig(const fs::path& root) {
  ProjectConfig c;
  std::error_code ec;
  c.root = fs::weakly_canonical(root, ec);
  if (ec) c.root = root;
  for (const auto& entry : ProjectConfigEntries()) {
    fs::path p = c.root / entry;
    if (entry.back() != '/') {
      if (fs::is_regular_file(p, ec)) c.files.push_back(p);
      continue;
    }
    if (!fs::is_directory(p, ec)) continue;
    for (auto it = fs::recursive_directory_iterator(p, ec); !ec && it != fs::end(it);
         it.increment(ec)) {
      if (c.files.size() > kMaxFiles) break;
      if (it->is_regular_file(ec)) c.files.push_back(it->path());
    }
  }
  std::sort(c.files.begin(), c.files.end());
  if (c.files.empty()) return c;
  if (c.files.size() > kMaxFiles) {
    c.problem = "the project has more than " + std::to_string(kMaxFiles) + " configuration files";
    return c;
  }
  Sha256 h;
  uintmax_t total = 0;
  for (const auto& f : c.files) {
    std::string rel = f.lexically_relative(c.root).string();
    h.Update(rel);
    h.Update(std::string_view("\0", 1));
    Sha256 own;
    if (!HashFile(f, &h, &own, &total)) {
      c.problem = total > kMaxBytes ? "the project's configuration files hold more than 64 MiB"
                                    : "cannot read " + f.string();
      return c;
    }
    h.Update(std::string_view("\0", 1));
    c.file_hashes.push_back(own.HexDigest());
  }
  c.key = h.HexDigest();
  return c;
}

TrustState ProjectTrustOf(const ProjectConfig& config) {
  if (config.files.empty()) return TrustState::kNothingToTrust;
  if (!config.problem.empty()) return TrustState::kUntrusted;
  Json store = LoadStore();
  const Json* projects = store.contains("projects") && store["projects"].is_object()
                             ? &store["projects"] : nullptr;
  if (!projects || !projects->contains(config.root.string())) return TrustState::kUntrusted;
  const Json& v = (*projects)[config.root.string()];
  if (v.is_string() && v.get<std::string>() == config.key) return TrustState::kTrusted;
  return TrustState::kChanged;
}

namespace {

// Claude's settings hold permissions and more; only a "hooks" table is code.
bool ClaudeSettingsHaveHooks(const fs::path& file) {
  auto text = ReadFile(file);
  if (!text.ok()) return true;  // unreadable: assume the worst
  auto j = ParseJson(*text);
  if (!j.ok() || !j->is_object()) return true;
  return j->contains("hooks") && !(*j)["hooks"].empty();
}

}  // namespace

bool HasProjectCode(const ProjectConfig& config, bool extensions) {
  static const std::vector<std::string> kHooks = {".sepp/hooks/", ".sepp/hooks.json", ".claude/hooks/"};
  static const std::vector<std::string> kExtensions = {".sepp/plugins/", ".sepp/mcp.toml", ".mcp.json"};
  auto matches = [](const std::string& rel, const std::vector<std::string>& list) {
    for (const auto& c : list)
      if (c.back() == '/' ? rel.rfind(c, 0) == 0 : rel == c) return true;
    return false;
  };
  for (const auto& f : config.files) {
    std::string rel = f.lexically_relative(config.root).string();
    if (matches(rel, kHooks) || (extensions && matches(rel, kExtensions))) return true;
    if (rel == ".claude/settings.json" && ClaudeSettingsHaveHooks(f)) return true;
  }
  return false;
}

Status RecordProjectRefusal(const ProjectConfig& config, const std::string& why) {
  if (config.key.empty()) return Ok();
  Json store = LoadStore();
  if (!store.contains("refused") || !store["refused"].is_object()) store["refused"] = Json::object();
  store["version"] = 1;
  store["refused"][config.root.string()] = {{"key", config.key}, {"why", why}};
  return WriteFileAtomic(TrustStorePath(), store.dump(2) + "\n", 0600);
}

std::string ProjectRefusalOf(const ProjectConfig& config) {
  Json store = LoadStore();
  if (!store.contains("refused") || !store["refused"].is_object()) return "";
  const Json& r = store["refused"];
  if (!r.contains(config.root.string())) return "";
  const Json& v = r[config.root.string()];
  if (!v.is_object() || v.value("key", "") != config.key) return "";
  return v.value("why", "");
}

Status TrustProject(const ProjectConfig& config) {
  if (!config.problem.empty())
    return Error::Make("cannot trust " + config.root.string() + ": " + config.problem, "usage");
  Json store = LoadStore();
  if (!store.contains("projects") || !store["projects"].is_object())
    store["projects"] = Json::object();
  store["version"] = 1;
  if (store.contains("refused") && store["refused"].is_object())
    store["refused"].erase(config.root.string());
  if (config.files.empty()) store["projects"].erase(config.root.string());
  else store["projects"][config.root.string()] = config.key;
  return WriteFileAtomic(TrustStorePath(), store.dump(2) + "\n", 0600);
}

std::string UntrustedNote(const ProjectConfig& config, TrustState state, const fs::path& what) {
  std::string why = state == TrustState::kChanged
                        ? "this project's configuration changed since you trusted it"
                        : "this project's configuration is not trusted";
  if (!config.problem.empty()) why = config.problem;
  return "ignored " + what.string() + ": " + why +
         " (it can widen the sandbox or add code to run). Review the files under " +
         config.root.string() + "/.sepp and .claude, then run `sepp trust " +
         config.root.string() + "` or start sepp with --trust";
}

}  // namespace sepp
