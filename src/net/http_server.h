// A small threaded HTTP/1.1 server core: binds 127.0.0.1 (or a given
// address), one thread per connection, and hands each request to a handler
// that answers whole or streams the response in pieces. Used by the fake
// LLM provider in tests and by `sepp serve`.
//
// Thread-safety: the handler runs on the connection's thread, possibly many
// at once; it must synchronise its own shared state.
#pragma once
#include <atomic>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

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
  // True once a write failed or the server is stopping.
  virtual bool client_gone() const = 0;
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
};

class HttpServer {
 public:
  explicit HttpServer(HttpHandler handler, HttpServerOptions options = {});
  ~HttpServer();  // Stop()
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds, listens and starts the accept thread.
  Status Start();
  // The bound port (after Start).
  int port() const { return port_; }
  // Stops accepting, shuts down open connections, joins all threads.
  // Handlers still running see client_gone() and failing writes.
  void Stop();

 private:
  struct Connection;
  void AcceptLoop();
  void Serve(Connection* conn);
  void ReapFinished();

  HttpHandler handler_;
  HttpServerOptions options_;
  UniqueFd listen_fd_;
  UniqueFd stop_fd_;  // eventfd: readable once Stop() begins
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread accept_thread_;
  std::mutex mu_;
  std::list<std::unique_ptr<Connection>> connections_;
};

}  // namespace sepp::net
