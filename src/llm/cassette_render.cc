#include "llm/cassette_render.h"

#include <cstdio>
#include <map>

#include "base/strings.h"

namespace sepp::llm {
namespace {

constexpr size_t kPreview = 160;

// One line of text: control characters (C0, DEL, C1) escaped, invalid UTF-8
// replaced, cut to kPreview bytes.
std::string Preview(std::string_view raw) {
  std::string text = SanitizeUtf8(raw);
  std::string out;
  for (size_t i = 0; i < text.size() && out.size() < kPreview; ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else if (c == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) <= 0x9F) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned char>(text[++i]));
      out += buf;
    } else {
      out += text[i];
    }
  }
  if (out.size() >= kPreview) out = out.substr(0, Utf8SafePrefix(out, kPreview)) + "...";
  return out;
}

std::string Count(size_t n, const std::string& noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

std::string Str(const Json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string BlockLine(const ContentBlock& b) {
  switch (b.kind) {
    case ContentBlock::Kind::kText: return "text: " + Preview(b.text);
    case ContentBlock::Kind::kThinking: return b.redacted ? "thinking (redacted)" : "thinking: " + Preview(b.text);
    case ContentBlock::Kind::kToolCall:
      return "tool_call " + Preview(b.name) + " " +
             Preview(b.arguments_error.empty() ? DumpJson(b.arguments) : b.raw_arguments);
  }
  return "";
}

// A request's message as the one line that says what it added.
std::string MessageLine(const Json& j) {
  auto m = MessageFromJson(j);
  if (!m) return "(unreadable message: " + m.error().message + ")";
  std::string who = ToString(m->role);
  if (m->role == Role::kToolResult) {
    return "tool_result " + Preview(m->tool_name) + (m->is_error ? " (error): " : ": ") + Preview(m->Text());
  }
  if (m->role == Role::kUser) return "user: " + Preview(m->Text());
  std::string out = "assistant:";
  for (const auto& b : m->content) out += " [" + BlockLine(b) + "]";
  return out;
}

}  // namespace

std::string RenderCassette(const Cassette& c, const std::string& name) {
  std::map<int, const Json*> previous;  // each agent's last request
  for (const auto& x : c.exchanges) previous[x.agent] = nullptr;
  std::string out = "cassette " + Preview(name) + ": provider " + Preview(c.provider) + " (API " + ApiName(c.api) +
                    "), " + Count(c.exchanges.size(), "exchange") + ", " + Count(previous.size(), "agent") + "\n";
  for (size_t n = 0; n < c.exchanges.size(); ++n) {
    const Exchange& x = c.exchanges[n];
    const Json& r = x.request;
    const Json* prev = previous[x.agent];
    out += "\n#" + std::to_string(n + 1) + " line " + std::to_string(x.line) + " · agent " +
           std::to_string(x.agent) + " call " + std::to_string(x.call) + " · " + Preview(Str(r, "model")) +
           (r.value("stream", false) ? " · stream" : " · whole") + " · fingerprint " + Fingerprint(r) + "\n";
    if (!prev || Str(*prev, "system") != Str(r, "system")) {
      out += "  system: " + HumanBytes(Str(r, "system").size()) + " \"" + Preview(Str(r, "system")) + "\"\n";
    }
    const Json tools = r.value("tools", Json::array());
    if (!prev || prev->value("tools", Json::array()) != tools) {
      std::string names;
      for (const auto& t : tools) names += (names.empty() ? "" : ", ") + Preview(Str(t, "name"));
      out += "  tools: " + (names.empty() ? std::string("(none)") : names) + "\n";
    }
    const Json messages = r.value("messages", Json::array());
    size_t from = 0;
    if (prev) {
      size_t before = prev->value("messages", Json::array()).size();
      if (before <= messages.size()) from = before;
      else out += "  (history rewritten: " + std::to_string(messages.size()) + " messages)\n";
    }
    for (size_t i = from; messages.is_array() && i < messages.size(); ++i) out += "  > " + MessageLine(messages[i]) + "\n";
    for (const auto& e : x.events) {
      if (e.kind == StreamEvent::Kind::kRetry) {
        char delay[32];
        std::snprintf(delay, sizeof delay, "%.1f", e.delay_s);
        out += "  ~ retry " + std::to_string(e.attempt) + " after " + delay + " s: " + Preview(e.text) + "\n";
      }
    }
    if (x.message) {
      for (const auto& b : x.message->content) out += "  < " + BlockLine(b) + "\n";
      const Usage& u = x.message->usage;
      out += "  = " + std::string(ToString(x.message->stop_reason)) + " · in " + std::to_string(u.input) +
             " · out " + std::to_string(u.output);
      if (u.cache_read) out += " · cache read " + std::to_string(u.cache_read);
      if (u.cache_write) out += " · cache write " + std::to_string(u.cache_write);
      if (!x.message->error.empty()) out += " · " + Preview(x.message->error);
      out += "\n";
    } else {
      out += "  ! error (" + Preview(x.error.kind) + "): " + Preview(x.error.message) + "\n";
    }
    previous[x.agent] = &r;
  }
  return out;
}

}  // namespace sepp::llm
