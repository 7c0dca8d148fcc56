// Error classification for the three APIs.
//
// Kinds (provider.h): auth, bad_request, not_found, context_overflow,
// rate_limit, overloaded, server, unreachable, timeout, aborted, protocol.
// Retryable: 408, 429 (but not an exhausted quota), 500-504, 529, overloaded
// errors inside a stream, dropped or refused connections and timeouts.
// Messages never contain the key: the 401 text names the variable only, and
// every provider message passes through Redact().
#include "llm/errors.h"

#include "base/json.h"
#include "base/secrets.h"
#include "base/strings.h"
#include "llm/wire.h"

namespace sepp::llm {
namespace {

std::string OneLine(std::string_view text, size_t max_bytes = 400) {
  std::string s(Trim(text));
  for (char& c : s) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  if (s.size() > max_bytes) {
    s.resize(Utf8SafePrefix(s, max_bytes));
    s += "...";
  }
  return Redact(SanitizeUtf8(s));
}

bool Contains(std::string_view hay, std::string_view needle) {
  return ToLower(hay).find(needle) != std::string::npos;
}

bool LooksLikeContextOverflow(std::string_view code, std::string_view message) {
  return code == "context_length_exceeded" || Contains(message, "prompt is too long") ||
         Contains(message, "context_length_exceeded") ||
         Contains(message, "maximum context length") ||
         Contains(message, "context window") || Contains(message, "too many tokens") ||
         Contains(message, "input is too long");
}

std::string ContextMessage(const Endpoint& ep, const std::string& message) {
  return "the conversation is too long for model \"" + ep.model + "\": " + OneLine(message);
}

std::string BodyCode(const Json& j) {
  const Json* err = wire::Get(j, "error");
  if (err && err->is_object()) {
    std::string code = wire::Str(*err, "code");
    if (code.empty()) code = wire::Str(*err, "type");
    return code;
  }
  return {};
}

}  // namespace

std::string HostOf(std::string_view url) {
  size_t scheme = url.find("://");
  if (scheme != std::string_view::npos) url.remove_prefix(scheme + 3);
  size_t end = url.find_first_of("/?#");
  if (end != std::string_view::npos) url = url.substr(0, end);
  size_t at = url.rfind('@');  // never show user:password@
  if (at != std::string_view::npos) url.remove_prefix(at + 1);
  return std::string(url);
}

std::string ProviderMessage(std::string_view body) {
  auto parsed = ParseJson(body);
  if (parsed) {
    const Json& j = *parsed;
    if (const Json* err = wire::Get(j, "error")) {
      if (err->is_string()) return OneLine(err->get<std::string>());
      std::string m = wire::Str(*err, "message");
      if (!m.empty()) return OneLine(m);
    }
    std::string m = wire::Str(j, "message");
    if (!m.empty()) return OneLine(m);
    m = wire::Str(j, "detail");
    if (!m.empty()) return OneLine(m);
  }
  if (Trim(body).empty()) return "(no details given)";
  return OneLine(body, 200);
}

bool IsRetryableKind(std::string_view kind) {
  return kind == "rate_limit" || kind == "overloaded" || kind == "server" ||
         kind == "unreachable" || kind == "timeout";
}

Failure ClassifyErrorObject(const Endpoint& ep, const std::string& type, const std::string& code,
                            const std::string& message) {
  Failure f;
  std::string what = OneLine(message.empty() ? (code.empty() ? type : code) : message);
  if (LooksLikeContextOverflow(code, message)) {
    f.error = Error::Make(ContextMessage(ep, message), "context_overflow");
  } else if (type == "overloaded_error" || code == "overloaded" || code == "server_is_overloaded" ||
             code == "slow_down") {
    f.error = Error::Make(ep.host + " is overloaded: " + what, "overloaded");
    f.retryable = true;
  } else if (type == "rate_limit_error" || code == "rate_limit_exceeded") {
    f.error = Error::Make("rate limited by " + ep.host + ": " + what, "rate_limit");
    f.retryable = true;
  } else if (code == "insufficient_quota") {
    f.error = Error::Make("the account's quota at " + ep.host + " is used up: " + what +
                              " (check the plan and billing)", "rate_limit");
  } else if (type == "authentication_error" || code == "invalid_api_key") {
    f.error = Error::Make("the API key was rejected by " + ep.host + ": check " +
                              ep.key_variable, "auth");
  } else if (type == "permission_error") {
    f.error = Error::Make("access denied by " + ep.host + ": " + what, "auth");
  } else if (type == "not_found_error" || code == "model_not_found") {
    f.error = Error::Make("model \"" + ep.model + "\" was not found at " + ep.host + ": " + what,
                          "not_found");
  } else if (type == "invalid_request_error" || type == "invalid_request" ||
             code == "invalid_request_error" || code == "invalid_prompt") {
    f.error = Error::Make(ep.host + " rejected the request: " + what, "bad_request");
  } else {
    // api_error, server_error and anything new: assume the server's fault.
    f.error = Error::Make(ep.host + " failed while answering: " + what, "server");
    f.retryable = true;
  }
  return f;
}

Failure ClassifyHttpError(const Endpoint& ep, int status, std::string_view body) {
  Failure f;
  std::string message = ProviderMessage(body);
  std::string code;
  if (auto parsed = ParseJson(body)) code = BodyCode(*parsed);
  std::string status_text = "(" + std::to_string(status) + ")";

  if (status == 401) {
    if (!ep.has_key) {
      f.error = Error::Make(ep.host + " requires an API key (401): set " + ep.key_variable, "auth");
    } else {
      f.error = Error::Make("the API key was rejected (401) by " + ep.host + ": check " +
                                ep.key_variable, "auth");
    }
    return f;
  }
  if (status == 403) {
    f.error = Error::Make("access denied (403) by " + ep.host + ": " + message, "auth");
    return f;
  }
  if (LooksLikeContextOverflow(code, message) && status >= 400 && status < 500) {
    f.error = Error::Make(ContextMessage(ep, message), "context_overflow");
    return f;
  }
  if (status == 404 || (code == "model_not_found" && status < 500)) {
    if (code == "model_not_found" || code == "not_found_error" || Contains(message, "model")) {
      f.error = Error::Make("model \"" + ep.model + "\" was not found at " + ep.host + " " +
                                status_text + ": " + message, "not_found");
    } else {
      f.error = Error::Make(ep.host + " answered 404 " + message +
                                ": check the base URL (OPENAI_BASE_URL must end in /v1, "
                                "ANTHROPIC_BASE_URL must not)", "not_found");
    }
    return f;
  }
  if (status == 429) {
    if (code == "insufficient_quota") {
      f.error = Error::Make("the account's quota at " + ep.host + " is used up (429): " + message +
                                " (check the plan and billing)", "rate_limit");
      return f;
    }
    f.error = Error::Make("rate limited (429) by " + ep.host + ": " + message, "rate_limit");
    f.retryable = true;
    return f;
  }
  if (status == 529 || code == "overloaded_error") {
    f.error = Error::Make(ep.host + " is overloaded " + status_text + ": " + message, "overloaded");
    f.retryable = true;
    return f;
  }
  if (status == 408) {
    f.error = Error::Make(ep.host + " timed out the request (408): " + message, "timeout");
    f.retryable = true;
    return f;
  }
  if (status >= 500) {
    f.error = Error::Make(ep.host + " failed " + status_text + ": " + message, "server");
    f.retryable = status <= 504;
    return f;
  }
  if (status == 413) {
    f.error = Error::Make("the request is too large for " + ep.host + " (413): " + message,
                          "bad_request");
    return f;
  }
  f.error = Error::Make(ep.host + " rejected the request " + status_text + ": " + message,
                        "bad_request");
  return f;
}

Failure ClassifyNetError(const Endpoint& ep, const Error& net_error) {
  Failure f;
  const std::string& k = net_error.kind;
  std::string detail = OneLine(net_error.message);
  if (k == "aborted") {
    f.error = Error::Make("aborted", "aborted");
  } else if (k == "timeout") {
    f.error = Error::Make(detail, "timeout");
    f.retryable = true;
  } else if (k == "connect" || k == "io") {
    f.error = Error::Make(detail, "unreachable");
    f.retryable = true;
  } else {
    // tls, proxy, bad_url: retrying will not help.
    f.error = Error::Make(detail, "unreachable");
  }
  return f;
}

}  // namespace sepp::llm
