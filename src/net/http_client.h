// HTTP/1.1 client for provider APIs: TLS with verification, proxies,
// timeouts, cancellation, streamed bodies.
//
// Blocking API on purpose: the agent runs each provider call on its own
// thread; inside, the client waits with poll() on the socket and a cancel
// eventfd, so connect/read timeouts and cancellation are exact. No
// exceptions escape.
#pragma once
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/cancel.h"
#include "base/result.h"

namespace sepp::net {

using Headers = std::vector<std::pair<std::string, std::string>>;

struct HttpRequest {
  std::string method = "POST";
  std::string url;               // http:// or https://
  Headers headers;               // Host, Content-Length are added
  std::string body;
  double connect_timeout_s = 30;
  double read_timeout_s = 300;   // longest silence allowed while reading
  // "" = from the environment (HTTPS_PROXY/HTTP_PROXY/NO_PROXY, see
  // net/proxy.h); "direct" = no proxy; else an http:// proxy URL, used even
  // for loopback targets. Userinfo in a proxy URL becomes Basic auth.
  std::string proxy;
};

struct HttpResponseHead {
  int status = 0;
  Headers headers;
  // Case-insensitive lookup; empty if absent.
  std::string Header(std::string_view name) const;
};

struct HttpResponse {
  HttpResponseHead head;
  std::string body;
};

// on_head is called once, then on_body for each chunk of the (de-chunked)
// body as it arrives. on_body returning false stops the transfer (Ok).
struct HttpHandlers {
  std::function<void(const HttpResponseHead&)> on_head;
  std::function<bool(std::string_view)> on_body;
};

// Error kinds: "connect" (DNS, refused, unreachable), "tls", "timeout",
// "aborted" (cancel), "io" (connection dropped mid-response), "proxy",
// "bad_url", "bad_request" (CR/LF in a header). Messages name the host and
// say what to check. An HTTP error status (4xx/5xx) is not an error here:
// it arrives in on_head like any other response.
//
// Connections are kept alive and reused by later calls to the same target
// (see net/conn_pool.h); no Accept-Encoding is sent, so bodies arrive as the
// server wrote them (de-chunked).
Status HttpSend(const HttpRequest& request, const HttpHandlers& handlers, CancelToken* cancel);

// Convenience: collects the whole body, at most max_body_bytes of it (a
// larger one is an "io" error naming the host and the bound).
constexpr size_t kMaxFetchBodyBytes = 64u << 20;  // 64 MiB
Result<HttpResponse> HttpFetch(const HttpRequest& request, CancelToken* cancel,
                               size_t max_body_bytes = kMaxFetchBodyBytes);

}  // namespace sepp::net
