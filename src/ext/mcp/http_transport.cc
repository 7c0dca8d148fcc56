#include "ext/mcp/http_transport.h"

#include <algorithm>
#include <chrono>

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

void HttpTransport::Deliver(std::string_view body, const std::string& content_type, Stream* stream) {
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
  auto one = [&](Json m) {
    if (stream) {
      stream->delivered = true;
      if (stream->awaited && m.contains("id") && m["id"] == *stream->awaited &&
          (m.contains("result") || m.contains("error")))
        stream->answered = true;
    }
    on_message_(std::move(m));
  };
  // A JSON-RPC batch (2025-03-26) or one message.
  if (j->is_array()) {
    for (auto& m : *j)
      if (m.is_object()) one(std::move(m));
  } else if (j->is_object()) {
    one(std::move(*j));
  }
}

namespace {
constexpr int kMaxResumes = 5;
constexpr long kDefaultRetryMs = 1000, kMaxRetryMs = 30000;
}  // namespace

bool HttpTransport::Pause(long ms) {
  std::unique_lock lock(mu_);
  return !wake_.wait_for(lock, std::chrono::milliseconds(ms), [&] { return closed_.load(); });
}

int HttpTransport::Get(Stream* stream, bool* sse) {
  net::HttpRequest req;
  req.method = "GET";
  req.url = url_;
  req.headers = headers_;
  req.headers.emplace_back("Accept", "text/event-stream");
  {
    std::lock_guard lock(mu_);
    if (!session_id_.empty()) req.headers.emplace_back("Mcp-Session-Id", session_id_);
    if (!protocol_version_.empty()) req.headers.emplace_back("MCP-Protocol-Version", protocol_version_);
  }
  if (!stream->last_event_id.empty()) req.headers.emplace_back("Last-Event-ID", stream->last_event_id);
  // The token as it is: a GET never starts a sign-in (its 401 ends it).
  if (oauth_)
    if (std::string a = oauth_->Authorization(&cancel_); !a.empty()) req.headers.emplace_back("Authorization", a);
  req.read_timeout_s = 24 * 3600;
  int status = 0;
  *sse = false;
  net::SseParser parser([&](const net::SseEvent& e) {
    if (!e.id.empty()) stream->last_event_id = e.id;
    if (e.event == "message") Deliver(e.data, "event", stream);
  });
  net::HttpHandlers h;
  h.on_head = [&](const net::HttpResponseHead& head) {
    status = head.status;
    *sse = status == 200 && head.Header("content-type").find("text/event-stream") != std::string::npos;
    MarkGetAnswered();
  };
  h.on_body = [&](std::string_view chunk) {
    if (!*sse) return true;  // an error page: read and dropped
    parser.Feed(chunk);
    if (parser.too_big()) {
      Fail("the server sent an event larger than 16 MiB");
      return false;
    }
    // A resumed answer is all this GET was for; the GET stream goes on.
    return !closed_ && !(stream->awaited && stream->answered);
  };
  Status st = net::HttpSend(req, h, &cancel_);
  if (*sse) parser.Finish();
  if (parser.retry_ms() >= 0) stream->retry_ms = parser.retry_ms();
  if (closed_ || !st.ok()) return 0;
  return status;
}

void HttpTransport::Resume(const Json& request_id, Stream stream) {
  stream.awaited = &request_id;
  std::string why = "the server ended the answer's event stream without it";
  for (int attempt = 0; attempt < kMaxResumes; ++attempt) {
    if (!Pause(stream.retry_ms >= 0 ? std::min(stream.retry_ms, kMaxRetryMs) : kDefaultRetryMs)) return;
    bool sse = false;
    int status = Get(&stream, &sse);
    if (closed_ || stream.answered) return;
    if (!sse) {
      why += status == 0 ? ", and cannot be reached to resume it"
                         : ", and refused to resume it (HTTP " + std::to_string(status) + " to GET)";
      break;
    }
  }
  if (!stream.answered && !closed_)
    on_message_({{"jsonrpc", "2.0"}, {"id", request_id}, {"error", {{"code", -32000}, {"message", why}}}});
}

void HttpTransport::Listen() {
  Stream stream;
  int idle = 0;  // streams in a row that ended without a message
  long backoff = kDefaultRetryMs;
  while (!closed_) {
    stream.delivered = false;
    bool sse = false;
    int status = Get(&stream, &sse);
    if (closed_) return;
    if (!sse && status != 0) return;  // the server offers no GET stream
    if (stream.delivered) {
      idle = 0;
      backoff = kDefaultRetryMs;
    } else if (++idle >= kMaxResumes) {
      return;
    } else if (idle > 1) {
      backoff = std::min(backoff * 2, kMaxRetryMs);
    }
    long wait = stream.retry_ms >= 0 && idle <= 1 ? std::min(stream.retry_ms, kMaxRetryMs) : backoff;
    if (!Pause(wait)) return;
  }
}

void HttpTransport::Fail(const std::string& reason) {
  if (closed_.exchange(true)) return;
  { std::lock_guard lock(mu_); }  // a Pause between its check and its wait gets the wake-up
  wake_.notify_all();
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
    const bool is_request = message.contains("id") && message.contains("method");
    Stream stream;
    stream.awaited = is_request ? &message["id"] : nullptr;
    net::SseParser sse([&](const net::SseEvent& e) {
      if (!e.id.empty()) stream.last_event_id = e.id;
      if (e.event == "message") Deliver(e.data, "event", &stream);
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
      stream.retry_ms = sse.retry_ms();
      // Ended before the answer, with an event id to resume from (SEP-1699).
      if (is_request && !stream.answered && !stream.last_event_id.empty() && !closed_)
        Resume(message["id"], std::move(stream));
    } else if (content_type.find("application/json") != std::string::npos) {
      Deliver(body, "JSON");
    }
    return;
  }
}

void HttpTransport::Close() {
  bool was_closed;
  std::list<Worker> workers;
  std::thread listener;
  {
    std::lock_guard lock(mu_);
    was_closed = closed_.exchange(true);
    workers.swap(workers_);
    listener.swap(listener_);
  }
  wake_.notify_all();
  cancel_.Cancel();
  for (auto& w : workers)
    if (w.thread.joinable()) w.thread.join();
  if (listener.joinable()) listener.join();
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

void HttpTransport::MarkGetAnswered() {
  {
    std::lock_guard lock(mu_);
    if (get_answered_) return;
    get_answered_ = true;
  }
  wake_.notify_all();
}

void HttpTransport::SetProtocolVersion(const std::string& version) {
  std::unique_lock lock(mu_);
  protocol_version_ = version;
  // Initialize has been answered: the session exists, the GET stream may open.
  if (listener_.joinable() || closed_) return;
  listener_ = std::thread([this] {
    Listen();
    MarkGetAnswered();  // it ended without an answer (refused, unreachable)
  });
  // The stream is open (or refused) before the next request goes out: else
  // a server may take the GET that arrives after a POST's stream closed for
  // that stream's resumption (the conformance suite's sse-retry did, about
  // one run in three under load). Bounded: a server slow to answer a GET
  // delays nothing else for long.
  wake_.wait_for(lock, std::chrono::seconds(2), [&] { return get_answered_ || closed_.load(); });
}

std::string HttpTransport::Diagnostics() const {
  std::lock_guard lock(mu_);
  return last_error_;
}

}  // namespace sepp::ext::mcp
