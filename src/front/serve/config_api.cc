#include "front/serve/config_api.h"

#include <cerrno>
#include <cmath>

#include "base/base64.h"
#include "base/strings.h"
#include "ext/skills/skill.h"
#include "ext/skills/skill_catalog.h"
#include "front/serve/fs_api.h"
#include "front/serve/problem.h"

namespace sepp::front::serve {
namespace fs = std::filesystem;
namespace {

void SendJson(net::ResponseWriter& w, const net::Headers& cors, const Json& body) {
  net::Headers h = {{"Content-Type", "application/json"}};
  h.insert(h.end(), cors.begin(), cors.end());
  w.Send(200, h, DumpJson(body));
}

Result<std::map<std::string, std::string>> StringMap(const Json& j, const char* key) {
  std::map<std::string, std::string> out;
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return out;
  if (!it->is_object()) return Error::Make(std::string(key) + " must be an object of strings");
  for (const auto& [k, v] : it->items()) {
    if (!v.is_string()) return Error::Make(std::string(key) + "." + k + " must be a string");
    out[k] = v.get<std::string>();
  }
  return out;
}

}  // namespace

Result<ext::mcp::ServerConfig> McpServerFromJson(const std::string& name, const Json& j) {
  if (!j.is_object()) return Error::Make("the body must be an McpServerConfig object ({\"type\": \"local\"|\"remote\", ...})");
  ext::mcp::ServerConfig s;
  s.name = name;
  std::string type = j.value("type", "");
  static const std::vector<std::string> kLocal = {"type", "command", "args", "cwd", "enabled", "env", "timeoutMs"};
  static const std::vector<std::string> kRemote = {"type", "url", "headers", "bearerTokenEnvVar", "enabled",
                                                   "timeoutMs", "envHeaders", "oauth", "transport"};
  if (type != "local" && type != "remote") return Error::Make("type must be \"local\" or \"remote\"");
  const auto& known = type == "local" ? kLocal : kRemote;
  for (const auto& [k, v] : j.items())
    if (std::find(known.begin(), known.end(), k) == known.end())
      return Error::Make("unknown field \"" + k + "\" for a " + type + " server");
  if (type == "local") {
    if (!j.contains("command") || !j["command"].is_string() || j["command"].get<std::string>().empty())
      return Error::Make("a local server needs \"command\" (a program name)");
    s.command.push_back(j["command"].get<std::string>());
    if (auto it = j.find("args"); it != j.end() && !it->is_null()) {
      if (!it->is_array()) return Error::Make("args must be a list of strings");
      for (const auto& a : *it) {
        if (!a.is_string()) return Error::Make("args must be a list of strings");
        s.command.push_back(a.get<std::string>());
      }
    }
    if (auto it = j.find("cwd"); it != j.end() && !it->is_null()) {
      if (!it->is_string()) return Error::Make("cwd must be a string");
      s.cwd = it->get<std::string>();
    }
    auto env = StringMap(j, "env");
    if (!env.ok()) return env.error();
    s.env = std::move(*env);
  } else {
    if (!j.contains("url") || !j["url"].is_string()) return Error::Make("a remote server needs \"url\"");
    s.url = j["url"].get<std::string>();
    auto headers = StringMap(j, "headers");
    if (!headers.ok()) return headers.error();
    s.headers = std::move(*headers);
    if (auto it = j.find("bearerTokenEnvVar"); it != j.end() && !it->is_null()) {
      if (!it->is_string()) return Error::Make("bearerTokenEnvVar must be a string");
      s.bearer_token_env_var = it->get<std::string>();
    }
    auto env_headers = StringMap(j, "envHeaders");
    if (!env_headers.ok()) return env_headers.error();
    if (!env_headers->empty())
      return Error::Make("envHeaders is not supported by sepp: send the token with bearerTokenEnvVar, or fixed headers");
    if (auto it = j.find("oauth"); it != j.end() && !it->is_null() && !(it->is_object() && it->empty()))
      return Error::Make("oauth is not configured through this API in sepp (docs/mcp.md)");
    if (auto it = j.find("transport"); it != j.end() && !it->is_null()) {
      std::string t = it->is_string() ? it->get<std::string>() : "";
      if (t != "http" && t != "streamable-http" && t != "streamable_http")
        return Error::Make("transport \"" + t + "\" is not supported: sepp speaks MCP's Streamable HTTP (\"http\")");
    }
  }
  if (auto it = j.find("enabled"); it != j.end() && !it->is_null()) {
    if (!it->is_boolean()) return Error::Make("enabled must be a boolean");
    s.enabled = it->get<bool>();
  }
  if (auto it = j.find("timeoutMs"); it != j.end() && !it->is_null()) {
    if (!it->is_number() || !(it->get<double>() > 0) || it->get<double>() > 86400000)
      return Error::Make("timeoutMs must be a number of milliseconds (0 < ms <= 86400000)");
    s.tool_timeout_s = it->get<double>() / 1000;
  }
  // sepp's own checks (name, command or url, the url's scheme): the server
  // as TOML, parsed back.
  auto parsed = ext::mcp::ParseSeppServers(ext::mcp::ToToml(s), "the request");
  if (!parsed.ok()) return parsed.error();
  if (parsed->size() != 1) return Error::Make("the server did not survive its own round trip");
  return std::move(parsed->front());
}

Json McpServerToJson(const ext::mcp::ServerConfig& s) {
  Json j;
  if (!s.command.empty()) {
    j["type"] = "local";
    j["command"] = s.command.front();
    j["args"] = std::vector<std::string>(s.command.begin() + 1, s.command.end());
    if (s.cwd) j["cwd"] = *s.cwd;
    if (!s.env.empty()) j["env"] = s.env;
  } else {
    j["type"] = "remote";
    j["url"] = s.url;
    if (!s.headers.empty()) j["headers"] = s.headers;
    if (!s.bearer_token_env_var.empty()) j["bearerTokenEnvVar"] = s.bearer_token_env_var;
  }
  j["enabled"] = s.enabled;
  j["timeoutMs"] = static_cast<int64_t>(std::llround(s.tool_timeout_s * 1000));
  return j;
}

ConfigApi::ConfigApi(std::vector<fs::path> roots, FsWorker& worker) : roots_(std::move(roots)), worker_(worker) {}

void ConfigApi::Handle(const net::HttpServerRequest& req, net::ResponseWriter& w, const net::Headers& cors,
                       const std::vector<std::string>& seg, const Query& query) {
  const std::string what = seg.size() == 3 ? seg[2] : "";
  if (what != "mcp" && what != "skills")
    return SendProblem(w, cors, 404, problem::kNotFound, "no route " + req.Path() + " (there are /v1/config/mcp and /v1/config/skills)");
  const std::string& m = req.method;
  if (m != "GET" && m != "PUT" && m != "DELETE") {
    net::Headers h = cors;
    h.emplace_back("Allow", "GET, PUT, DELETE");
    return SendProblem(w, h, 405, problem::kMethodNotAllowed, "this route takes GET, PUT, DELETE");
  }
  const char* name_key = what == "mcp" ? "mcpName" : "skillName";
  auto dir_it = query.find("directory");
  auto name_it = query.find(name_key);
  if (dir_it == query.end() || name_it == query.end())
    return SendProblem(w, cors, 400, problem::kInvalidRequest,
                       std::string("the query parameters \"directory\" and \"") + name_key + "\" are required");
  auto dir = ResolveFsPath(roots_, dir_it->second);
  if (!dir.ok())
    return SendProblem(w, cors, dir.error().kind == "outside" ? 403 : 400,
                       dir.error().kind == "outside" ? problem::kPermissionDenied : problem::kInvalidRequest,
                       dir.error().message);
  if (what == "mcp") return Mcp(req, w, cors, *dir, name_it->second);
  Skills(req, w, cors, *dir, name_it->second);
}

void ConfigApi::Mcp(const net::HttpServerRequest& req, net::ResponseWriter& w, const net::Headers& cors,
                    const std::string& dir, const std::string& name) {
  if (!ext::mcp::ValidServerName(name))
    return SendProblem(w, cors, 400, problem::kInvalidRequest,
                       "mcpName must be 1-64 letters, digits, '-' or '_' (it becomes part of sepp's tool names)");
  const std::string file = dir + "/.sepp/mcp.toml";
  auto reply = worker_.Call({{"op", "read"}, {"path", file}});
  if (!reply.ok()) return SendProblem(w, cors, 503, problem::kInternal, reply.error().message);
  std::vector<ext::mcp::ServerConfig> servers;
  if ((*reply)["ok"].get<bool>()) {
    auto text = Base64Decode(reply->value("data", ""));
    auto parsed = ext::mcp::ParseSeppServers(text.value_or(""), file);
    if (!parsed.ok())
      return SendProblem(w, cors, 409, problem::kConflict,
                         parsed.error().message + " (fix the file, then try again)");
    servers = std::move(*parsed);
  } else if (reply->value("errno", 0) != ENOENT) {
    return SendFsFailure(w, cors, *reply);
  }
  auto it = std::find_if(servers.begin(), servers.end(), [&](const auto& s) { return s.name == name; });
  if (req.method == "GET") {
    if (it == servers.end())
      return SendProblem(w, cors, 404, problem::kNotFound,
                         "no MCP server \"" + name + "\" in " + file + " (servers of the user's files are listed by `sepp mcp list`)");
    return SendJson(w, cors, McpServerToJson(*it));
  }
  if (req.method == "PUT") {
    auto body = ParseJson(req.body);
    if (!body.ok()) return SendProblem(w, cors, 400, problem::kInvalidRequest, "the body is not JSON: " + body.error().message);
    auto server = McpServerFromJson(name, *body);
    if (!server.ok()) return SendProblem(w, cors, 400, problem::kInvalidRequest, server.error().message);
    if (it != servers.end()) {
      server->capabilities = it->capabilities;  // declared by the user in the file: kept
      *it = std::move(*server);
    } else {
      servers.push_back(std::move(*server));
    }
  } else {  // DELETE
    if (it == servers.end())
      return SendProblem(w, cors, 404, problem::kNotFound, "no MCP server \"" + name + "\" in " + file);
    servers.erase(it);
  }
  std::string text = "# MCP servers of this project, written by sepp serve's /v1/config/mcp (docs/serve.md);\n"
                     "# sepp starts them only in a trusted project (sepp trust). Edit freely.\n";
  for (const auto& s : servers) text += "\n" + ext::mcp::ToToml(s);
  auto wrote = worker_.Call({{"op", "write"}, {"path", file}, {"data", Base64Encode(text)}});
  if (!wrote.ok()) return SendProblem(w, cors, 503, problem::kInternal, wrote.error().message);
  if (!(*wrote)["ok"].get<bool>()) return SendFsFailure(w, cors, *wrote);
  w.Send(204, cors, "");
}

void ConfigApi::Skills(const net::HttpServerRequest& req, net::ResponseWriter& w, const net::Headers& cors,
                       const std::string& dir, const std::string& name) {
  if (!ext::IsUsableSkillName(name) || name.find('/') != std::string::npos || name == "." || name == "..")
    return SendProblem(w, cors, 400, problem::kInvalidRequest,
                       "skillName must be 1-64 of A-Z a-z 0-9 . _ : - (a skill's folder name)");
  const std::string folder = dir + "/.sepp/skills/" + name;
  if (req.method == "GET") {
    ext::SkillSet set = ext::LoadSkills(fs::path(dir));
    const ext::Skill* skill = set.Find(name);
    if (!skill)
      return SendProblem(w, cors, 404, problem::kNotFound,
                         "no skill \"" + name + "\" where sepp looks for " + dir + " (docs/skills.md)");
    return SendJson(w, cors, {{"sources", Json::array({{{"type", "local"},
                                                        {"source", skill->dir.string()},
                                                        {"skills", Json::array({name})}}})}});
  }
  if (req.method == "DELETE") {
    auto r = worker_.Call({{"op", "delete"}, {"path", folder}, {"recursive", true}});
    if (!r.ok()) return SendProblem(w, cors, 503, problem::kInternal, r.error().message);
    if (!(*r)["ok"].get<bool>()) {
      if (r->value("errno", 0) == ENOENT)
        return SendProblem(w, cors, 404, problem::kNotFound,
                           "no skill \"" + name + "\" in " + dir + "/.sepp/skills (a skill elsewhere is removed by deleting its folder)");
      return SendFsFailure(w, cors, *r);
    }
    return (void)w.Send(204, cors, "");
  }
  // PUT {sources: [{type: "local", source, subpath?}]}
  auto body = ParseJson(req.body);
  if (!body.ok() || !body->is_object() || !body->contains("sources") || !(*body)["sources"].is_array() ||
      (*body)["sources"].size() != 1 || !(*body)["sources"][0].is_object())
    return SendProblem(w, cors, 400, problem::kInvalidRequest,
                       "PUT {\"sources\": [{\"type\": \"local\", \"source\": \"<a folder with SKILL.md>\", \"subpath\"?: ...}]} (one source)");
  const Json& src = (*body)["sources"][0];
  if (src.value("type", "") != "local")
    return SendProblem(w, cors, 400, problem::kInvalidRequest,
                       "sepp serve fetches no skills from the network: upload the skill's folder into a workspace "
                       "(/v1/fs/upload-batch) and give it as {\"type\": \"local\", \"source\": folder}");
  if (!src.contains("source") || !src["source"].is_string())
    return SendProblem(w, cors, 400, problem::kInvalidRequest, "a local source needs \"source\": a folder");
  std::string from = src["source"].get<std::string>();
  if (auto it = src.find("subpath"); it != src.end() && !it->is_null()) {
    if (!it->is_string()) return SendProblem(w, cors, 400, problem::kInvalidRequest, "subpath must be a string");
    from += "/" + it->get<std::string>();
  }
  auto resolved = ResolveFsPath(roots_, from);
  if (!resolved.ok())
    return SendProblem(w, cors, resolved.error().kind == "outside" ? 403 : 400,
                       resolved.error().kind == "outside" ? problem::kPermissionDenied : problem::kInvalidRequest,
                       resolved.error().message);
  auto md = worker_.Call({{"op", "stat"}, {"path", *resolved + "/SKILL.md"}});
  if (!md.ok()) return SendProblem(w, cors, 503, problem::kInternal, md.error().message);
  if (!(*md)["ok"].get<bool>() || md->value("entryType", "") != "file")
    return SendProblem(w, cors, 400, problem::kInvalidRequest, *resolved + " has no SKILL.md: it is not a skill's folder");
  if (*resolved == folder) return (void)w.Send(204, cors, "");  // already where it belongs
  if (resolved->starts_with(folder + "/"))
    return SendProblem(w, cors, 400, problem::kInvalidRequest, "the source lies inside the folder it would replace");
  auto old = worker_.Call({{"op", "delete"}, {"path", folder}, {"recursive", true}});
  if (!old.ok()) return SendProblem(w, cors, 503, problem::kInternal, old.error().message);
  if (!(*old)["ok"].get<bool>() && old->value("errno", 0) != ENOENT) return SendFsFailure(w, cors, *old);
  auto copied = worker_.Call({{"op", "copy"}, {"from", *resolved}, {"to", folder}});
  if (!copied.ok()) return SendProblem(w, cors, 503, problem::kInternal, copied.error().message);
  if (!(*copied)["ok"].get<bool>()) return SendFsFailure(w, cors, *copied);
  w.Send(204, cors, "");
}

}  // namespace sepp::front::serve
