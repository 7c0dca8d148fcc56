// What keeping provider connections alive saves: sequential HTTPS requests
// to a local TLS server (certificates made at start, as in tests/net) whose
// answers either let the client keep the connection or say
// "Connection: close", so that every request pays a TCP connect and a TLS
// handshake. On loopback this is the handshake's CPU cost alone; against a
// real provider each new connection also costs two to three round trips.
//
// The streamed pair runs whole provider turns (llm::HttpProvider, OpenAI
// chat, streaming, the default path) against a chunked event stream: the
// decoder stops at "[DONE]", a few bytes before the body's end, and the
// client reads those so the connection is kept. The "close" variant is what
// every streamed turn cost before that.
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <string>

#include "base/file.h"
#include "llm/http_provider.h"
#include "net/http_client.h"
#include "net/test_tls.h"

namespace {

using namespace sepp::net;

std::string Answer(bool keep) {
  std::string body = "{\"ok\":true}";
  return "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(body.size()) + "\r\n" +
         (keep ? "" : "Connection: close\r\n") + "\r\n" + body;
}

std::string StreamedAnswer(bool keep) {
  std::string events;
  for (const char* piece : {"Hel", "lo ", "there"})
    events += std::string("data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
                          "\"delta\":{\"content\":\"") + piece + "\"},\"finish_reason\":null}]}\n\n";
  events += "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
            "\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n";
  events += "data: [DONE]\n\n";
  char size[16];
  std::snprintf(size, sizeof size, "%zx", events.size());
  return std::string("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n") +
         (keep ? "" : "Connection: close\r\n") + "\r\n" + size + "\r\n" + events + "\r\n0\r\n\r\n";
}

const testing::KeyAndCert& Leaf() {
  static testing::KeyAndCert ca = testing::MakeCert("bench CA", "", true, nullptr);
  static testing::KeyAndCert leaf = testing::MakeCert("localhost", "DNS:localhost", false, &ca);
  static bool ca_written = [] {
    std::string path = "/tmp/sepp-bench-ca-" + std::to_string(getpid()) + ".pem";
    (void)sepp::WriteFileAtomic(path, ca.cert_pem);
    setenv("SSL_CERT_FILE", path.c_str(), 1);
    return true;
  }();
  (void)ca_written;
  return leaf;
}

void StreamedTurn(benchmark::State& state, bool keep) {
  testing::TlsServer server(Leaf(), [keep](const std::string&) { return StreamedAnswer(keep); });
  sepp::llm::ProviderConfig c;
  c.api = sepp::llm::ApiKind::kOpenAiChat;
  c.name = "bench";
  c.api_key = "bench-key";
  c.base_url = "https://localhost:" + std::to_string(server.port()) + "/v1";
  c.max_retries = 0;
  auto provider = sepp::llm::MakeProvider(c);
  sepp::llm::Request r;
  r.model = "gpt-4o";
  r.stream = true;
  r.messages.push_back(sepp::llm::Message::User("hi"));
  for (auto _ : state) {
    auto m = provider->Complete(r, {}, nullptr);
    if (!m.ok() || m->Text() != "Hello there") {
      state.SkipWithError(m.ok() ? "unexpected answer" : m.error().message.c_str());
      break;
    }
  }
}

void Fetch(benchmark::State& state, bool keep) {
  testing::TlsServer server(Leaf(), [keep](const std::string&) { return Answer(keep); });
  HttpRequest req;
  req.url = "https://localhost:" + std::to_string(server.port()) + "/v1/messages";
  req.body = "{}";
  for (auto _ : state) {
    auto r = HttpFetch(req, nullptr);
    if (!r.ok()) {
      state.SkipWithError(r.error().message.c_str());
      break;
    }
  }
}

void BM_HttpsKeptAlive(benchmark::State& state) { Fetch(state, true); }
void BM_HttpsNewConnectionEachTime(benchmark::State& state) { Fetch(state, false); }
void BM_StreamedTurnKeptAlive(benchmark::State& state) { StreamedTurn(state, true); }
void BM_StreamedTurnNewConnectionEachTime(benchmark::State& state) { StreamedTurn(state, false); }
BENCHMARK(BM_StreamedTurnKeptAlive)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_StreamedTurnNewConnectionEachTime)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_HttpsKeptAlive)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_HttpsNewConnectionEachTime)->UseRealTime()->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
