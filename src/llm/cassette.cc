// The cassette format: to and from JSON lines, with every field checked on
// the way in (a cassette may be damaged, truncated or written by anyone).
#include "llm/cassette.h"

#include <algorithm>
#include <filesystem>

#include <openssl/sha.h>

#include "base/file.h"
#include "base/strings.h"

namespace sepp::llm {
namespace {

Error Bad(const std::string& where, const std::string& what) {
  return Error::Make(where + ": " + what, "bad_cassette");
}

// True if j nests no deeper than limit. Recursion is bounded by the limit,
// so a hostile document cannot overflow the stack here.
bool DepthAtMost(const Json& j, int limit) {
  if (!j.is_structured()) return true;
  if (limit <= 0) return false;
  for (const auto& v : j) {
    if (!DepthAtMost(v, limit - 1)) return false;
  }
  return true;
}

Json BlockJson(const ContentBlock& b) {
  Message m;
  m.content.push_back(b);
  return ToJson(m)["content"][0];
}

Result<ContentBlock> BlockFrom(const Json& j) {
  auto m = MessageFromJson(Json{{"role", "assistant"}, {"content", Json::array({j})}});
  if (!m) return m.error();
  if (m->content.size() != 1 || m->content[0].kind != ContentBlock::Kind::kToolCall) {
    return Error::Make("not a tool_call block");
  }
  return m->content[0];
}

Json EventJson(const StreamEvent& e) {
  switch (e.kind) {
    case StreamEvent::Kind::kText: return {{"text", e.text}};
    case StreamEvent::Kind::kThinking: return {{"thinking", e.text}};
    case StreamEvent::Kind::kToolCall: return {{"tool_call", BlockJson(e.call)}};
    case StreamEvent::Kind::kRetry:
      return {{"retry", {{"why", e.text}, {"attempt", e.attempt}, {"delay_s", e.delay_s}}}};
  }
  return Json::object();
}

Result<StreamEvent> EventFrom(const Json& j) {
  if (!j.is_object() || j.size() != 1) {
    return Error::Make("an event must be an object with exactly one of text, thinking, tool_call, retry");
  }
  StreamEvent e;
  const auto& [key, v] = *j.items().begin();
  if (key == "text" || key == "thinking") {
    if (!v.is_string()) return Error::Make(key + " is not a string");
    e.kind = key == "text" ? StreamEvent::Kind::kText : StreamEvent::Kind::kThinking;
    e.text = v.get<std::string>();
  } else if (key == "tool_call") {
    auto b = BlockFrom(v);
    if (!b) return Error::Make("tool_call: " + b.error().message);
    e.kind = StreamEvent::Kind::kToolCall;
    e.call = std::move(*b);
  } else if (key == "retry") {
    if (!v.is_object() || !v.value("why", Json()).is_string() ||
        !v.value("attempt", Json()).is_number_integer() || !v.value("delay_s", Json()).is_number()) {
      return Error::Make("retry needs why (string), attempt (integer) and delay_s (number)");
    }
    e.kind = StreamEvent::Kind::kRetry;
    e.text = v["why"].get<std::string>();
    e.attempt = static_cast<int>(std::clamp<int64_t>(v["attempt"].get<int64_t>(), 0, 1000));
    e.delay_s = v["delay_s"].get<double>();
  } else {
    return Error::Make("unknown event \"" + key + "\"");
  }
  return e;
}

bool SmallNonNegative(const Json& j) {
  return j.is_number_integer() && j.get<int64_t>() >= 0 && j.get<int64_t>() < (1 << 30);
}

Result<Exchange> ExchangeFrom(const Json& j, RequestForm form) {
  if (!j.is_object()) return Error::Make("an exchange must be a JSON object");
  Exchange x;
  if (!SmallNonNegative(j.value("agent", Json())) || !SmallNonNegative(j.value("call", Json()))) {
    return Error::Make("agent and call must be non-negative integers");
  }
  x.agent = j["agent"].get<int>();
  x.call = j["call"].get<int>();
  if (!j.contains("request") || !j["request"].is_object()) {
    return Error::Make("request is missing or not an object");
  }
  std::string text = DumpJson(j["request"]);
  if (auto it = j.find("fingerprint"); it != j.end()) {
    if (!it->is_string()) return Error::Make("fingerprint is not a string");
    if (it->get<std::string>() != FingerprintText(text)) {
      return Error::Make("the fingerprint does not match the request (damaged? after a hand edit, "
                         "delete the fingerprint)");
    }
  }
  if (form == RequestForm::kText) {
    x.request_text = std::move(text);
  } else if (form == RequestForm::kFirstMessage) {
    const Json& messages = j["request"].value("messages", Json());
    x.request = Json::object();
    if (messages.is_array() && !messages.empty()) x.request["messages"] = Json::array({messages[0]});
  } else {
    x.request = j["request"];
  }
  const Json events = j.value("events", Json::array());
  if (!events.is_array()) return Error::Make("events is not an array");
  for (size_t i = 0; i < events.size(); ++i) {
    auto e = EventFrom(events[i]);
    if (!e) return Error::Make("event " + std::to_string(i) + ": " + e.error().message);
    x.events.push_back(std::move(*e));
  }
  const Json result = j.value("result", Json());
  if (!result.is_object() || result.size() != 1 || (!result.contains("message") && !result.contains("error"))) {
    return Error::Make("result must be {\"message\": ...} or {\"error\": ...}");
  }
  if (result.contains("message")) {
    auto m = MessageFromJson(result["message"]);
    if (!m) return Error::Make("result message: " + m.error().message);
    if (m->role != Role::kAssistant) return Error::Make("result message is not an assistant message");
    x.message = std::move(*m);
  } else {
    const Json& e = result["error"];
    if (!e.is_object() || !e.value("message", Json()).is_string() || !e.value("kind", Json()).is_string()) {
      return Error::Make("result error needs message and kind (strings)");
    }
    x.error = Error::Make(e["message"].get<std::string>(), e["kind"].get<std::string>());
  }
  return x;
}

}  // namespace

StreamEvent StreamEvent::Piece(Kind kind, std::string text) {
  StreamEvent e;
  e.kind = kind;
  e.text = std::move(text);
  return e;
}

StreamEvent StreamEvent::ToolCall(ContentBlock call) {
  StreamEvent e;
  e.kind = Kind::kToolCall;
  e.call = std::move(call);
  return e;
}

StreamEvent StreamEvent::Retry(std::string why, int attempt, double delay_s) {
  StreamEvent e;
  e.kind = Kind::kRetry;
  e.text = std::move(why);
  e.attempt = attempt;
  e.delay_s = delay_s;
  return e;
}

const char* ApiName(ApiKind api) {
  switch (api) {
    case ApiKind::kAnthropic: return "anthropic";
    case ApiKind::kOpenAiChat: return "openai_chat";
    case ApiKind::kOpenAiResponses: return "openai_responses";
  }
  return "anthropic";
}

bool ApiFromName(std::string_view name, ApiKind* out) {
  for (ApiKind k : {ApiKind::kAnthropic, ApiKind::kOpenAiChat, ApiKind::kOpenAiResponses}) {
    if (name == ApiName(k)) {
      *out = k;
      return true;
    }
  }
  return false;
}

Json RequestToJson(const Request& r) {
  Json messages = Json::array();
  for (const auto& m : r.messages) messages.push_back(ToJson(m));
  Json tools = Json::array();
  for (const auto& t : r.tools) {
    tools.push_back({{"name", t.name}, {"description", t.description}, {"parameters", t.parameters}});
  }
  return {{"model", r.model},
          {"system", r.system},
          {"messages", std::move(messages)},
          {"tools", std::move(tools)},
          {"max_tokens", r.max_tokens},
          {"thinking_budget", r.thinking_budget},
          {"stream", r.stream}};
}

std::string Fingerprint(const Json& request) { return FingerprintText(DumpJson(request)); }

std::string FingerprintText(std::string_view text) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 8; ++i) {
    out += kHex[digest[i] >> 4];
    out += kHex[digest[i] & 15];
  }
  return out;
}

std::string CassetteHeaderLine(const std::string& provider, ApiKind api) {
  return DumpJson({{"sepp_cassette", kCassetteVersion}, {"provider", provider}, {"api", ApiName(api)}}) + "\n";
}

std::string ExchangeLine(const Exchange& x) {
  Json events = Json::array();
  for (const auto& e : x.events) events.push_back(EventJson(e));
  Json result = x.message ? Json{{"message", ToJson(*x.message)}}
                          : Json{{"error", {{"message", x.error.message}, {"kind", x.error.kind}}}};
  Json j = {{"agent", x.agent},           {"call", x.call},     {"fingerprint", Fingerprint(x.request)},
            {"request", x.request},       {"events", events},   {"result", result}};
  return DumpJson(j) + "\n";
}

Result<Cassette> ParseCassette(std::string_view text, const std::string& name, RequestForm form) {
  if (text.size() > kMaxCassetteBytes) {
    return Bad(name, "larger than " + HumanBytes(kMaxCassetteBytes) + "; record a shorter run");
  }
  Cassette c;
  bool header = false;
  // Line by line in place: a copy of every line would double the file in
  // memory for as long as it is parsed.
  size_t at = 0;
  for (size_t i = 0; at < text.size(); ++i) {
    size_t nl = text.find('\n', at);
    std::string_view line = text.substr(at, nl == std::string_view::npos ? std::string_view::npos : nl - at);
    at = nl == std::string_view::npos ? text.size() : nl + 1;
    std::string where = name + " line " + std::to_string(i + 1);
    if (Trim(line).empty()) continue;
    auto j = ParseJson(line);
    if (!j) return Bad(where, j.error().message);
    if (!DepthAtMost(*j, kMaxCassetteDepth)) {
      return Bad(where, "JSON nested deeper than " + std::to_string(kMaxCassetteDepth) + " levels");
    }
    if (!header) {
      if (!j->is_object() || !j->contains("sepp_cassette")) {
        return Bad(where, "not a sepp cassette (the first line must be {\"sepp_cassette\":1,...}); "
                          "write one with sepp --record FILE");
      }
      if ((*j)["sepp_cassette"] != kCassetteVersion) {
        return Bad(where, "cassette version " + DumpJson((*j)["sepp_cassette"]) +
                              " is not supported (this sepp reads version " +
                              std::to_string(kCassetteVersion) + ")");
      }
      const Json provider = j->value("provider", Json());
      const Json api = j->value("api", Json());
      if (!provider.is_string() || provider.get<std::string>().empty() || !api.is_string() ||
          !ApiFromName(api.get<std::string>(), &c.api)) {
        return Bad(where, "the header needs provider (a name) and api (anthropic, openai_chat or "
                          "openai_responses)");
      }
      c.provider = provider.get<std::string>();
      header = true;
      continue;
    }
    auto x = ExchangeFrom(*j, form);
    if (!x) return Bad(where, x.error().message);
    x->line = static_cast<int>(i + 1);
    c.exchanges.push_back(std::move(*x));
  }
  if (!header) return Bad(name, "empty: not a sepp cassette; write one with sepp --record FILE");
  return c;
}

Result<Cassette> LoadCassette(const std::string& path, RequestForm form) {
  std::error_code ec;
  auto size = std::filesystem::file_size(path, ec);
  if (ec) return Error::Make("cannot read the cassette " + path + ": " + ec.message(), "bad_cassette");
  if (size > kMaxCassetteBytes) {
    return Bad(path, "larger than " + HumanBytes(kMaxCassetteBytes) + "; record a shorter run");
  }
  auto text = ReadFile(path);
  if (!text) return Error::Make("cannot read the cassette " + path + ": " + text.error().message, "bad_cassette");
  return ParseCassette(*text, path, form);
}

void PlayEvents(const std::vector<StreamEvent>& events, const StreamSink& sink) {
  for (const auto& e : events) {
    switch (e.kind) {
      case StreamEvent::Kind::kText:
        if (sink.on_text) sink.on_text(e.text);
        break;
      case StreamEvent::Kind::kThinking:
        if (sink.on_thinking) sink.on_thinking(e.text);
        break;
      case StreamEvent::Kind::kToolCall:
        if (sink.on_tool_call) sink.on_tool_call(e.call);
        break;
      case StreamEvent::Kind::kRetry:
        if (sink.on_retry) sink.on_retry(e.text, e.attempt, e.delay_s);
        break;
    }
  }
}

}  // namespace sepp::llm
