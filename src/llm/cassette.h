// The cassette: what `sepp --record FILE` writes and `sepp --replay FILE`
// reads. JSON Lines, one document a line, appended as exchanges complete (a
// run that dies leaves every finished exchange readable):
//
//   {"sepp_cassette":1,"provider":"anthropic","api":"anthropic"}
//   {"agent":0,"call":0,"fingerprint":"9f86d081884c7d65","request":{...},
//    "events":[{"text":".."},{"thinking":".."},{"tool_call":{block}},
//              {"retry":{"why":"..","attempt":1,"delay_s":1.5}}],
//    "result":{"message":{message}} | {"error":{"message":"..","kind":".."}}}
//
// request is the provider-neutral Request (RequestToJson), not an API's wire
// body: no header, no key, no URL ever reaches it, and one cassette format
// serves all three APIs. Strings are passed through the secret redactor and
// the volatile values (working directory, date) are replaced by placeholders
// before anything is written. events is the response stream as the agent's
// sink saw it (adjacent text or thinking pieces joined, so a secret split
// across stream chunks is still redacted whole). agent numbers the Provider
// instances (main agent, sub-agents) in the order of their first call; call
// counts that instance's requests. fingerprint is the first 16 hex digits of
// SHA-256 over the canonical request text; it is optional, and when present
// it must match (so a damaged request is caught; delete it after a hand edit).
//
// The file is outside input: ParseCassette checks every type and bound and
// says which line is wrong; it never throws.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/json.h"
#include "base/result.h"
#include "llm/message.h"
#include "llm/provider.h"

namespace sepp::llm {

inline constexpr int kCassetteVersion = 1;
// Bigger files are refused: a cassette is a test fixture, not an archive.
inline constexpr size_t kMaxCassetteBytes = 256u << 20;
// JSON nested deeper than this is refused (every walk over it is recursive).
inline constexpr int kMaxCassetteDepth = 128;

// One piece of a response stream, as StreamSink received it.
struct StreamEvent {
  enum class Kind { kText, kThinking, kToolCall, kRetry };
  Kind kind = Kind::kText;
  std::string text;    // kText, kThinking; kRetry: why
  ContentBlock call;   // kToolCall
  int attempt = 0;     // kRetry
  double delay_s = 0;  // kRetry

  static StreamEvent Piece(Kind kind, std::string text);  // kText or kThinking
  static StreamEvent ToolCall(ContentBlock call);
  static StreamEvent Retry(std::string why, int attempt, double delay_s);
};

struct Exchange {
  int line = 0;  // where ParseCassette found it (1-based), for messages
  int agent = 0;
  int call = 0;
  Json request;                  // RequestToJson, placeholders in (see RequestForm)
  std::string request_text;      // RequestForm::kText: DumpJson(request) instead of the tree
  std::vector<StreamEvent> events;
  std::optional<Message> message;  // set: Complete returned this
  Error error;                   // otherwise: Complete failed with this
};

struct Cassette {
  std::string provider;  // ProviderConfig::name
  ApiKind api = ApiKind::kAnthropic;
  std::vector<Exchange> exchanges;  // in file order (order of completion)
};

// The request as the cassette stores and compares it. Keys sort, so the
// text of two equal requests is equal byte for byte.
Json RequestToJson(const Request& request);
// 16 hex digits of SHA-256 over DumpJson(request) (= FingerprintText of it).
std::string Fingerprint(const Json& request);
std::string FingerprintText(std::string_view request_text);

std::string CassetteHeaderLine(const std::string& provider, ApiKind api);  // with '\n'
std::string ExchangeLine(const Exchange& exchange);                       // with '\n'

// What ParseCassette keeps of each recorded request (every one is checked
// against its fingerprint whatever is kept): the JSON tree (`sepp replay
// show`, tests); only its canonical text in request_text (a strict replay
// compares texts, and the trees of every recorded conversation take ~10x
// the file's size in memory); or only its first message, as
// {"messages":[first]} (all a lenient replay ever looks at).
enum class RequestForm { kJson, kText, kFirstMessage };

// name is used in error messages ("FILE line 3: ...").
Result<Cassette> ParseCassette(std::string_view text, const std::string& name,
                               RequestForm form = RequestForm::kJson);
Result<Cassette> LoadCassette(const std::string& path, RequestForm form = RequestForm::kJson);

const char* ApiName(ApiKind api);  // "anthropic", "openai_chat", "openai_responses"
bool ApiFromName(std::string_view name, ApiKind* out);

// Calls the sink as the recorded stream did.
void PlayEvents(const std::vector<StreamEvent>& events, const StreamSink& sink);

}  // namespace sepp::llm
