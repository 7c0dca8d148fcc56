// Script format (docs/fake-provider.md):
//   {"responses": [ <response>, ... ]}   one per request, in order
//   <response> = {
//     "text": "...", "thinking": "...", "signature": "...",
//     "tool_calls": [{"id": "optional", "name": "bash", "arguments": {...}
//                     | "raw_arguments": "{bad json"}],
//     "raw_arguments": "{bad"   (applies to the first tool call; makes one
//                                named "bash" if there is none)
//     "usage": {"input": 10, "output": 5},
//     "stop_reason": "end_turn" | "tool_use" | "max_tokens" | other,
//     "error": {"status": 429, "retry_after": 1, "message": "...", "type": "..."},
//     "stream_error": "message" | {"type": "...", "message": "..."},
//     "cut_after_bytes": N, "chunk_delay_ms": N }
#include "fake_script.h"

namespace sepp::fake {
namespace {

Error Bad(const std::string& field, const std::string& want) {
  return Error::Make("fake provider script: \"" + field + "\" must be " + want, "bad_script");
}

}  // namespace

Result<FakeTurn> ParseTurn(const Json& r) {
  FakeTurn t;
  if (!r.is_object()) return Bad("each response", "an object");
  auto str = [&](const char* key, std::string* out) -> Status {
    if (!r.contains(key)) return Ok();
    if (!r[key].is_string()) return Bad(key, "a string");
    *out = r[key].get<std::string>();
    return Ok();
  };
  if (Status s = str("text", &t.text); !s.ok()) return s.error();
  if (Status s = str("thinking", &t.thinking); !s.ok()) return s.error();
  if (Status s = str("signature", &t.signature); !s.ok()) return s.error();
  if (Status s = str("stop_reason", &t.stop_reason); !s.ok()) return s.error();
  if (!t.thinking.empty() && t.signature.empty()) t.signature = "fake-signature-" + std::to_string(t.thinking.size());

  if (r.contains("tool_calls")) {
    if (!r["tool_calls"].is_array()) return Bad("tool_calls", "an array");
    for (const auto& c : r["tool_calls"]) {
      if (!c.is_object() || !c.contains("name") || !c["name"].is_string()) {
        return Bad("tool_calls[]", "objects with a string \"name\"");
      }
      FakeToolCall call;
      call.name = c["name"].get<std::string>();
      if (c.contains("id") && c["id"].is_string()) call.id = c["id"].get<std::string>();
      if (c.contains("raw_arguments") && c["raw_arguments"].is_string()) {
        call.arguments = c["raw_arguments"].get<std::string>();
      } else {
        call.arguments = DumpJson(c.contains("arguments") ? c["arguments"] : Json::object());
      }
      t.tool_calls.push_back(std::move(call));
    }
  }
  if (r.contains("raw_arguments")) {
    if (!r["raw_arguments"].is_string()) return Bad("raw_arguments", "a string");
    if (t.tool_calls.empty()) t.tool_calls.push_back({"", "bash", ""});
    t.tool_calls[0].arguments = r["raw_arguments"].get<std::string>();
  }
  if (r.contains("usage")) {
    const Json& u = r["usage"];
    if (!u.is_object()) return Bad("usage", "an object");
    if (u.contains("input") && u["input"].is_number_integer()) t.input_tokens = u["input"].get<long>();
    if (u.contains("output") && u["output"].is_number_integer()) t.output_tokens = u["output"].get<long>();
  }
  if (r.contains("error")) {
    const Json& e = r["error"];
    if (!e.is_object()) return Bad("error", "an object");
    FakeHttpError err;
    if (e.contains("status") && e["status"].is_number_integer()) err.status = e["status"].get<int>();
    if (e.contains("retry_after") && e["retry_after"].is_number()) err.retry_after = e["retry_after"].get<double>();
    if (e.contains("message") && e["message"].is_string()) err.message = e["message"].get<std::string>();
    if (e.contains("type") && e["type"].is_string()) err.type = e["type"].get<std::string>();
    if (err.message.empty()) err.message = "fake provider error " + std::to_string(err.status);
    t.error = err;
  }
  if (r.contains("stream_error")) {
    const Json& e = r["stream_error"];
    if (e.is_string()) {
      t.stream_error = e.get<std::string>();
    } else if (e.is_object()) {
      t.stream_error = e.value("message", std::string("Overloaded"));
      t.stream_error_type = e.value("type", std::string("overloaded_error"));
    } else {
      return Bad("stream_error", "a string or an object");
    }
    if (t.stream_error.empty()) t.stream_error = "Overloaded";
  }
  if (r.contains("cut_after_bytes")) {
    if (!r["cut_after_bytes"].is_number_integer()) return Bad("cut_after_bytes", "an integer");
    t.cut_after_bytes = r["cut_after_bytes"].get<long>();
  }
  if (r.contains("chunk_delay_ms")) {
    if (!r["chunk_delay_ms"].is_number_integer()) return Bad("chunk_delay_ms", "an integer");
    t.chunk_delay_ms = r["chunk_delay_ms"].get<int>();
  }
  return t;
}

FakeTurn ExhaustedTurn() {
  FakeTurn t;
  t.text = "(fake provider: script exhausted)";
  return t;
}

long CountTokens(size_t bytes) { return bytes == 0 ? 1 : static_cast<long>((bytes + 3) / 4); }

long InputTokens(const FakeTurn& turn, const RenderContext& ctx) {
  return turn.input_tokens ? *turn.input_tokens : CountTokens(ctx.body_bytes);
}

long OutputTokens(const FakeTurn& turn) {
  if (turn.output_tokens) return *turn.output_tokens;
  size_t bytes = turn.text.size() + turn.thinking.size();
  for (const auto& c : turn.tool_calls) bytes += c.name.size() + c.arguments.size();
  return CountTokens(bytes);
}

std::string StopReason(const FakeTurn& turn) {
  if (!turn.stop_reason.empty()) return turn.stop_reason;
  return turn.tool_calls.empty() ? "end_turn" : "tool_use";
}

namespace {
// Moves pos back to the start of a UTF-8 character.
size_t CharBoundary(const std::string& s, size_t pos) {
  while (pos > 0 && pos < s.size() && (static_cast<unsigned char>(s[pos]) & 0xC0) == 0x80) --pos;
  return pos;
}
}  // namespace

std::vector<std::string> SplitText(const std::string& text, size_t size) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = std::min(text.size(), pos + size);
    size_t b = CharBoundary(text, end);
    if (b <= pos) {  // one character longer than size
      b = end;
      while (b < text.size() && (static_cast<unsigned char>(text[b]) & 0xC0) == 0x80) ++b;
    }
    out.push_back(text.substr(pos, b - pos));
    pos = b;
  }
  return out;
}

std::vector<std::string> SplitArguments(const std::string& args, int n) {
  // Cut points at 1/7, 3/7, 5/7 ... of the text (plus the very first byte):
  // they land inside keys, strings and numbers for any realistic object.
  std::vector<size_t> cuts;
  if (args.size() > 1) cuts.push_back(CharBoundary(args, 1));
  for (int i = 1; i < n - 1; ++i) cuts.push_back(CharBoundary(args, args.size() * (2 * i + 1) / (2 * n + 1)));
  std::vector<std::string> out;
  size_t pos = 0;
  for (size_t c : cuts) {
    if (c <= pos || c >= args.size()) continue;
    out.push_back(args.substr(pos, c - pos));
    pos = c;
  }
  out.push_back(args.substr(pos));
  return out;
}

std::string SseEvent(const std::string& event, const Json& data) {
  return "event: " + event + "\ndata: " + DumpJson(data) + "\n\n";
}

std::string SseData(const std::string& data) { return "data: " + data + "\n\n"; }

}  // namespace sepp::fake
