// HTTP/1.1 client for provider APIs: TLS with verification, proxies,
// timeouts, cancellation, streamed bodies.
//
// Blocking API on purpose: the agent runs each provider call on its own
// thread; inside, the client drives Asio with a private io_context so that
// connect/read timeouts and cancellation are exact. No exceptions escape.
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
// "bad_url". Messages name the host and say what to check.
Status HttpSend(const HttpRequest& request, const HttpHandlers& handlers, CancelToken* cancel);

// Convenience: collects the whole body.
Result<HttpResponse> HttpFetch(const HttpRequest& request, CancelToken* cancel);

}  // namespace sepp::net
