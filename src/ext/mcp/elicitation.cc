#include "ext/mcp/elicitation.h"

#include <algorithm>
#include <optional>

namespace sepp::ext::mcp {
namespace {

using agent::QuestionField;
using Kind = QuestionField::Kind;

Result<std::vector<agent::QuestionOption>> Options(const Json& schema, const std::string& name) {
  std::vector<agent::QuestionOption> out;
  if (schema.contains("enum") && schema["enum"].is_array()) {
    const Json& names = schema.value("enumNames", Json::array());  // legacy titles
    for (size_t i = 0; i < schema["enum"].size(); ++i) {
      const Json& v = schema["enum"][i];
      if (!v.is_string()) return Error::Make("\"" + name + "\": enum values must be strings", "unsupported");
      std::string title = names.is_array() && i < names.size() && names[i].is_string() ? names[i].get<std::string>() : "";
      out.push_back({v.get<std::string>(), title});
    }
    return out;
  }
  for (const char* key : {"oneOf", "anyOf"}) {
    if (!schema.contains(key) || !schema[key].is_array()) continue;
    for (const Json& o : schema[key]) {
      if (!o.is_object() || !o.contains("const") || !o["const"].is_string())
        return Error::Make("\"" + name + "\": each of " + key + " must be {const, title}", "unsupported");
      out.push_back({o["const"].get<std::string>(), o.value("title", std::string())});
    }
    return out;
  }
  return out;
}

std::optional<double> Number(const Json& schema, const char* key) {
  if (schema.contains(key) && schema[key].is_number()) return schema[key].get<double>();
  return std::nullopt;
}

}  // namespace

Result<agent::Question> QuestionFromElicitation(const std::string& server, const Json& params) {
  if (!params.is_object()) return Error::Make("the params are not an object", "invalid");
  std::string mode = params.value("mode", std::string("form"));
  if (mode != "form") return Error::Make("sepp answers form elicitations only, not mode \"" + mode + "\"", "unsupported");
  if (!params.contains("message") || !params["message"].is_string())
    return Error::Make("the params have no \"message\"", "invalid");
  const Json& schema = params.value("requestedSchema", Json::object());
  if (!schema.is_object() || schema.value("type", std::string("object")) != "object")
    return Error::Make("requestedSchema must be an object schema", "unsupported");
  agent::Question q;
  q.prompt = params["message"].get<std::string>();
  q.source = "mcp:" + server;
  std::vector<std::string> required;
  if (schema.contains("required") && schema["required"].is_array())
    for (const Json& r : schema["required"])
      if (r.is_string()) required.push_back(r.get<std::string>());
  const Json& props = schema.value("properties", Json::object());
  if (!props.is_object()) return Error::Make("requestedSchema.properties must be an object", "unsupported");
  if (props.size() > 64) return Error::Make("requestedSchema has more than 64 properties", "unsupported");
  for (auto it = props.begin(); it != props.end(); ++it) {
    const std::string name = it.key();
    const Json& p = it.value();
    if (!p.is_object()) return Error::Make("\"" + name + "\": not a schema", "unsupported");
    QuestionField f;
    f.name = name;
    f.title = p.value("title", std::string());
    f.description = p.value("description", std::string());
    f.required = std::find(required.begin(), required.end(), name) != required.end();
    if (p.contains("default")) f.default_value = p["default"];
    const std::string type = p.value("type", std::string());
    if (type == "string") {
      auto opts = Options(p, name);
      if (!opts.ok()) return opts.error();
      if (!opts->empty()) {
        f.kind = Kind::kChoice;
        f.options = std::move(opts).value();
      } else {
        f.kind = Kind::kText;
        if (auto m = Number(p, "maxLength"); m && *m >= 0) f.max_length = static_cast<size_t>(*m);
      }
    } else if (type == "number" || type == "integer") {
      f.kind = type == "number" ? Kind::kNumber : Kind::kInteger;
      f.minimum = Number(p, "minimum");
      f.maximum = Number(p, "maximum");
    } else if (type == "boolean") {
      f.kind = Kind::kBoolean;
    } else if (type == "array") {
      auto opts = Options(p.value("items", Json::object()), name);
      if (!opts.ok()) return opts.error();
      if (opts->empty()) return Error::Make("\"" + name + "\": an array must list its items' values", "unsupported");
      f.kind = Kind::kChoice;
      f.multiple = true;
      f.options = std::move(opts).value();
    } else {
      return Error::Make("\"" + name + "\": type \"" + type + "\" is not one of string, number, integer, boolean, array",
                         "unsupported");
    }
    // A default that does not fit its own field would be sent as the answer: refuse it now.
    if (!f.default_value.is_null()) {
      agent::Question one;
      one.fields.push_back(f);
      if (auto ok = agent::CheckAnswer(one, {{name, f.default_value}}); !ok.ok())
        return Error::Make("the default of " + ok.error().message, "unsupported");
    }
    q.fields.push_back(std::move(f));
  }
  return q;
}

Json ElicitationResult(const agent::QuestionAnswer& a) {
  switch (a.status) {
    case agent::QuestionStatus::kAnswered: return {{"action", "accept"}, {"content", a.values}};
    case agent::QuestionStatus::kCancelled: return {{"action", "cancel"}};
    case agent::QuestionStatus::kDeclined: break;
  }
  return {{"action", "decline"}};
}

Json Elicit(agent::QuestionAsker& asker, const std::string& server, const Json& params, std::string* why) {
  auto q = QuestionFromElicitation(server, params);
  if (!q.ok()) {
    if (why) *why = q.error().message;
    return {{"action", "decline"}};
  }
  CancelToken never;  // an abort ends it through the asker (AgentSession::Abort)
  return ElicitationResult(asker.Ask(*q, never));
}

}  // namespace sepp::ext::mcp
