// `sepp serve`: sepp's agent over HTTP + SSE, usable by sandbox-agent 0.4's
// clients unchanged (docs/serve.md has the API). This is the router: the
// guard (token, Host, Origin, CORS) in front of every route, problem+json
// errors, the control routes (/v1/health, /v1/agents, /v1/acp) and the ACP
// transport, which is AcpHub's; sepp's own session API is SessionHub's.
#pragma once
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/result.h"
#include "front/serve/acp_hub.h"
#include "front/serve/config_api.h"
#include "front/serve/fs_api.h"
#include "front/serve/guard.h"
#include "front/serve/process_hub.h"
#include "front/serve/query.h"
#include "front/serve/session_hub.h"
#include "net/http_server.h"

namespace sepp::front::serve {

struct ServeOptions {
  std::string host = "127.0.0.1";
  int port = 2468;                        // 0: any free port
  std::string token;                      // empty: no token (--no-token)
  std::vector<std::string> cors_origins;  // --cors-allow-origin
  AcpHubOptions hub;
  std::string version;
  bool credentials_available = true;  // a provider key is configured
};

class ServeServer {
 public:
  explicit ServeServer(ServeOptions options);
  ~ServeServer();  // Stop()
  Status Start();
  int port() const { return http_ ? http_->port() : 0; }
  // Stops taking requests, then closes every ACP connection.
  void Stop();

  // The router, for the HTTP server (public for tests that call it directly).
  void Handle(const net::HttpServerRequest& req, net::ResponseWriter& w);

 private:
  void Route(const net::HttpServerRequest& req, net::ResponseWriter& w, const net::Headers& cors);
  void RouteSessions(const net::HttpServerRequest& req, net::ResponseWriter& w,
                     const net::Headers& cors, const std::vector<std::string>& seg,
                     const Query& query);
  // GET /ui/...: the inspector's embedded files (ui_assets.h).
  void ServeUi(const net::HttpServerRequest& req, net::ResponseWriter& w);
  Json AgentInfo(bool with_config);

  ServeOptions options_;
  GuardConfig guard_;
  std::unique_ptr<AcpHub> hub_;
  std::unique_ptr<SessionHub> sessions_;
  std::unique_ptr<FsWorker> fs_worker_;  // the file work of fs_ and config_
  std::unique_ptr<FsApi> fs_;
  std::unique_ptr<ConfigApi> config_;
  std::unique_ptr<ProcessHub> processes_;
  std::unique_ptr<net::HttpServer> http_;
  std::mutex install_mu_;
  std::atomic<bool> ready_{false};  // guard_ knows the bound port
  int64_t started_ms_ = 0;
};

}  // namespace sepp::front::serve
