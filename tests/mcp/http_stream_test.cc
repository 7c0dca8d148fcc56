// Streamable HTTP's GET stream and resumption (ext/mcp/http_transport.h)
// against an MCP server in this process (loopback only): server-initiated
// messages on the GET stream (a notification, a request sepp answers by
// POST), the stream opened again with Last-Event-ID, and a POST's event
// stream that ends before its answer resumed by a GET with Last-Event-ID.
// Next to it, a server that refuses the resumption: the call fails at once
// saying why, it does not wait for its timeout.
#include <gtest/gtest.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>

#include "base/json.h"
#include "ext/mcp/client.h"
#include "ext/mcp/http_transport.h"
#include "net/http_server.h"
#include "net/sse.h"

namespace sepp::ext::mcp {
namespace {

struct StreamServer {
  std::mutex mu;
  std::condition_variable cv;
  bool refuse_resume = false;
  std::vector<std::string> get_last_ids;  // Last-Event-ID of every GET ("" none)
  Json ping_answer;                       // what sepp POSTed for the server's ping
  Json call_id;                           // of the tools/call whose stream ended early
  net::HttpServer server{[this](const net::HttpServerRequest& r, net::ResponseWriter& w) { Handle(r, w); }};
  std::string url() { return "http://127.0.0.1:" + std::to_string(server.port()) + "/mcp"; }

  static std::string Event(const std::string& id, const Json& data, long retry_ms = -1) {
    std::string out = "id: " + id + "\n";
    if (retry_ms >= 0) out += "retry: " + std::to_string(retry_ms) + "\n";
    return out + "data: " + (data.is_null() ? "" : DumpJson(data)) + "\n\n";
  }
  void Handle(const net::HttpServerRequest& r, net::ResponseWriter& w) {
    const net::Headers sse = {{"Content-Type", "text/event-stream"}, {"Mcp-Session-Id", "s1"}};
    if (r.method == "GET") {
      std::string last = r.Header("last-event-id");
      bool refuse;
      {
        std::lock_guard lock(mu);
        get_last_ids.push_back(last);
        refuse = refuse_resume;
      }
      cv.notify_all();
      if (last.empty()) {  // the GET stream: a notification and a request, then it ends
        w.Begin(200, sse);
        w.Write(Event("g1", nullptr, 10));
        w.Write(Event("g2", {{"jsonrpc", "2.0"}, {"method", "notifications/tools/list_changed"}}));
        w.Write(Event("g3", {{"jsonrpc", "2.0"}, {"id", "srv-1"}, {"method", "ping"}}));
        return;
      }
      if (last == "c1" && !refuse) {  // resuming the call's stream: its answer
        Json id;
        {
          std::lock_guard lock(mu);
          id = call_id;
        }
        w.Begin(200, sse);
        w.Write(Event("c2", {{"jsonrpc", "2.0"}, {"id", id}, {"result", {{"content", Json::array()}, {"resumed", true}}}}));
        return;
      }
      w.Send(last == "c1" ? 404 : 405, {}, "");
      return;
    }
    Json m = Json::parse(r.body, nullptr, false);
    if (!m.is_object()) return (void)w.Send(400, {}, "");
    if (m.contains("result") && m.value("id", "") == "srv-1") {
      {
        std::lock_guard lock(mu);
        ping_answer = m;
      }
      cv.notify_all();
      return (void)w.Send(202, {}, "");
    }
    std::string method = m.value("method", "");
    if (!m.contains("id")) return (void)w.Send(202, {}, "");
    if (method == "initialize")
      return (void)w.Send(200, {{"Content-Type", "application/json"}, {"Mcp-Session-Id", "s1"}},
                          DumpJson({{"jsonrpc", "2.0"}, {"id", m["id"]},
                                    {"result", {{"protocolVersion", "2025-11-25"},
                                                {"capabilities", {{"tools", {{"listChanged", true}}}}},
                                                {"serverInfo", {{"name", "streams"}, {"version", "1"}}}}}}));
    if (method == "tools/call") {  // a priming event, then the stream ends without the answer
      {
        std::lock_guard lock(mu);
        call_id = m["id"];
      }
      w.Begin(200, sse);
      w.Write(Event("c1", nullptr, 10));
      return;
    }
    w.Send(200, {{"Content-Type", "application/json"}},
           DumpJson({{"jsonrpc", "2.0"}, {"id", m["id"]}, {"result", Json::object()}}));
  }
  template <class F>
  bool WaitFor(F done) {  // bounded: a failure must not hang the suite
    std::unique_lock lock(mu);
    return cv.wait_for(lock, std::chrono::seconds(20), done);
  }
};

TEST(HttpStreams, TheGetStreamDeliversServerMessagesAndACallResumesWithLastEventId) {
  StreamServer fx;
  ASSERT_TRUE(fx.server.Start().ok());
  std::mutex mu;
  std::condition_variable cv;
  bool changed = false;
  ClientHooks hooks;
  hooks.on_list_changed = [&](const std::string& what) {
    std::lock_guard lock(mu);
    changed |= what == "tools";
    cv.notify_all();
  };
  McpClient client(std::make_unique<HttpTransport>(fx.url(), net::Headers{}), std::move(hooks));
  auto info = client.Initialize(10);
  ASSERT_TRUE(info.ok()) << info.error().message;
  {
    std::unique_lock lock(mu);
    EXPECT_TRUE(cv.wait_for(lock, std::chrono::seconds(20), [&] { return changed; }))
        << "the GET stream's notification reached the client";
  }
  EXPECT_TRUE(fx.WaitFor([&] { return !fx.ping_answer.is_null(); })) << "the server's ping was answered";
  EXPECT_EQ(fx.ping_answer.value("result", Json()), Json::object());
  // The stream ended: opened again from its last event id (and the 405 ends it).
  EXPECT_TRUE(fx.WaitFor([&] {
    return std::find(fx.get_last_ids.begin(), fx.get_last_ids.end(), "g3") != fx.get_last_ids.end();
  }));

  RequestOptions opts;
  opts.timeout_s = 20;
  auto r = client.Request("tools/call", {{"name", "t"}, {"arguments", Json::object()}}, opts);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->value("resumed", false), true);
}

TEST(HttpStreams, AResumptionTheServerRefusesFailsTheCallSayingWhy) {
  StreamServer fx;
  fx.refuse_resume = true;
  ASSERT_TRUE(fx.server.Start().ok());
  McpClient client(std::make_unique<HttpTransport>(fx.url(), net::Headers{}), ClientHooks{});
  ASSERT_TRUE(client.Initialize(10).ok());
  RequestOptions opts;
  opts.timeout_s = 600;  // the answer must come from the refusal, not from this
  auto r = client.Request("tools/call", {{"name", "t"}, {"arguments", Json::object()}}, opts);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("refused to resume it (HTTP 404 to GET)"), std::string::npos)
      << r.error().message;
}

}  // namespace
}  // namespace sepp::ext::mcp
