// JSON-RPC 2.0 messages as ACP sends them: one JSON object per line.
//
// ParseMessage classifies one line as a request, a notification or a
// response, or says exactly what is wrong with it as the error response to
// send back (with the request's id when one could be read, else null), so a
// client gets one error per bad line and nothing it sends can throw.
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "base/json.h"

namespace sepp::front::jsonrpc {

// The standard codes (https://www.jsonrpc.org/specification#error_object).
constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;
constexpr int kInternalError = -32603;
// ACP's "resource not found" (an unknown session id).
constexpr int kResourceNotFound = -32002;

struct Message {
  enum class Kind { kRequest, kNotification, kResponse };
  Kind kind = Kind::kRequest;
  Json id;             // kRequest, kResponse: a string or an integer
  std::string method;  // kRequest, kNotification
  Json params;         // object, array or null
  Json result;         // kResponse on success
  Json error;          // kResponse on failure: {code, message, data?}
};

struct Parsed {
  std::optional<Message> message;
  Json error_response;  // set when message is empty: the reply to send
};

Parsed ParseMessage(std::string_view line);

Json MakeResult(const Json& id, Json result);
Json MakeError(const Json& id, int code, std::string_view message, Json data = nullptr);
Json MakeRequest(const Json& id, std::string_view method, Json params);
Json MakeNotification(std::string_view method, Json params);

}  // namespace sepp::front::jsonrpc
