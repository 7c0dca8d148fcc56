// HttpTransport: MCP's Streamable HTTP transport, client side (spec
// 2025-11-25, basic/transports): every message is POSTed to the server's one
// endpoint with `Accept: application/json, text/event-stream`; the answer is
// 202 (nothing to say), one JSON message, or an SSE stream of messages that
// ends after the response. The session id the server gives at initialize
// (`Mcp-Session-Id`) and the negotiated `MCP-Protocol-Version` go on every
// later request; Close() ends the session with DELETE. Each POST runs on a
// thread of its own so that a long SSE answer does not hold up other calls
// or a cancellation.
//
// The GET stream (server-initiated messages outside a request): opened once
// the connection is initialized; a server that answers anything but an SSE
// stream (405, 404, 400, 401 …) offers none, and it is not asked again.
// When the server ends it, sepp opens it again after the stream's `retry`
// time (else 1 s, doubling while streams end without a message, at most
// 30 s; five such in a row and it stops), with `Last-Event-ID`.
// Resumption (SEP-1699): a POST's SSE stream that ends before the answer to
// its request came, after an event with an id, is resumed with a GET
// carrying `Last-Event-ID`, after the stream's `retry` time (else 1 s), at
// most five times; then the request fails with an error naming why.
// Headers (`Authorization: Bearer …` from
// the configuration) go on every request. With an OAuthClient (oauth.h),
// its token goes on every request, and a 401 or 403 insufficient_scope
// hands the challenge to it and sends the request again once it has a new
// token.
#pragma once
#include <atomic>
#include <condition_variable>
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
  // An SSE stream's messages; awaited: the id of the request whose answer
  // the caller waits for (null: none), *answered set when it came.
  struct Stream {
    const Json* awaited = nullptr;
    bool answered = false;
    bool delivered = false;  // any message at all
    std::string last_event_id;
    long retry_ms = -1;
  };
  // GET with Last-Event-ID (when set); the HTTP status, or 0 when the
  // server could not be reached (or the transport closed); *sse false when
  // the answer is not an event stream.
  int Get(Stream* stream, bool* sse);
  void Resume(const Json& request_id, Stream stream);
  void Listen();
  // Waits ms, or until Close(); false when closed.
  bool Pause(long ms);
  void Deliver(std::string_view body, const std::string& content_type, Stream* stream = nullptr);
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
  void MarkGetAnswered();  // wakes SetProtocolVersion's wait
  std::thread listener_;       // the GET stream; started once, guarded by mu_
  bool get_answered_ = false;  // its first GET has its answer's head (or failed); mu_
  std::condition_variable wake_;  // Close()
  std::atomic<bool> closed_{false};
};

}  // namespace sepp::ext::mcp
