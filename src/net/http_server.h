// A small HTTP/1.1 server core: binds 127.0.0.1 (or a given address), and
// hands each request to a handler that answers whole or streams the
// response in pieces. Used by the fake LLM provider in tests and by
// `sepp serve`.
//
// One event-loop thread (epoll) accepts, reads and parses every request and
// holds the idle keep-alive connections; a request the options declare
// cheap (answer_inline) is answered on the loop itself, every other one on a
// worker thread, which may block as long as it likes (streams, waits).
//
// Thread-safety: the handler runs on the loop or on workers, possibly many
// at once; it must synchronise its own shared state.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "base/fd.h"
#include "base/result.h"
#include "net/http_client.h"  // Headers

namespace sepp::net {

struct HttpServerRequest {
  std::string method;   // "GET", "POST", ...
  std::string target;   // "/v1/messages?x=1" as sent
  Headers headers;      // in order, names as sent
  std::string body;     // de-chunked
  std::string peer;     // "127.0.0.1:54321"
  // Case-insensitive; "" if absent.
  std::string Header(std::string_view name) const;
  // target without the query.
  std::string Path() const;
};

// How a handler answers. Either Send() once, or Begin() then Write()* then
// End() (or Abort() to cut the connection mid-stream). If the handler
// returns without answering, the server sends 500; after Begin() without
// End(), the server ends the response.
class ResponseWriter {
 public:
  virtual ~ResponseWriter() = default;
  // A whole response with Content-Length.
  virtual bool Send(int status, const Headers& headers, std::string_view body) = 0;
  // Starts a streamed response: chunked (keeps the connection reusable) or
  // close-delimited (the body ends when the server closes).
  virtual bool Begin(int status, const Headers& headers, bool chunked = true) = 0;
  // Sends a piece at once (no buffering). False once the client is gone.
  virtual bool Write(std::string_view piece) = 0;
  virtual bool End() = 0;
  // Drops the connection now, without ending the body: a cut stream.
  virtual void Abort() = 0;
  // True once a write failed, the client closed its end or the server is
  // stopping. Cheap (one non-blocking poll): handlers that wait between
  // writes (SSE) should check it in their wait loop.
  virtual bool client_gone() const = 0;

  // Switches the connection to another protocol (a WebSocket): sends "101
  // Switching Protocols" with `headers` and hands the socket over. The
  // handler then owns the conversation on `fd` (non-blocking) until it
  // returns, when the server closes it; `early` holds what the client sent
  // after the request head. Only for requests answered on a worker; an
  // error if anything was answered already.
  struct Upgraded {
    int fd = -1;
    std::string early;
  };
  virtual Result<Upgraded> Upgrade(const Headers& headers) = 0;
};

using HttpHandler = std::function<void(const HttpServerRequest&, ResponseWriter&)>;

struct HttpServerOptions {
  std::string host = "127.0.0.1";
  int port = 0;                           // 0 = let the kernel pick
  size_t max_head_bytes = 64 * 1024;      // larger heads get 431
  size_t max_body_bytes = 64 << 20;       // larger bodies get 413
  double head_timeout_s = 30;             // a request head must arrive within this
  double idle_timeout_s = 60;             // silence allowed while reading a body / between requests
  int max_connections = 256;              // beyond this, new connections get 503
  // Says which requests the handler answers without blocking (from memory,
  // no waiting, no file or process I/O): those run on the event loop, the
  // rest on worker threads. Called on the loop with the whole request.
  // Unset: every request goes to a worker.
  std::function<bool(const HttpServerRequest&)> answer_inline;
};

class HttpServer {
 public:
  explicit HttpServer(HttpHandler handler, HttpServerOptions options = {});
  ~HttpServer();  // Stop()
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds, listens and starts the event loop.
  Status Start();
  // The bound port (after Start).
  int port() const { return port_; }
  // Stops accepting, shuts down open connections, joins all threads.
  // Handlers still running see client_gone() and failing writes.
  void Stop();

 private:
  class Loop;
  HttpHandler handler_;
  HttpServerOptions options_;
  int port_ = 0;
  std::unique_ptr<Loop> loop_;
};

}  // namespace sepp::net
