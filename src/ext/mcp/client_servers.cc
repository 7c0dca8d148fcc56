#include "ext/mcp/client_servers.h"

#include <set>

namespace sepp::ext::mcp {
namespace {

// [{name, value}] as a map; where: "mcpServers[2].env".
Result<std::map<std::string, std::string>> Pairs(const Json& j, const std::string& where) {
  std::map<std::string, std::string> out;
  if (j.is_null()) return out;
  if (!j.is_array()) return Error::Make(where + " must be a list of {\"name\", \"value\"}", "usage");
  for (const auto& p : j) {
    if (!p.is_object() || !p.contains("name") || !p["name"].is_string() || !p.contains("value") ||
        !p["value"].is_string() || p["name"].get<std::string>().empty())
      return Error::Make(where + " must be a list of {\"name\": string, \"value\": string}", "usage");
    out[p["name"].get<std::string>()] = p["value"].get<std::string>();
  }
  return out;
}

std::string ServerName(const std::string& name) {
  std::string n = name.substr(0, 64);
  for (char& c : n)
    if (!(isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_')) c = '_';
  return n;
}

}  // namespace

Capabilities ClientServerCapabilities() {
  Capabilities c;
  c.fs_read = {"./"};
  return c;
}

void AsClientServer(ServerConfig* s, const std::string& source) {
  s->origin = "client";
  s->source = source;
  s->project = false;
  s->capabilities = s->command.empty() ? Capabilities{} : ClientServerCapabilities();
}

Result<std::vector<ServerConfig>> ParseAcpServers(const Json& servers) {
  std::vector<ServerConfig> out;
  if (servers.is_null()) return out;
  if (!servers.is_array()) return Error::Make("\"mcpServers\" must be a list", "usage");
  std::set<std::string> names;
  for (size_t i = 0; i < servers.size(); ++i) {
    const Json& v = servers[i];
    const std::string where = "mcpServers[" + std::to_string(i) + "]";
    if (!v.is_object()) return Error::Make(where + " must be an object", "usage");
    if (!v.contains("name") || !v["name"].is_string() || v["name"].get<std::string>().empty())
      return Error::Make(where + " needs a \"name\" (a string)", "usage");
    ServerConfig s;
    s.name = ServerName(v["name"].get<std::string>());
    if (!names.insert(s.name).second)
      return Error::Make(where + ": a second server named \"" + s.name + "\"; give each its own name", "usage");
    std::string type = v.contains("type") && v["type"].is_string() ? v["type"].get<std::string>() : "stdio";
    if (type == "stdio") {
      if (!v.contains("command") || !v["command"].is_string() || v["command"].get<std::string>().empty())
        return Error::Make(where + " (stdio) needs a \"command\" (a program)", "usage");
      s.command.push_back(v["command"].get<std::string>());
      if (auto a = v.find("args"); a != v.end() && !a->is_null()) {
        if (!a->is_array()) return Error::Make(where + ".args must be a list of strings", "usage");
        for (const auto& arg : *a) {
          if (!arg.is_string()) return Error::Make(where + ".args must be a list of strings", "usage");
          s.command.push_back(arg.get<std::string>());
        }
      }
      auto env = Pairs(v.value("env", Json()), where + ".env");
      if (!env.ok()) return env.error();
      s.env = std::move(*env);
    } else if (type == "http") {
      if (!v.contains("url") || !v["url"].is_string())
        return Error::Make(where + " (http) needs a \"url\"", "usage");
      s.url = v["url"].get<std::string>();
      if (s.url.rfind("http://", 0) != 0 && s.url.rfind("https://", 0) != 0)
        return Error::Make(where + ".url must be an http:// or https:// URL", "usage");
      auto headers = Pairs(v.value("headers", Json()), where + ".headers");
      if (!headers.ok()) return headers.error();
      s.headers = std::move(*headers);
    } else if (type == "sse") {
      return Error::Make(where + ": the SSE transport is not supported; sepp speaks MCP's Streamable HTTP "
                         "(\"type\": \"http\")", "usage");
    } else {
      return Error::Make(where + ": no MCP transport \"" + type + "\" (stdio or http)", "usage");
    }
    AsClientServer(&s, "ACP session/new");
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace sepp::ext::mcp
