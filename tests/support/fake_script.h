// The fake provider's script: one response object per incoming request,
// normalised into a FakeTurn that every API renderer understands.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "base/json.h"
#include "net/http_client.h"  // Headers

namespace sepp::fake {

struct FakeToolCall {
  std::string id;         // "" = generated
  std::string name;
  std::string arguments;  // JSON text as sent on the wire (may be invalid on purpose)
};

struct FakeHttpError {
  int status = 500;
  double retry_after = -1;  // seconds; < 0 = no Retry-After header
  std::string message;
  std::string type;         // "" = derived from the status
};

struct FakeTurn {
  std::string text;
  std::string thinking;
  std::string signature;           // thinking signature; generated if thinking is set
  std::vector<FakeToolCall> tool_calls;
  std::optional<long> input_tokens, output_tokens;
  std::string stop_reason;         // neutral: end_turn | tool_use | max_tokens | other verbatim
  std::optional<FakeHttpError> error;
  std::string stream_error;        // message of a mid-stream error event; "" = none
  std::string stream_error_type = "overloaded_error";
  long cut_after_bytes = -1;       // drop the connection after this many body bytes
  int chunk_delay_ms = 0;          // pause before each streamed piece
};

// Reads one response object. Unknown fields are ignored; wrong types are
// an error naming the field.
Result<FakeTurn> ParseTurn(const Json& response);

// The turn answered when the script has run out.
FakeTurn ExhaustedTurn();

// What a renderer needs to know about the request besides the turn.
struct RenderContext {
  Json body;                 // the parsed request body (null if not JSON)
  size_t body_bytes = 0;
  int index = 0;             // which request this is (0-based), for ids
  bool stream = false;
  std::string model;         // request's "model" or "fake-model"
};

// A rendered answer: status, headers and the body in pieces (one SSE event
// per piece when streaming, the whole JSON document otherwise).
struct Rendered {
  int status = 200;
  net::Headers headers;
  bool stream = false;
  std::vector<std::string> pieces;
};

// Deterministic token counts: ceil(bytes / 4), at least 1.
long CountTokens(size_t bytes);
long InputTokens(const FakeTurn& turn, const RenderContext& ctx);
long OutputTokens(const FakeTurn& turn);
// The neutral stop reason: the override, or tool_use / end_turn.
std::string StopReason(const FakeTurn& turn);
// Splits UTF-8 text into pieces of about `size` bytes without cutting a
// character; empty text gives no pieces.
std::vector<std::string> SplitText(const std::string& text, size_t size);
// Splits JSON text into `n` fragments at fixed, deliberately awkward places
// (inside keys and strings), never inside a UTF-8 character.
std::vector<std::string> SplitArguments(const std::string& args, int n);
std::string SseEvent(const std::string& event, const Json& data);  // "event: e\ndata: {...}\n\n"
std::string SseData(const std::string& data);                     // "data: ...\n\n"

// OpenAI's error body {error: {message, type, param, code}} and response.
Json OpenAiErrorBody(const FakeHttpError& e);
Rendered OpenAiErrorResponse(const FakeHttpError& e);

Rendered RenderAnthropic(const FakeTurn& turn, const RenderContext& ctx);
Rendered RenderOpenAiChat(const FakeTurn& turn, const RenderContext& ctx);
Rendered RenderOpenAiResponses(const FakeTurn& turn, const RenderContext& ctx);

}  // namespace sepp::fake
