// FakeProvider: a scripted HTTP server that speaks the Anthropic Messages,
// OpenAI Chat Completions and OpenAI Responses APIs (streaming or not, as
// the request asks), for tests that must never reach a real provider.
// The script format and the wire formats are in docs/fake-provider.md and
// at the top of fake_script.cc / render_*.cc.
//
//   sepp::fake::FakeProvider fp(R"({"responses":[{"text":"hi"}]})"_json);
//   ASSERT_TRUE(fp.Start().ok());
//   // ANTHROPIC_BASE_URL = fp.base_url()        (client appends /v1/messages)
//   // OPENAI_BASE_URL    = fp.base_url() + "/v1" (client appends /chat/completions)
//   ... run the code under test ...
//   EXPECT_EQ(fp.requests().size(), 1u);
//
// Thread-safe: requests are served on the server's threads.
#pragma once
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/json.h"
#include "base/result.h"
#include "net/http_server.h"

namespace sepp::fake {

// Header values that are replaced in recordings (presence stays visible).
inline constexpr const char* kRedacted = "[REDACTED]";

struct RecordedRequest {
  std::string method;
  std::string path;          // without the query
  std::string api;           // "anthropic", "openai_chat", "openai_responses", "unknown"
  Json headers;              // {lower-case name: value}; credentials -> kRedacted
  Json body;                 // the parsed JSON body, or the raw text if not JSON
  int response_index = -1;   // index into the script, -1 when exhausted
  Json ToJson() const;
};

class FakeProvider {
 public:
  // script: {"responses": [...]}; anything else counts as an empty script.
  explicit FakeProvider(Json script = Json::object());
  ~FakeProvider();
  FakeProvider(const FakeProvider&) = delete;
  FakeProvider& operator=(const FakeProvider&) = delete;

  // Listens on 127.0.0.1:port (0 = any free port).
  Status Start(int port = 0);
  void Stop();
  int port() const;
  // "http://127.0.0.1:PORT" (no /v1).
  std::string base_url() const;

  // Replaces the script and rewinds it (recorded requests stay).
  void SetScript(Json script);
  // Forgets recorded requests and rewinds the script.
  void Reset();
  std::vector<RecordedRequest> requests() const;
  Json RequestsJson() const;
  // How many script responses have been used.
  int responses_used() const;

 private:
  void Handle(const net::HttpServerRequest& req, net::ResponseWriter& w);

  mutable std::mutex mu_;
  Json responses_ = Json::array();
  size_t next_ = 0;
  int served_ = 0;
  std::vector<RecordedRequest> requests_;
  std::unique_ptr<net::HttpServer> server_;
};

}  // namespace sepp::fake
