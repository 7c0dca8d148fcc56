#include "ext/mcp/config.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "base/file.h"
#include "base/json.h"
#include "base/paths.h"
#include "base/project_trust.h"
#include "base/strings.h"
#include "base/toml.h"

namespace sepp::ext::mcp {
namespace fs = std::filesystem;
namespace {

std::string At(const std::string& source, const toml::source_region& r) {
  return source + ":" + std::to_string(r.begin.line) + ": ";
}

Status StringList(const toml::node& node, const std::string& source, const std::string& key,
                  std::vector<std::string>* out) {
  const toml::array* arr = node.as_array();
  if (!arr) return Error::Make(At(source, node.source()) + key + ": expected a list of strings", "usage");
  for (const auto& item : *arr) {
    const auto* s = item.as_string();
    if (!s || s->get().empty() || s->get().find('\0') != std::string::npos)
      return Error::Make(At(source, item.source()) + key + ": every entry must be a non-empty string",
                         "usage");
    out->push_back(s->get());
  }
  return Ok();
}

Status Seconds(const toml::node& node, const std::string& source, const std::string& key, double* out) {
  std::optional<double> v = node.value<double>();
  if (!v || !(*v > 0) || *v > 86400)
    return Error::Make(At(source, node.source()) + key + ": expected a number of seconds (0 < s <= 86400)",
                       "usage");
  *out = *v;
  return Ok();
}

Status CheckServer(const ServerConfig& s, const std::string& where) {
  if (!ValidServerName(s.name))
    return Error::Make(where + "name: \"" + s.name + "\" must be 1-64 letters, digits, '-' or '_' "
                       "(it becomes part of the tool names mcp__NAME__TOOL)", "usage");
  if (s.command.empty() == s.url.empty())
    return Error::Make(where + "server \"" + s.name + "\" needs exactly one of command = [...] "
                       "(a stdio server) or url = \"...\" (an HTTP server)", "usage");
  if (!s.url.empty() && s.url.rfind("http://", 0) != 0 && s.url.rfind("https://", 0) != 0)
    return Error::Make(where + "url: \"" + s.url + "\" must start with http:// or https://", "usage");
  return Ok();
}

Result<ServerConfig> ServerFromToml(const toml::table& t, const std::string& source) {
  ServerConfig s;
  s.source = source;
  s.line = static_cast<int>(t.source().begin.line);
  s.origin = "sepp";
  for (const auto& [k, node] : t) {
    std::string key(k.str());
    std::string at = At(source, node.source());
    if (key == "name") {
      if (!node.is_string()) return Error::Make(at + "name: expected a string", "usage");
      s.name = node.as_string()->get();
    } else if (key == "command") {
      if (node.is_string()) return Error::Make(at + "command: expected a list, like [\"node\", \"server.js\"]", "usage");
      if (auto st = StringList(node, source, key, &s.command); !st.ok()) return st.error();
    } else if (key == "url") {
      if (!node.is_string()) return Error::Make(at + "url: expected a string", "usage");
      s.url = node.as_string()->get();
    } else if (key == "cwd") {
      if (!node.is_string()) return Error::Make(at + "cwd: expected a string", "usage");
      s.cwd = node.as_string()->get();
    } else if (key == "env") {
      const toml::table* env = node.as_table();
      if (!env) return Error::Make(at + "env: expected a table, like { NAME = \"value\" }", "usage");
      for (const auto& [ek, ev] : *env) {
        if (!ev.is_string())
          return Error::Make(At(source, ev.source()) + "env." + std::string(ek.str()) +
                             ": expected a string", "usage");
        s.env[std::string(ek.str())] = ev.as_string()->get();
      }
    } else if (key == "headers") {
      const toml::table* h = node.as_table();
      if (!h) return Error::Make(at + "headers: expected a table, like { X-Name = \"value\" }", "usage");
      for (const auto& [hk, hv] : *h) {
        if (!hv.is_string())
          return Error::Make(At(source, hv.source()) + "headers." + std::string(hk.str()) +
                             ": expected a string", "usage");
        std::string v = hv.as_string()->get();
        if (v.find_first_of("\r\n") != std::string::npos)
          return Error::Make(At(source, hv.source()) + "headers." + std::string(hk.str()) +
                             ": a header value cannot hold a line break", "usage");
        s.headers[std::string(hk.str())] = v;
      }
    } else if (key == "bearer_token_env_var") {
      if (!node.is_string()) return Error::Make(at + "bearer_token_env_var: expected a variable name", "usage");
      s.bearer_token_env_var = node.as_string()->get();
    } else if (key == "oauth_client_id" || key == "oauth_client_secret_env_var" ||
               key == "oauth_client_metadata_url") {
      if (!node.is_string()) return Error::Make(at + key + ": expected a string", "usage");
      std::string v = node.as_string()->get();
      if (key == "oauth_client_metadata_url" && v.rfind("https://", 0) != 0)
        return Error::Make(at + key + ": a client ID metadata document is an https:// URL", "usage");
      (key == "oauth_client_id"              ? s.oauth_client_id
       : key == "oauth_client_secret_env_var" ? s.oauth_client_secret_env_var
                                              : s.oauth_client_metadata_url) = v;
    } else if (key == "enabled") {
      if (!node.is_boolean()) return Error::Make(at + "enabled: expected true or false", "usage");
      s.enabled = node.as_boolean()->get();
    } else if (key == "startup_timeout_sec") {
      if (auto st = Seconds(node, source, key, &s.startup_timeout_s); !st.ok()) return st.error();
    } else if (key == "tool_timeout_sec") {
      if (auto st = Seconds(node, source, key, &s.tool_timeout_s); !st.ok()) return st.error();
    } else if (key == "enabled_tools") {
      if (auto st = StringList(node, source, key, &s.enabled_tools); !st.ok()) return st.error();
    } else if (key == "disabled_tools") {
      if (auto st = StringList(node, source, key, &s.disabled_tools); !st.ok()) return st.error();
    } else if (key == "capabilities") {
      const toml::table* caps = node.as_table();
      if (!caps) return Error::Make(at + "capabilities: expected a table", "usage");
      auto c = CapabilitiesFromToml(*caps, source);
      if (!c.ok()) return c.error();
      s.capabilities = *c;
    } else {
      return Error::Make(at + "mcp.servers." + key + ": unknown key (known: name, command, url, "
                         "cwd, env, headers, bearer_token_env_var, oauth_client_id, oauth_client_secret_env_var, "
                         "oauth_client_metadata_url, enabled, startup_timeout_sec, "
                         "tool_timeout_sec, enabled_tools, disabled_tools, capabilities)", "usage");
    }
  }
  if (auto st = CheckServer(s, At(source, t.source())); !st.ok()) return st.error();
  return s;
}

Status AddUnique(std::vector<ServerConfig>* out, ServerConfig s) {
  for (const auto& o : *out)
    if (o.name == s.name)
      return Error::Make(s.source.string() + ":" + std::to_string(s.line) + ": the server name \"" +
                         s.name + "\" is used twice in this file", "usage");
  out->push_back(std::move(s));
  return Ok();
}

void Merge(std::vector<ServerConfig>* into, std::vector<ServerConfig> from) {
  for (auto& s : from) {
    auto it = std::find_if(into->begin(), into->end(), [&](const auto& o) { return o.name == s.name; });
    if (it != into->end()) *it = std::move(s);
    else into->push_back(std::move(s));
  }
}

std::string TomlString(const std::string& s) {
  std::ostringstream out;
  out << toml::value<std::string>(s);
  return out.str();
}

std::string TomlList(const std::vector<std::string>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + TomlString(v[i]);
  return out + "]";
}

Result<std::vector<ServerConfig>> ReadIf(const fs::path& file,
                                         Result<std::vector<ServerConfig>> (*parse)(std::string_view,
                                                                                    const std::string&)) {
  std::error_code ec;
  if (!fs::exists(file, ec)) return std::vector<ServerConfig>{};
  auto text = ReadBoundedFile(file, kMaxConfigFileBytes, "MCP server configuration");
  if (!text.ok()) return text.error();
  return parse(*text, file.string());
}

}  // namespace

bool ValidServerName(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
  });
}

std::string ServerConfig::Runs() const {
  Json j = {{"command", command}, {"url", url}, {"cwd", cwd.value_or("")}, {"env", env},
            {"headers", headers}, {"bearer_token_env_var", bearer_token_env_var}};
  // Only when set, so the keys of servers confirmed before these existed stay.
  if (!oauth_client_id.empty()) j["oauth_client_id"] = oauth_client_id;
  if (!oauth_client_metadata_url.empty()) j["oauth_client_metadata_url"] = oauth_client_metadata_url;
  return DumpJson(j);
}

bool ServerConfig::UsesOAuth() const {
  if (url.empty() || !bearer_token_env_var.empty()) return false;
  for (const auto& [k, v] : headers)
    if (ToLower(k) == "authorization") return false;
  return true;
}

bool ServerConfig::ToolEnabled(const std::string& tool) const {
  if (!enabled_tools.empty() &&
      std::find(enabled_tools.begin(), enabled_tools.end(), tool) == enabled_tools.end())
    return false;
  return std::find(disabled_tools.begin(), disabled_tools.end(), tool) == disabled_tools.end();
}

Result<std::vector<ServerConfig>> ParseSeppServers(std::string_view text, const std::string& source) {
  auto parsed = ParseToml(text, source);
  if (!parsed.ok()) return Error::Make(parsed.error().message, "usage");
  std::vector<ServerConfig> out;
  auto mcp = (*parsed)["mcp"];
  if (!mcp) return out;
  const toml::table* t = mcp.as_table();
  if (!t) return Error::Make(At(source, mcp.node()->source()) + "mcp: expected a table", "usage");
  for (const auto& [k, node] : *t) {
    if (k.str() != "servers")
      return Error::Make(At(source, node.source()) + "mcp." + std::string(k.str()) +
                         ": unknown key (known: servers, as [[mcp.servers]])", "usage");
    const toml::array* arr = node.as_array();
    if (!arr)
      return Error::Make(At(source, node.source()) + "mcp.servers: write each server as a "
                         "[[mcp.servers]] table", "usage");
    for (const auto& item : *arr) {
      const toml::table* st = item.as_table();
      if (!st) return Error::Make(At(source, item.source()) + "mcp.servers: expected tables", "usage");
      auto s = ServerFromToml(*st, source);
      if (!s.ok()) return s.error();
      if (auto a = AddUnique(&out, std::move(*s)); !a.ok()) return a.error();
    }
  }
  return out;
}

Result<std::vector<ServerConfig>> ParseClaudeServers(std::string_view text, const std::string& source) {
  auto j = ParseJson(text);
  if (!j.ok()) return Error::Make(source + ": " + j.error().message, "usage");
  std::vector<ServerConfig> out;
  if (!j->is_object()) return Error::Make(source + ": expected a JSON object", "usage");
  auto servers = j->find("mcpServers");
  if (servers == j->end()) return out;
  if (!servers->is_object()) return Error::Make(source + ": mcpServers must be an object", "usage");
  for (const auto& [name, v] : servers->items()) {
    std::string where = source + ": mcpServers." + name + ": ";
    if (!v.is_object()) return Error::Make(where + "expected an object", "usage");
    ServerConfig s;
    s.name = name;
    s.source = source;
    s.origin = "claude";
    std::string type = v.value("type", "stdio");
    if (type == "stdio") {
      if (!v.contains("command") || !v["command"].is_string())
        return Error::Make(where + "command must be a string", "usage");
      s.command.push_back(v["command"].get<std::string>());
      if (v.contains("args")) {
        if (!v["args"].is_array()) return Error::Make(where + "args must be a list", "usage");
        for (const auto& a : v["args"]) {
          if (!a.is_string()) return Error::Make(where + "args must be strings", "usage");
          s.command.push_back(a.get<std::string>());
        }
      }
    } else if (type == "http" || type == "streamable-http") {
      if (!v.contains("url") || !v["url"].is_string())
        return Error::Make(where + "url must be a string", "usage");
      s.url = v["url"].get<std::string>();
      if (v.contains("headers") && v["headers"].is_object())
        for (const auto& [hk, hv] : v["headers"].items())
          if (hv.is_string()) s.headers[hk] = hv.get<std::string>();
    } else {
      return Error::Make(where + "type \"" + type + "\" is not supported by sepp (stdio and http "
                         "are)", "usage");
    }
    if (v.contains("env")) {
      if (!v["env"].is_object()) return Error::Make(where + "env must be an object", "usage");
      for (const auto& [k, ev] : v["env"].items()) {
        if (!ev.is_string()) return Error::Make(where + "env." + k + " must be a string", "usage");
        s.env[k] = ev.get<std::string>();
      }
    }
    if (auto st = CheckServer(s, where); !st.ok()) return st.error();
    out.push_back(std::move(s));
  }
  return out;
}

Result<std::vector<ServerConfig>> ParseCodexServers(std::string_view text, const std::string& source) {
  auto parsed = ParseToml(text, source);
  if (!parsed.ok()) return Error::Make(parsed.error().message, "usage");
  std::vector<ServerConfig> out;
  const toml::table* servers = (*parsed)["mcp_servers"].as_table();
  if (!servers) return out;
  for (const auto& [k, node] : *servers) {
    const toml::table* t = node.as_table();
    std::string at = At(source, node.source()) + "mcp_servers." + std::string(k.str()) + ": ";
    if (!t) return Error::Make(at + "expected a table", "usage");
    ServerConfig s;
    s.name = std::string(k.str());
    s.source = source;
    s.line = static_cast<int>(node.source().begin.line);
    s.origin = "codex";
    if (auto c = (*t)["command"].value<std::string>()) s.command.push_back(*c);
    if (const toml::array* args = (*t)["args"].as_array())
      for (const auto& a : *args)
        if (auto v = a.value<std::string>()) s.command.push_back(*v);
    if (auto u = (*t)["url"].value<std::string>()) s.url = *u;
    if (auto c = (*t)["cwd"].value<std::string>()) s.cwd = *c;
    if (auto b = (*t)["bearer_token_env_var"].value<std::string>()) s.bearer_token_env_var = *b;
    if (const toml::table* hh = (*t)["http_headers"].as_table())
      for (const auto& [hk, hv] : *hh)
        if (auto v = hv.value<std::string>()) s.headers[std::string(hk.str())] = *v;
    if (const toml::table* env = (*t)["env"].as_table())
      for (const auto& [ek, ev] : *env)
        if (auto v = ev.value<std::string>()) s.env[std::string(ek.str())] = *v;
    if (auto e = (*t)["enabled"].value<bool>()) s.enabled = *e;
    if (auto v = (*t)["startup_timeout_sec"].value<double>(); v && *v > 0) s.startup_timeout_s = *v;
    if (auto v = (*t)["tool_timeout_sec"].value<double>(); v && *v > 0) s.tool_timeout_s = *v;
    for (const char* key : {"enabled_tools", "disabled_tools"})
      if (const toml::array* a = (*t)[key].as_array())
        for (const auto& item : *a)
          if (auto v = item.value<std::string>())
            (std::string_view(key) == "enabled_tools" ? s.enabled_tools : s.disabled_tools).push_back(*v);
    if (auto st = CheckServer(s, at); !st.ok()) return st.error();
    out.push_back(std::move(s));
  }
  return out;
}

fs::path UserMcpFile() { return SeppHome() / "mcp.toml"; }

Result<McpConfig> LoadMcpConfig(const fs::path& cwd) {
  McpConfig config;
  for (const fs::path& file : {SeppHome() / "settings.toml", UserMcpFile()}) {
    auto servers = ReadIf(file, ParseSeppServers);
    if (!servers.ok()) return servers.error();
    Merge(&config.servers, std::move(*servers));
  }
  const char* codex_home = getenv("CODEX_HOME");
  fs::path codex = codex_home && *codex_home ? fs::path(codex_home) : ExpandUser("~/.codex");
  if (auto servers = ReadIf(codex / "config.toml", ParseCodexServers); servers.ok())
    Merge(&config.servers, std::move(*servers));
  else
    config.warnings.push_back("skipped Codex's MCP servers: " + servers.error().message);

  std::vector<std::pair<fs::path, Result<std::vector<ServerConfig>> (*)(std::string_view, const std::string&)>>
      project = {{cwd / ".mcp.json", ParseClaudeServers},
                 {cwd / ".sepp" / "settings.toml", ParseSeppServers},
                 {cwd / ".sepp" / "mcp.toml", ParseSeppServers}};
  ProjectConfig pc;
  bool read_trust = false;
  for (const auto& [file, parse] : project) {
    std::error_code ec;
    if (!fs::exists(file, ec)) continue;
    if (!read_trust) {
      pc = ReadProjectConfig(cwd);
      read_trust = true;
    }
    TrustState trust = ProjectTrustOf(pc);
    if (trust != TrustState::kTrusted) {
      config.warnings.push_back(UntrustedNote(pc, trust, file));
      continue;
    }
    auto servers = ReadIf(file, parse);
    if (!servers.ok()) {
      config.warnings.push_back("skipped " + file.string() + ": " + servers.error().message);
      continue;
    }
    for (auto& s : *servers) s.project = true;
    Merge(&config.servers, std::move(*servers));
  }
  return config;
}

std::string ToToml(const ServerConfig& s) {
  std::string out = "[[mcp.servers]]\nname = " + TomlString(s.name) + "\n";
  if (!s.command.empty()) out += "command = " + TomlList(s.command) + "\n";
  if (!s.url.empty()) out += "url = " + TomlString(s.url) + "\n";
  if (s.cwd) out += "cwd = " + TomlString(*s.cwd) + "\n";
  if (!s.env.empty()) {
    out += "env = { ";
    bool first = true;
    for (const auto& [k, v] : s.env) {
      out += (first ? "" : ", ") + TomlString(k) + " = " + TomlString(v);
      first = false;
    }
    out += " }\n";
  }
  if (!s.headers.empty()) {
    out += "headers = { ";
    bool first = true;
    for (const auto& [k, v] : s.headers) {
      out += (first ? "" : ", ") + TomlString(k) + " = " + TomlString(v);
      first = false;
    }
    out += " }\n";
  }
  if (!s.bearer_token_env_var.empty()) out += "bearer_token_env_var = " + TomlString(s.bearer_token_env_var) + "\n";
  if (!s.oauth_client_id.empty()) out += "oauth_client_id = " + TomlString(s.oauth_client_id) + "\n";
  if (!s.oauth_client_secret_env_var.empty())
    out += "oauth_client_secret_env_var = " + TomlString(s.oauth_client_secret_env_var) + "\n";
  if (!s.oauth_client_metadata_url.empty())
    out += "oauth_client_metadata_url = " + TomlString(s.oauth_client_metadata_url) + "\n";
  if (!s.enabled) out += "enabled = false\n";
  if (s.startup_timeout_s != 10) out += "startup_timeout_sec = " + std::to_string(s.startup_timeout_s) + "\n";
  if (s.tool_timeout_s != 60) out += "tool_timeout_sec = " + std::to_string(s.tool_timeout_s) + "\n";
  if (!s.enabled_tools.empty()) out += "enabled_tools = " + TomlList(s.enabled_tools) + "\n";
  if (!s.disabled_tools.empty()) out += "disabled_tools = " + TomlList(s.disabled_tools) + "\n";
  if (!s.capabilities.empty()) {
    out += "[mcp.servers.capabilities]\n";
    const auto& c = s.capabilities;
    for (const auto& [key, list] : std::initializer_list<std::pair<const char*, const std::vector<std::string>*>>{
             {"fs_read", &c.fs_read}, {"fs_write", &c.fs_write}, {"net", &c.net}, {"env", &c.env},
             {"exec", &c.exec}})
      if (!list->empty()) out += std::string(key) + " = " + TomlList(*list) + "\n";
  }
  return out;
}

Status AddUserServer(const ServerConfig& server) {
  if (auto st = CheckServer(server, ""); !st.ok()) return st.error();
  auto existing = ReadIf(UserMcpFile(), ParseSeppServers);
  if (!existing.ok()) return existing.error();
  std::vector<ServerConfig> servers = std::move(*existing);
  Merge(&servers, {server});
  std::string text = "# MCP servers added with `sepp mcp add` (docs/mcp.md); edit freely.\n";
  for (const auto& s : servers) text += "\n" + ToToml(s);
  return WriteFileAtomic(UserMcpFile(), text, 0600);
}

Status RemoveUserServer(const std::string& name) {
  auto existing = ReadIf(UserMcpFile(), ParseSeppServers);
  if (!existing.ok()) return existing.error();
  std::vector<ServerConfig> servers = std::move(*existing);
  size_t before = servers.size();
  std::erase_if(servers, [&](const auto& s) { return s.name == name; });
  if (servers.size() == before)
    return Error::Make("no server \"" + name + "\" in " + UserMcpFile().string() +
                       " (servers in other files are removed by editing them)", "usage");
  std::string text = "# MCP servers added with `sepp mcp add` (docs/mcp.md); edit freely.\n";
  for (const auto& s : servers) text += "\n" + ToToml(s);
  return WriteFileAtomic(UserMcpFile(), text, 0600);
}

}  // namespace sepp::ext::mcp
