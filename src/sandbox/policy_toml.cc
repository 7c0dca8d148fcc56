// Policy file parser. toml++ does the syntax (with exceptions, caught here
// and never let out); this file checks the shape: known tables and keys,
// types, enumerations, and turns sizes and durations into numbers.
#include "sandbox/policy_toml.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <toml++/toml.h>

#include "base/file.h"
#include "base/paths.h"
#include "base/toml.h"
#include "sandbox/defaults.h"
#include "sandbox/name_patterns.h"
#include "sandbox/proxy.h"

namespace sepp::sandbox {
namespace fs = std::filesystem;
namespace {

struct Ctx {
  std::string source;
  fs::path workspace;
};

Error At(const Ctx& c, const toml::source_region& where, const std::string& key,
         const std::string& what) {
  return Error::Make(c.source + ":" + std::to_string(where.begin.line) + ": " + key + ": " + what,
                     "policy");
}

std::string ResolvePath(const Ctx& c, const std::string& raw) {
  if (!raw.empty() && raw[0] == '~') return ExpandUser(raw).lexically_normal().string();
  return ResolveAgainst(c.workspace, raw).string();
}

Status StringList(const Ctx& c, const toml::node& node, const std::string& key,
                  std::vector<std::string>* out, bool paths) {
  const toml::array* arr = node.as_array();
  if (!arr) return At(c, node.source(), key, "expected a list of strings, like [\"a\", \"b\"]");
  for (const auto& item : *arr) {
    const auto* s = item.as_string();
    if (!s) return At(c, item.source(), key, "every entry must be a string");
    std::string v = s->get();
    if (v.empty()) return At(c, item.source(), key, "empty entries are not allowed");
    if (v.find('\0') != std::string::npos) return At(c, item.source(), key, "contains a NUL byte");
    // "**/NAME" patterns name files anywhere (name_patterns.h): kept as they are.
    out->push_back(paths && !IsNamePattern(v) ? ResolvePath(c, v) : v);
  }
  return Ok();
}

bool ValidEnvName(const std::string& n) {
  if (n.empty() || std::isdigit(static_cast<unsigned char>(n[0]))) return false;
  for (char ch : n)
    if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '_')) return false;
  return true;
}

Status CheckKeys(const Ctx& c, const toml::table& t, const std::string& prefix,
                 std::initializer_list<const char*> allowed) {
  for (const auto& [k, v] : t) {
    bool ok = false;
    for (const char* a : allowed)
      if (k.str() == a) ok = true;
    if (!ok) {
      std::string list;
      for (const char* a : allowed) list += std::string(list.empty() ? "" : ", ") + a;
      return At(c, k.source(), prefix + std::string(k.str()),
                "unknown key (expected one of: " + list + ")");
    }
  }
  return Ok();
}

const toml::table* SubTable(const Ctx& c, const toml::table& root, const char* name, Status* st) {
  const toml::node* n = root.get(name);
  if (!n) return nullptr;
  if (!n->is_table()) *st = At(c, n->source(), name, "expected a table ([" + std::string(name) + "])");
  return n->as_table();
}

Status Number(const Ctx& c, const toml::node& n, const std::string& key, bool duration,
              uint64_t* bytes, double* seconds) {
  if (const auto* s = n.as_string()) {
    if (duration) {
      auto d = ParseDuration(s->get());
      if (!d.ok()) return At(c, n.source(), key, d.error().message);
      *seconds = *d;
    } else {
      auto b = ParseSize(s->get());
      if (!b.ok()) return At(c, n.source(), key, b.error().message);
      *bytes = *b;
    }
    return Ok();
  }
  double v = 0;
  if (const auto* i = n.as_integer()) v = static_cast<double>(i->get());
  else if (const auto* f = n.as_floating_point()) v = f->get();
  else return At(c, n.source(), key, duration ? "expected seconds or a duration like \"30s\""
                                              : "expected a number or a size like \"512MiB\"");
  if (!(v >= 0) || !std::isfinite(v) || v > 1e18) return At(c, n.source(), key, "out of range");
  if (duration) *seconds = v;
  else *bytes = static_cast<uint64_t>(v);
  return Ok();
}

Result<Policy> Build(const Ctx& c, const toml::table& root) {
  if (auto s = CheckKeys(c, root, "", {"base", "filesystem", "network", "environment", "limits"});
      !s.ok())
    return s.error();
  Policy p;
  bool from_defaults = true;
  if (const toml::node* b = root.get("base")) {
    const auto* s = b->as_string();
    if (!s || (s->get() != "default" && s->get() != "none"))
      return At(c, b->source(), "base", "expected \"default\" or \"none\"");
    from_defaults = s->get() == "default";
  }
  if (from_defaults) {
    p = DefaultToolPolicy(c.workspace);
  } else {
    p.protected_paths.clear();
  }

  Status st;
  if (const toml::table* t = SubTable(c, root, "filesystem", &st)) {
    if (auto s = CheckKeys(c, *t, "filesystem.", {"read", "write", "deny", "protect"}); !s.ok())
      return s.error();
    if (const auto* n = t->get("read"); n)
      if (auto s = StringList(c, *n, "filesystem.read", &p.read_roots, true); !s.ok()) return s.error();
    if (const auto* n = t->get("write"); n)
      if (auto s = StringList(c, *n, "filesystem.write", &p.write_roots, true); !s.ok()) return s.error();
    if (const auto* n = t->get("deny"); n)
      if (auto s = StringList(c, *n, "filesystem.deny", &p.deny_paths, true); !s.ok()) return s.error();
    if (const auto* n = t->get("protect"); n) {
      std::vector<std::string> prot;
      if (auto s = StringList(c, *n, "filesystem.protect", &prot, false); !s.ok()) return s.error();
      for (const auto& v : prot)
        if (std::find(p.protected_paths.begin(), p.protected_paths.end(), v) == p.protected_paths.end())
          p.protected_paths.push_back(v);
    }
  }
  if (!st.ok()) return st.error();

  if (const toml::table* t = SubTable(c, root, "network", &st)) {
    if (auto s = CheckKeys(c, *t, "network.", {"mode", "allow_domains"}); !s.ok()) return s.error();
    if (const auto* n = t->get("mode")) {
      const auto* s = n->as_string();
      std::string m = s ? s->get() : "";
      if (m == "off") p.net = NetMode::kOff;
      else if (m == "proxy") p.net = NetMode::kProxy;
      else if (m == "host") p.net = NetMode::kHost;
      else return At(c, n->source(), "network.mode", "expected \"off\", \"proxy\" or \"host\"");
    }
    if (const auto* n = t->get("allow_domains")) {
      std::vector<std::string> domains;
      if (auto s = StringList(c, *n, "network.allow_domains", &domains, false); !s.ok())
        return s.error();
      for (size_t i = 0; i < domains.size(); ++i) {
        auto d = NormalizeAllowEntry(domains[i]);
        if (!d.ok())
          return At(c, (*n->as_array())[i].source(), "network.allow_domains", d.error().message);
        p.allow_domains.push_back(std::move(*d));
      }
      if (!t->get("mode")) p.net = NetMode::kProxy;
    }
  }
  if (!st.ok()) return st.error();

  if (const toml::table* t = SubTable(c, root, "environment", &st)) {
    if (auto s = CheckKeys(c, *t, "environment.", {"pass", "pass_secrets", "set"}); !s.ok())
      return s.error();
    for (const char* key : {"pass", "pass_secrets"}) {
      const auto* n = t->get(key);
      if (!n) continue;
      std::vector<std::string> names;
      std::string full = std::string("environment.") + key;
      if (auto s = StringList(c, *n, full, &names, false); !s.ok()) return s.error();
      for (size_t i = 0; i < names.size(); ++i)
        if (!ValidEnvName(names[i]))
          return At(c, (*n->as_array())[i].source(), full, "\"" + names[i] + "\" is not a variable name");
      auto& dst = std::string(key) == "pass" ? p.env_allow : p.env_allow_secrets;
      if (dst.empty() && std::string(key) == "pass" && from_defaults)
        dst = {"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TERM", "TZ", "SHELL", "TMPDIR"};
      dst.insert(dst.end(), names.begin(), names.end());
    }
    if (const auto* n = t->get("set")) {
      const auto* tbl = n->as_table();
      if (!tbl) return At(c, n->source(), "environment.set", "expected a table of NAME = \"value\"");
      for (const auto& [k, v] : *tbl) {
        std::string name(k.str());
        if (!ValidEnvName(name)) return At(c, k.source(), "environment.set." + name, "not a variable name");
        const auto* s = v.as_string();
        if (!s) return At(c, v.source(), "environment.set." + name, "expected a string value");
        if (s->get().find('\0') != std::string::npos)
          return At(c, v.source(), "environment.set." + name, "contains a NUL byte");
        p.env_set[name] = s->get();
      }
    }
  }
  if (!st.ok()) return st.error();

  if (const toml::table* t = SubTable(c, root, "limits", &st)) {
    if (auto s = CheckKeys(c, *t, "limits.", {"timeout", "processes", "memory", "file_size", "open_files"});
        !s.ok())
      return s.error();
    uint64_t dummy = 0;
    double dummy_s = 0;
    if (const auto* n = t->get("timeout"))
      if (auto s = Number(c, *n, "limits.timeout", true, &dummy, &p.limits.timeout_s); !s.ok()) return s.error();
    if (const auto* n = t->get("processes"))
      if (auto s = Number(c, *n, "limits.processes", false, &p.limits.max_processes, &dummy_s); !s.ok())
        return s.error();
    if (const auto* n = t->get("memory"))
      if (auto s = Number(c, *n, "limits.memory", false, &p.limits.max_memory_bytes, &dummy_s); !s.ok())
        return s.error();
    if (const auto* n = t->get("file_size"))
      if (auto s = Number(c, *n, "limits.file_size", false, &p.limits.max_file_bytes, &dummy_s); !s.ok())
        return s.error();
    if (const auto* n = t->get("open_files"))
      if (auto s = Number(c, *n, "limits.open_files", false, &p.limits.max_open_files, &dummy_s); !s.ok())
        return s.error();
  }
  if (!st.ok()) return st.error();
  return p;
}

}  // namespace

Result<double> ParseDuration(std::string_view text) {
  std::string t(text);
  size_t i = 0;
  while (i < t.size() && (std::isdigit(static_cast<unsigned char>(t[i])) || t[i] == '.')) ++i;
  if (i == 0) return Error::Make("\"" + t + "\" is not a duration (try \"30s\", \"5m\", \"1h\")");
  double v = 0;
  try {
    v = std::stod(t.substr(0, i));
  } catch (...) {
    return Error::Make("\"" + t + "\" is not a duration (try \"30s\", \"5m\", \"1h\")");
  }
  std::string unit = t.substr(i);
  double mult = 0;
  if (unit.empty() || unit == "s") mult = 1;
  else if (unit == "ms") mult = 0.001;
  else if (unit == "m" || unit == "min") mult = 60;
  else if (unit == "h") mult = 3600;
  if (mult == 0 || !std::isfinite(v * mult) || v * mult > 1e9)
    return Error::Make("\"" + t + "\" is not a duration (try \"30s\", \"5m\", \"1h\")");
  return v * mult;
}

Result<uint64_t> ParseSize(std::string_view text) {
  std::string t(text);
  size_t i = 0;
  while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i;
  if (i == 0 || i > 15) return Error::Make("\"" + t + "\" is not a size (try \"512MiB\", \"2GiB\")");
  uint64_t v = std::stoull(t.substr(0, i));
  std::string unit = t.substr(i);
  while (!unit.empty() && unit.front() == ' ') unit.erase(0, 1);
  std::transform(unit.begin(), unit.end(), unit.begin(), [](unsigned char ch) { return std::tolower(ch); });
  int shift = -1;
  if (unit.empty() || unit == "b") shift = 0;
  else if (unit == "k" || unit == "kb" || unit == "kib") shift = 10;
  else if (unit == "m" || unit == "mb" || unit == "mib") shift = 20;
  else if (unit == "g" || unit == "gb" || unit == "gib") shift = 30;
  else if (unit == "t" || unit == "tb" || unit == "tib") shift = 40;
  if (shift < 0) return Error::Make("\"" + t + "\" is not a size (try \"512MiB\", \"2GiB\")");
  if (shift && v > (UINT64_MAX >> shift)) return Error::Make("\"" + t + "\" is too large");
  return v << shift;
}

Result<Policy> ParsePolicyToml(std::string_view text, const std::string& source_name,
                               const fs::path& workspace) {
  Ctx c{source_name, workspace};
  auto root = ParseToml(text, source_name);
  if (!root.ok()) return Error::Make(root.error().message, "policy");
  try {
    return Build(c, *root);
  } catch (const std::exception& e) {
    return Error::Make(source_name + ": " + e.what(), "policy");
  }
}

Result<Policy> LoadPolicyFile(const fs::path& file, const fs::path& workspace) {
  auto text = ReadBoundedFile(file, kMaxConfigFileBytes, "a sandbox policy");
  if (!text.ok())
    return Error::Make("cannot read the policy file " + file.string() + ": " + text.error().message,
                       "policy");
  return ParsePolicyToml(*text, file.string(), workspace);
}

}  // namespace sepp::sandbox
