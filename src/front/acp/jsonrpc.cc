#include "front/acp/jsonrpc.h"

namespace sepp::front::jsonrpc {
namespace {

Parsed Fail(const Json& id, int code, std::string message) {
  Parsed p;
  p.error_response = MakeError(id, code, message);
  return p;
}

bool ValidId(const Json& id) { return id.is_string() || id.is_number_integer(); }

}  // namespace

Parsed ParseMessage(std::string_view line) {
  auto json = ParseJson(line);
  if (!json.ok())
    return Fail(nullptr, kParseError,
                "the line is not JSON (" + json.error().message +
                    "); send one JSON-RPC 2.0 object per line");
  const Json& j = *json;
  if (j.is_array())
    return Fail(nullptr, kInvalidRequest,
                "batches are not supported; send one JSON-RPC object per line");
  if (!j.is_object())
    return Fail(nullptr, kInvalidRequest, "a JSON-RPC message must be an object");

  Json id = j.contains("id") ? j["id"] : Json();
  bool has_id = j.contains("id") && !id.is_null();
  Json reply_id = has_id && ValidId(id) ? id : Json();
  if (j.value("jsonrpc", Json()) != "2.0")
    return Fail(reply_id, kInvalidRequest, "\"jsonrpc\" must be \"2.0\"");
  if (has_id && !ValidId(id))
    return Fail(nullptr, kInvalidRequest, "\"id\" must be a string or an integer");

  Message m;
  if (j.contains("method")) {
    if (!j["method"].is_string() || j["method"].get_ref<const std::string&>().empty())
      return Fail(reply_id, kInvalidRequest, "\"method\" must be a non-empty string");
    m.method = j["method"].get<std::string>();
    if (j.contains("params")) {
      m.params = j["params"];
      if (!m.params.is_object() && !m.params.is_array() && !m.params.is_null())
        return Fail(reply_id, kInvalidParams, "\"params\" must be an object or an array");
    }
    m.kind = has_id ? Message::Kind::kRequest : Message::Kind::kNotification;
    m.id = id;
    return {std::move(m), nullptr};
  }
  bool has_result = j.contains("result"), has_error = j.contains("error");
  if (!has_result && !has_error)
    return Fail(reply_id, kInvalidRequest, "the message has neither \"method\" nor \"result\"/\"error\"");
  if (has_result && has_error)
    return Fail(reply_id, kInvalidRequest, "a response has either \"result\" or \"error\", not both");
  if (!has_id)
    // A response to nothing we can name; JSON-RPC forbids answering a
    // response, so there is nothing to send either.
    return {std::nullopt, nullptr};
  m.kind = Message::Kind::kResponse;
  m.id = id;
  if (has_result) m.result = j["result"];
  if (has_error) {
    m.error = j["error"];
    if (!m.error.is_object()) m.error = {{"code", kInternalError}, {"message", "malformed error"}};
  }
  return {std::move(m), nullptr};
}

Json MakeResult(const Json& id, Json result) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

Json MakeError(const Json& id, int code, std::string_view message, Json data) {
  Json err = {{"code", code}, {"message", std::string(message)}};
  if (!data.is_null()) err["data"] = std::move(data);
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(err)}};
}

Json MakeRequest(const Json& id, std::string_view method, Json params) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"method", std::string(method)}, {"params", std::move(params)}};
}

Json MakeNotification(std::string_view method, Json params) {
  return {{"jsonrpc", "2.0"}, {"method", std::string(method)}, {"params", std::move(params)}};
}

}  // namespace sepp::front::jsonrpc
