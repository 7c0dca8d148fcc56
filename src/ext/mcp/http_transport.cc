#include "ext/mcp/http_transport.h"

#include "base/secrets.h"
#include "net/sse.h"

namespace sepp::ext::mcp {

HttpTransport::HttpTransport(std::string url, net::Headers headers, std::shared_ptr<OAuthClient> oauth)
    : url_(std::move(url)), headers_(std::move(headers)), oauth_(std::move(oauth)) {}

HttpTransport::~HttpTransport() { Close(); }

void HttpTransport::Start(OnMessage on_message, OnClosed on_closed) {
  on_message_ = std::move(on_message);
  on_closed_ = std::move(on_closed);
}

net::Headers HttpTransport::RequestHeaders() const {
  net::Headers h = headers_;
  h.emplace_back("Content-Type", "application/json");
  h.emplace_back("Accept", "application/json, text/event-stream");
  std::lock_guard lock(mu_);
  if (!session_id_.empty()) h.emplace_back("Mcp-Session-Id", session_id_);
  if (!protocol_version_.empty()) h.emplace_back("MCP-Protocol-Version", protocol_version_);
  return h;
}

Status HttpTransport::Send(const Json& message) {
  if (closed_) return Error::Make("the HTTP connection to the MCP server is closed", "eof");
  std::lock_guard lock(mu_);
  // Join what has finished, so a long session does not pile up threads.
  workers_.remove_if([](Worker& w) {
    if (!w.done) return false;
    w.thread.join();
    return true;
  });
  Worker& w = workers_.emplace_back();
  w.thread = std::thread([this, message, &w] {
    Post(message);
    w.done = true;
  });
  return Ok();
}

void HttpTransport::Deliver(std::string_view body, const std::string& content_type) {
  if (body.find_first_not_of(" \r\n\t") == std::string_view::npos) return;
  if (body.size() > kMaxMessageBytes) {
    Fail("the server sent a message larger than 16 MiB");
    return;
  }
  auto j = ParseJson(body);
  if (!j.ok()) {
    std::lock_guard lock(mu_);
    last_error_ = "a " + content_type + " body that is not JSON: " + j.error().message;
    return;
  }
  // A JSON-RPC batch (2025-03-26) or one message.
  if (j->is_array()) {
    for (auto& m : *j)
      if (m.is_object()) on_message_(std::move(m));
  } else if (j->is_object()) {
    on_message_(std::move(*j));
  }
}

void HttpTransport::Fail(const std::string& reason) {
  if (closed_.exchange(true)) return;
  cancel_.Cancel();
  if (on_closed_) on_closed_(reason);
}

void HttpTransport::Post(Json message) {
  const bool is_initialize = message.value("method", "") == "initialize";
  const std::string body_text = DumpJson(message);
  // A few rounds: a 401 (sign in, or refresh), a 403 insufficient_scope
  // (step up); the OAuth client bounds how often it asks the user.
  for (int round = 0;; ++round) {
    net::HttpRequest req;
    req.method = "POST";
    req.url = url_;
    req.headers = RequestHeaders();
    std::string authorization = oauth_ ? oauth_->Authorization(&cancel_) : "";
    if (!authorization.empty()) req.headers.emplace_back("Authorization", authorization);
    req.body = body_text;
    req.read_timeout_s = 24 * 3600;  // the client's own timeouts decide
    std::string content_type, body, challenge;
    int status = 0;
    net::SseParser sse([&](const net::SseEvent& e) {
      if (e.event == "message") Deliver(e.data, "event");
    });
    net::HttpHandlers h;
    h.on_head = [&](const net::HttpResponseHead& head) {
      status = head.status;
      content_type = head.Header("content-type");
      challenge = head.Header("www-authenticate");
      if (is_initialize && status / 100 == 2) {
        std::lock_guard lock(mu_);
        session_id_ = head.Header("mcp-session-id");
      }
    };
    h.on_body = [&](std::string_view chunk) {
      if (content_type.find("text/event-stream") != std::string::npos) {
        sse.Feed(chunk);
        if (sse.too_big()) {
          Fail("the server sent an event larger than 16 MiB");
          return false;
        }
      } else {
        if (body.size() + chunk.size() > kMaxMessageBytes) {
          Fail("the server sent a message larger than 16 MiB");
          return false;
        }
        body.append(chunk);
      }
      return !closed_;
    };
    Status st = net::HttpSend(req, h, &cancel_);
    if (closed_) return;
    if (!st.ok()) {
      Fail("the MCP server at " + url_ + " cannot be reached: " + st.error().message);
      return;
    }
    if (status == 404 && !is_initialize) {
      bool had_session;
      {
        std::lock_guard lock(mu_);
        had_session = !session_id_.empty();
      }
      if (had_session) {
        Fail("the MCP server ended the session (HTTP 404 for its Mcp-Session-Id); sepp "
             "connects again at the next start");
        return;
      }
    }
    std::string why;
    if ((status == 401 || status == 403) && oauth_ && round < 4) {
      Status auth = oauth_->OnChallenge(status, challenge, authorization, &cancel_);
      if (closed_) return;
      if (auth.ok()) continue;
      why = auth.error().message;
    }
    if (status >= 400) {
      std::string text = Redact(body.substr(0, 500));
      {
        std::lock_guard lock(mu_);
        last_error_ = "HTTP " + std::to_string(status) + (text.empty() ? "" : ": " + text);
      }
      if (why.empty())
        why = status == 401 || status == 403
                  ? "the server refused the request (HTTP " + std::to_string(status) +
                        "): it needs authorization (sepp signs in with OAuth when no Authorization "
                        "header is configured for the server)"
                  : "HTTP " + std::to_string(status) + (text.empty() ? "" : ": " + text);
      // A request that failed at the HTTP level gets a JSON-RPC error, so
      // its caller learns why now rather than at its timeout.
      if (message.contains("id") && message.contains("method"))
        on_message_({{"jsonrpc", "2.0"}, {"id", message["id"]}, {"error", {{"code", -32000}, {"message", why}}}});
      return;
    }
    if (content_type.find("text/event-stream") != std::string::npos) {
      sse.Finish();
    } else if (content_type.find("application/json") != std::string::npos) {
      Deliver(body, "JSON");
    }
    return;
  }
}

void HttpTransport::Close() {
  bool was_closed = closed_.exchange(true);
  cancel_.Cancel();
  std::list<Worker> workers;
  {
    std::lock_guard lock(mu_);
    workers.swap(workers_);
  }
  for (auto& w : workers)
    if (w.thread.joinable()) w.thread.join();
  std::string session;
  {
    std::lock_guard lock(mu_);
    session = session_id_;
    session_id_.clear();
  }
  if (!session.empty()) {
    // The spec: a client that is done with a session SHOULD say so.
    net::HttpRequest req;
    req.method = "DELETE";
    req.url = url_;
    req.headers = headers_;
    req.headers.emplace_back("Mcp-Session-Id", session);
    if (oauth_)
      if (std::string a = oauth_->Authorization(nullptr); !a.empty()) req.headers.emplace_back("Authorization", a);
    req.connect_timeout_s = 2;
    req.read_timeout_s = 2;
    (void)net::HttpFetch(req, nullptr, 65536);
  }
  if (!was_closed && on_closed_) on_closed_("closed by sepp");
}

void HttpTransport::SetProtocolVersion(const std::string& version) {
  std::lock_guard lock(mu_);
  protocol_version_ = version;
}

std::string HttpTransport::Diagnostics() const {
  std::lock_guard lock(mu_);
  return last_error_;
}

}  // namespace sepp::ext::mcp
