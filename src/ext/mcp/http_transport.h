// HttpTransport: MCP's Streamable HTTP transport, client side (spec
// 2025-11-25, basic/transports): every message is POSTed to the server's one
// endpoint with `Accept: application/json, text/event-stream`; the answer is
// 202 (nothing to say), one JSON message, or an SSE stream of messages that
// ends after the response. The session id the server gives at initialize
// (`Mcp-Session-Id`) and the negotiated `MCP-Protocol-Version` go on every
// later request; Close() ends the session with DELETE. Each POST runs on a
// thread of its own so that a long SSE answer does not hold up other calls
// or a cancellation. The optional GET stream (server-initiated messages
// outside a request) is not opened. Headers (`Authorization: Bearer …` from
// the configuration) go on every request. With an OAuthClient (oauth.h),
// its token goes on every request, and a 401 or 403 insufficient_scope
// hands the challenge to it and sends the request again once it has a new
// token.
#pragma once
#include <atomic>
#include <list>
#include <mutex>
#include <thread>

#include "base/cancel.h"
#include "ext/mcp/oauth.h"
#include "ext/mcp/transport.h"
#include "net/http_client.h"

namespace sepp::ext::mcp {

class HttpTransport : public Transport {
 public:
  HttpTransport(std::string url, net::Headers headers, std::shared_ptr<OAuthClient> oauth = nullptr);
  ~HttpTransport() override;

  void Start(OnMessage on_message, OnClosed on_closed) override;
  Status Send(const Json& message) override;
  void Close() override;
  std::string Diagnostics() const override;
  void SetProtocolVersion(const std::string& version) override;
  bool AwaitingUser() const override { return oauth_ && oauth_->awaiting_user(); }

 private:
  void Post(Json message);
  void Deliver(std::string_view body, const std::string& content_type);
  void Fail(const std::string& reason);
  net::Headers RequestHeaders() const;

  const std::string url_;
  const net::Headers headers_;
  const std::shared_ptr<OAuthClient> oauth_;
  OnMessage on_message_;
  OnClosed on_closed_;
  CancelToken cancel_;
  mutable std::mutex mu_;
  std::string session_id_, protocol_version_;
  std::string last_error_;
  struct Worker {
    std::thread thread;
    std::atomic<bool> done{false};
  };
  std::list<Worker> workers_;  // guarded by mu_
  std::atomic<bool> closed_{false};
};

}  // namespace sepp::ext::mcp
