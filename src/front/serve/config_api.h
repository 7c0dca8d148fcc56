// /v1/config/mcp and /v1/config/skills: sandbox-agent 0.4.2's config API
// (docs/serve.md), on sepp's own configuration of the folder `directory`
// (inside the server's workspaces):
//   mcp:    the [[mcp.servers]] of <directory>/.sepp/mcp.toml, in
//           sandbox-agent's McpServerConfig shape ({type: local|remote, ...});
//   skills: GET finds a skill where sepp's agent would (ext/skills); PUT
//           copies a local skill folder to <directory>/.sepp/skills/<name>,
//           DELETE removes that folder.
// Every file is read and written by the fs worker, in its sandbox, so a
// symlinked .sepp/ leads nowhere.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "base/json.h"
#include "base/result.h"
#include "ext/mcp/config.h"
#include "front/serve/fs_worker.h"
#include "front/serve/query.h"
#include "net/http_server.h"

namespace sepp::front::serve {

class ConfigApi {
 public:
  ConfigApi(std::vector<std::filesystem::path> roots, FsWorker& worker);

  // seg: ("v1", "config", "mcp"|"skills"). Answers the request.
  void Handle(const net::HttpServerRequest& req, net::ResponseWriter& w, const net::Headers& cors,
              const std::vector<std::string>& seg, const Query& query);

 private:
  void Mcp(const net::HttpServerRequest& req, net::ResponseWriter& w, const net::Headers& cors,
           const std::string& dir, const std::string& name);
  void Skills(const net::HttpServerRequest& req, net::ResponseWriter& w, const net::Headers& cors,
              const std::string& dir, const std::string& name);

  const std::vector<std::filesystem::path> roots_;
  FsWorker& worker_;
};

// sandbox-agent's McpServerConfig <-> sepp's server (exposed for tests).
// Fields sepp cannot honour (envHeaders, oauth, a transport other than
// Streamable HTTP) are errors that say so.
Result<ext::mcp::ServerConfig> McpServerFromJson(const std::string& name, const Json& j);
Json McpServerToJson(const ext::mcp::ServerConfig& s);

}  // namespace sepp::front::serve
