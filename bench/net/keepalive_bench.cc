// What keeping provider connections alive saves: sequential HTTPS requests
// to a local TLS server (certificates made at start, as in tests/net) whose
// answers either let the client keep the connection or say
// "Connection: close", so that every request pays a TCP connect and a TLS
// handshake. On loopback this is the handshake's CPU cost alone; against a
// real provider each new connection also costs two to three round trips.
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <string>

#include "base/file.h"
#include "net/http_client.h"
#include "net/test_tls.h"

namespace {

using namespace sepp::net;

std::string Answer(bool keep) {
  std::string body = "{\"ok\":true}";
  return "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(body.size()) + "\r\n" +
         (keep ? "" : "Connection: close\r\n") + "\r\n" + body;
}

void Fetch(benchmark::State& state, bool keep) {
  static testing::KeyAndCert ca = testing::MakeCert("bench CA", "", true, nullptr);
  static testing::KeyAndCert leaf = testing::MakeCert("localhost", "DNS:localhost", false, &ca);
  static bool ca_written = [] {
    std::string path = "/tmp/sepp-bench-ca-" + std::to_string(getpid()) + ".pem";
    (void)sepp::WriteFileAtomic(path, ca.cert_pem);
    setenv("SSL_CERT_FILE", path.c_str(), 1);
    return true;
  }();
  (void)ca_written;
  testing::TlsServer server(leaf, [keep](const std::string&) { return Answer(keep); });
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
BENCHMARK(BM_HttpsKeptAlive)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_HttpsNewConnectionEachTime)->UseRealTime()->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
