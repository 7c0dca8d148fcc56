// The message model and its JSON form (the session file format).
//
// ToJson writes only fields that differ from their defaults; MessageFromJson
// reads them back with the same defaults, so a message survives a round trip
// exactly. MessageFromJson checks every type by hand: session files may be
// edited or truncated, and nothing here may throw.
#include "llm/message.h"

namespace sepp::llm {

ContentBlock ContentBlock::Text(std::string t) {
  ContentBlock b;
  b.kind = Kind::kText;
  b.text = std::move(t);
  return b;
}

ContentBlock ContentBlock::Thinking(std::string t, std::string signature) {
  ContentBlock b;
  b.kind = Kind::kThinking;
  b.text = std::move(t);
  b.signature = std::move(signature);
  return b;
}

ContentBlock ContentBlock::RedactedThinking(std::string data) {
  ContentBlock b;
  b.kind = Kind::kThinking;
  b.redacted = true;
  b.signature = std::move(data);
  return b;
}

ContentBlock ContentBlock::ToolCall(std::string id, std::string name, Json args) {
  ContentBlock b;
  b.kind = Kind::kToolCall;
  b.id = std::move(id);
  b.name = std::move(name);
  b.arguments = std::move(args);
  return b;
}

Usage& Usage::operator+=(const Usage& o) {
  input += o.input;
  output += o.output;
  cache_read += o.cache_read;
  cache_write += o.cache_write;
  return *this;
}

Message Message::User(std::string text) {
  Message m;
  m.role = Role::kUser;
  m.content.push_back(ContentBlock::Text(std::move(text)));
  return m;
}

Message Message::ToolResult(std::string call_id, std::string tool_name, std::string text,
                            bool is_error) {
  Message m;
  m.role = Role::kToolResult;
  m.tool_call_id = std::move(call_id);
  m.tool_name = std::move(tool_name);
  m.is_error = is_error;
  m.content.push_back(ContentBlock::Text(std::move(text)));
  return m;
}

std::string Message::Text() const {
  std::string out;
  for (const auto& b : content) {
    if (b.kind == ContentBlock::Kind::kText) out += b.text;
  }
  return out;
}

std::vector<const ContentBlock*> Message::ToolCalls() const {
  std::vector<const ContentBlock*> out;
  for (const auto& b : content) {
    if (b.kind == ContentBlock::Kind::kToolCall) out.push_back(&b);
  }
  return out;
}

int64_t ApproxTokens(const Message& m) {
  size_t bytes = 16;  // role and framing
  for (const auto& b : m.content) {
    bytes += b.text.size() + b.name.size() + b.id.size() + b.raw_arguments.size();
    if (b.kind == ContentBlock::Kind::kToolCall && !b.arguments.is_null()) {
      bytes += DumpJson(b.arguments).size();
    }
  }
  return static_cast<int64_t>((bytes + 3) / 4);
}

const char* ToString(StopReason r) {
  switch (r) {
    case StopReason::kStop: return "stop";
    case StopReason::kLength: return "length";
    case StopReason::kToolUse: return "tool_use";
    case StopReason::kError: return "error";
    case StopReason::kAborted: return "aborted";
  }
  return "stop";
}

const char* ToString(Role r) {
  switch (r) {
    case Role::kUser: return "user";
    case Role::kAssistant: return "assistant";
    case Role::kToolResult: return "tool_result";
  }
  return "user";
}

bool StopReasonFromString(std::string_view name, StopReason* out) {
  for (StopReason r : {StopReason::kStop, StopReason::kLength, StopReason::kToolUse,
                       StopReason::kError, StopReason::kAborted}) {
    if (name == ToString(r)) {
      *out = r;
      return true;
    }
  }
  return false;
}

namespace {

Json BlockToJson(const ContentBlock& b) {
  Json j = Json::object();
  switch (b.kind) {
    case ContentBlock::Kind::kText:
      j["type"] = "text";
      j["text"] = b.text;
      break;
    case ContentBlock::Kind::kThinking:
      j["type"] = "thinking";
      j["thinking"] = b.text;
      if (!b.signature.empty()) j["signature"] = b.signature;
      if (b.redacted) j["redacted"] = true;
      break;
    case ContentBlock::Kind::kToolCall:
      j["type"] = "tool_call";
      j["id"] = b.id;
      j["name"] = b.name;
      j["arguments"] = b.arguments;
      if (!b.arguments_error.empty()) j["arguments_error"] = b.arguments_error;
      if (!b.raw_arguments.empty()) j["raw_arguments"] = b.raw_arguments;
      break;
  }
  return j;
}

Error Bad(const std::string& what) {
  return Error::Make("invalid message in session data: " + what, "invalid_message");
}

// Reads an optional string member; false if present with another type.
bool ReadString(const Json& j, const char* key, std::string* out) {
  auto it = j.find(key);
  if (it == j.end()) return true;
  if (!it->is_string()) return false;
  *out = it->get<std::string>();
  return true;
}

bool ReadBool(const Json& j, const char* key, bool* out) {
  auto it = j.find(key);
  if (it == j.end()) return true;
  if (!it->is_boolean()) return false;
  *out = it->get<bool>();
  return true;
}

bool ReadInt(const Json& j, const char* key, int64_t* out) {
  auto it = j.find(key);
  if (it == j.end()) return true;
  if (!it->is_number_integer()) return false;
  *out = it->get<int64_t>();
  return true;
}

Result<ContentBlock> BlockFromJson(const Json& j) {
  if (!j.is_object()) return Bad("a content block is not an object");
  std::string type;
  if (!ReadString(j, "type", &type)) return Bad("content block type is not a string");
  ContentBlock b;
  if (type == "text") {
    b.kind = ContentBlock::Kind::kText;
    if (!ReadString(j, "text", &b.text)) return Bad("text is not a string");
  } else if (type == "thinking") {
    b.kind = ContentBlock::Kind::kThinking;
    if (!ReadString(j, "thinking", &b.text) || !ReadString(j, "signature", &b.signature) ||
        !ReadBool(j, "redacted", &b.redacted)) {
      return Bad("thinking block has a field of the wrong type");
    }
  } else if (type == "tool_call") {
    b.kind = ContentBlock::Kind::kToolCall;
    if (!ReadString(j, "id", &b.id) || !ReadString(j, "name", &b.name) ||
        !ReadString(j, "arguments_error", &b.arguments_error) ||
        !ReadString(j, "raw_arguments", &b.raw_arguments)) {
      return Bad("tool_call block has a field of the wrong type");
    }
    if (auto it = j.find("arguments"); it != j.end()) b.arguments = *it;
  } else {
    return Bad("unknown content block type \"" + type + "\"");
  }
  return b;
}

}  // namespace

Json ToJson(const Message& m) {
  Json j = Json::object();
  j["role"] = ToString(m.role);
  Json content = Json::array();
  for (const auto& b : m.content) content.push_back(BlockToJson(b));
  j["content"] = std::move(content);
  if (!m.tool_call_id.empty()) j["tool_call_id"] = m.tool_call_id;
  if (!m.tool_name.empty()) j["tool_name"] = m.tool_name;
  if (m.is_error) j["is_error"] = true;
  if (m.usage != Usage{}) {
    Json u = Json::object();
    u["input"] = m.usage.input;
    u["output"] = m.usage.output;
    u["cache_read"] = m.usage.cache_read;
    u["cache_write"] = m.usage.cache_write;
    j["usage"] = std::move(u);
  }
  if (m.stop_reason != StopReason::kStop) j["stop_reason"] = ToString(m.stop_reason);
  if (!m.model.empty()) j["model"] = m.model;
  if (!m.error.empty()) j["error"] = m.error;
  return j;
}

Result<Message> MessageFromJson(const Json& j) {
  if (!j.is_object()) return Bad("not an object");
  Message m;
  std::string role;
  if (!ReadString(j, "role", &role)) return Bad("role is not a string");
  if (role == "user") {
    m.role = Role::kUser;
  } else if (role == "assistant") {
    m.role = Role::kAssistant;
  } else if (role == "tool_result") {
    m.role = Role::kToolResult;
  } else {
    return Bad("unknown role \"" + role + "\"");
  }
  if (auto it = j.find("content"); it != j.end()) {
    if (!it->is_array()) return Bad("content is not an array");
    for (const auto& bj : *it) {
      auto b = BlockFromJson(bj);
      if (!b) return b.error();
      m.content.push_back(std::move(*b));
    }
  }
  if (!ReadString(j, "tool_call_id", &m.tool_call_id) ||
      !ReadString(j, "tool_name", &m.tool_name) || !ReadBool(j, "is_error", &m.is_error) ||
      !ReadString(j, "model", &m.model) || !ReadString(j, "error", &m.error)) {
    return Bad("a message field has the wrong type");
  }
  if (auto it = j.find("usage"); it != j.end()) {
    if (!it->is_object()) return Bad("usage is not an object");
    if (!ReadInt(*it, "input", &m.usage.input) || !ReadInt(*it, "output", &m.usage.output) ||
        !ReadInt(*it, "cache_read", &m.usage.cache_read) ||
        !ReadInt(*it, "cache_write", &m.usage.cache_write)) {
      return Bad("a usage count is not an integer");
    }
  }
  std::string stop;
  if (!ReadString(j, "stop_reason", &stop)) return Bad("stop_reason is not a string");
  if (!stop.empty() && !StopReasonFromString(stop, &m.stop_reason)) {
    return Bad("unknown stop_reason \"" + stop + "\"");
  }
  return m;
}

}  // namespace sepp::llm
