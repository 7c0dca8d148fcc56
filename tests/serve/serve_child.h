// `sepp serve` as a child process for tests, and small HTTP helpers to talk
// to it: whole requests (HttpFetch), raw bytes (for heads a client library
// would not send: foreign Host, Origin), and an SSE reader.
#pragma once
#include <sys/types.h>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/json.h"
#include "net/http_client.h"
#include "net/sse.h"

namespace sepp::servetest {

class ServeChild {
 public:
  // Runs SEPP_BINARY_DIR/sepp serve --port 0 <args> in cwd with exactly env
  // (plus PATH=/usr/bin:/bin unless env has a PATH), and reads its start lines (the port, a generated token).
  ServeChild(const std::string& cwd, const std::map<std::string, std::string>& env,
             const std::vector<std::string>& args);
  ~ServeChild();  // kills it if still running
  int port() const { return port_; }
  const std::string& token() const { return token_; }  // generated one, if any
  std::string url(const std::string& path) const;
  // SIGTERM, then the exit status (-1 if it did not exit within timeout_s).
  int Stop(double timeout_s = 30);
  std::string stdout_text() const { return out_text_; }
  std::string stderr_text() const;

 private:
  pid_t pid_ = -1;
  int port_ = 0;
  std::string token_;
  std::string out_text_;
  std::string err_path_;
};

// Runs `sepp serve args` to its end; the exit status and its stderr.
int RunServeToEnd(const std::vector<std::string>& args, std::string* err);
// Runs `sepp <args>` (e.g. "api", ...) with env to its end; exit status,
// stdout and stderr.
int RunSepp(const std::vector<std::string>& args, const std::map<std::string, std::string>& env,
            std::string* out, std::string* err);

net::HttpResponse Fetch(const std::string& method, const std::string& url,
                        const net::Headers& headers = {}, const std::string& body = "",
                        double timeout_s = 60);
// POSTs one JSON-RPC message to /v1/acp/{id}[?agent=sepp].
net::HttpResponse PostAcp(const ServeChild& s, const std::string& id, const Json& msg,
                          bool with_agent = false, const std::string& token = "");
// Sends bytes on a new connection; the whole answer (until the server closes
// or the answer's Content-Length is in).
std::string RawRequest(int port, const std::string& bytes);
int StatusOf(const std::string& raw_response);

// Reads /v1/acp/{id} as SSE until done(events) is true or timeout_s;
// frames holds each event (id and data), comments counts ':' lines.
struct SseRead {
  int status = 0;
  std::vector<net::SseEvent> events;
  int comments = 0;
  std::string body;  // a non-200 answer's body
};
SseRead ReadSse(const std::string& url, const net::Headers& headers,
                const std::function<bool(const SseRead&)>& done, double timeout_s = 60);

}  // namespace sepp::servetest
