// Text renderings of a session. Message payloads follow the shape the agent
// writes (session.h): {"role", "content": [blocks] or "text", "tool_name",
// "is_error", "model", "usage", ...}; anything else is shown as compact JSON
// rather than dropped, and every string is made valid UTF-8 first.
#include "session/render.h"

#include <vector>

#include "base/strings.h"
#include "session/entry_codec.h"

namespace sepp::session {
namespace {

std::string Str(const Json& j, const char* key) {
  if (!j.is_object()) return {};
  auto it = j.find(key);
  if (it == j.end()) return {};
  if (it->is_string()) return SanitizeUtf8(it->get_ref<const std::string&>());
  if (it->is_null()) return {};
  return DumpJson(*it);
}

std::string Clip(std::string text, size_t max_chars) {
  text = SanitizeUtf8(text);
  for (char& c : text)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  if (text.size() <= max_chars) return text;
  return text.substr(0, Utf8SafePrefix(text, max_chars > 1 ? max_chars - 1 : 0)) + "…";
}

// True only for a JSON true: hostile payloads must never throw.
bool IsTrue(const Json& j, const char* key) {
  if (!j.is_object()) return false;
  auto it = j.find(key);
  return it != j.end() && it->is_boolean() && it->get<bool>();
}

const Json& MessageOf(const Entry& e) {
  static const Json kNull;
  auto it = e.data().find("message");
  return it != e.data().end() && it->is_object() ? *it : kNull;
}

// One content block as text. `full` keeps everything; otherwise short forms.
std::string BlockText(const Json& block, bool full) {
  if (block.is_string()) return SanitizeUtf8(block.get<std::string>());
  std::string type = Str(block, "type");
  if (type == "text") return Str(block, "text");
  if (type == "thinking") {
    std::string t = Str(block, "thinking");
    return "[thinking] " + (full ? Clip(t, 400) : Clip(t, 40));
  }
  if (type == "tool_call") {
    auto args = block.find("arguments");
    std::string a = args != block.end() ? DumpJson(*args) : "{}";
    return "→ " + Str(block, "name") + "(" + (full ? a : Clip(a, 40)) + ")";
  }
  if (type == "image") return "[image]";
  return "[" + (type.empty() ? std::string("block") : type) + "]";
}

std::vector<std::string> Blocks(const Json& message, bool full) {
  std::vector<std::string> out;
  auto content = message.find("content");
  if (content == message.end()) return out;
  if (content->is_string()) {
    out.push_back(SanitizeUtf8(content->get<std::string>()));
  } else if (content->is_array()) {
    for (const Json& b : *content) out.push_back(BlockText(b, full));
  }
  return out;
}

std::string RoleTitle(const Json& message) {
  std::string role = Str(message, "role");
  if (role == "tool_result") {
    std::string t = "Tool result";
    std::string name = Str(message, "tool_name");
    if (!name.empty()) t += " (" + name + ")";
    if (IsTrue(message, "is_error")) t += " — error";
    return t;
  }
  if (role == "assistant") {
    std::string model = Str(message, "model");
    return model.empty() ? "Assistant" : "Assistant (" + model + ")";
  }
  if (role == "user") return "User";
  return role.empty() ? "Message" : role;
}

// Non-message entries, one line (used by every rendering).
std::string OtherSummary(const Entry& e) {
  const Json& d = e.data();
  if (e.type == "compaction")
    return "compaction: " + Str(d, "tokens_before") + " → " + Str(d, "tokens_after") + " tokens";
  if (e.type == "label") {
    std::string label = Str(d, "label");
    return label.empty() ? "label cleared on " + Str(d, "target_id")
                         : "label \"" + label + "\" on " + Str(d, "target_id");
  }
  if (e.type == "subagent") return "subagent " + Str(d, "session_id") + ": " + Str(d, "task");
  if (e.type == "model_change") {
    std::string m = Str(d, "model");
    std::string p = Str(d, "provider");
    return "model changed to " + (p.empty() ? m : p + "/" + m);
  }
  if (e.type == "denial") {
    // "denials" holds objects with "text" (typed, docs/sessions.md) or, in
    // older files, plain strings; both read the same.
    std::string why;
    if (auto it = d.find("denials"); it != d.end() && it->is_array())
      for (const auto& x : *it) {
        const Json* text = x.is_string()                          ? &x
                           : x.is_object() && x.contains("text") ? &x["text"]
                                                                  : nullptr;
        if (!text || !text->is_string()) continue;
        if (!why.empty()) why += "; ";
        why += text->get<std::string>();
      }
    if (why.empty()) why = Str(d, "reason");
    if (why.empty()) why = Str(d, "message");
    return "denied: " + SanitizeUtf8(why);
  }
  return SanitizeUtf8(e.type);
}

std::string HeaderLine(const Session& s) {
  const SessionHeader& h = s.header();
  std::string model = h.provider.empty() ? h.model : h.provider + "/" + h.model;
  std::string out = "session " + h.id + "\n  cwd      " + SanitizeUtf8(h.cwd) + "\n  created  " +
                    h.created + "\n  model    " + SanitizeUtf8(model) + "\n";
  if (!h.parent_session.empty()) out += "  forked   from " + h.parent_session + "\n";
  out += "  entries  " + std::to_string(s.size()) + " (" + std::to_string(s.Leaves().size()) +
         " branch tips)\n";
  return out;
}

std::string HtmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

// A Markdown code fence longer than any backtick run inside text.
std::string Fence(std::string_view text) {
  size_t longest = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return std::string(std::max<size_t>(3, longest + 1), '`');
}

}  // namespace

std::string EntrySummary(const Entry& e, size_t max_chars) {
  if (e.type != "message") return Clip(OtherSummary(e), max_chars);
  const Json& m = MessageOf(e);
  std::string role = Str(m, "role");
  if (role == "tool_result") role = "result";
  std::string text = Join(Blocks(m, false), " ");
  return Clip((role.empty() ? "message" : role) + ": " + text, max_chars);
}

std::string RenderBranchText(const Session& s, std::string_view leaf) {
  std::string out = HeaderLine(s);
  for (const Entry* e : s.Path(leaf)) {
    std::string label = s.LabelOf(e->id);
    std::string tag = label.empty() ? "" : "  [" + SanitizeUtf8(label) + "]";
    if (e->type != "message") {
      if (e->type == "label") continue;  // shown as tags on their targets
      out += "\n· " + OtherSummary(*e) + tag + "\n";
      if (e->type == "compaction") {
        std::string summary = Str(e->data(), "summary");
        if (!summary.empty()) out += summary + "\n";
      }
      continue;
    }
    const Json& m = MessageOf(*e);
    out += "\n── " + RoleTitle(m) + "  " + e->id + tag + "\n";
    for (const std::string& b : Blocks(m, true)) out += b + "\n";
  }
  return out;
}

std::string RenderTree(const Session& s) {
  std::string out;
  struct Item {
    const Entry* entry;
    std::string line_prefix, child_prefix;
  };
  std::vector<Item> stack;
  const auto& entries = s.entries();
  for (auto it = entries.rbegin(); it != entries.rend(); ++it)
    if (!s.Parent(it->id)) stack.push_back({&*it, "", ""});
  while (!stack.empty()) {
    Item item = std::move(stack.back());
    stack.pop_back();
    const Entry& e = *item.entry;
    out += item.line_prefix + e.id + "  " + EntrySummary(e, 70);
    std::string label = s.LabelOf(e.id);
    if (!label.empty()) out += "  [" + Clip(label, 40) + "]";
    if (e.id == s.leaf()) out += "  ← leaf";
    out += '\n';
    std::vector<const Entry*> kids = s.Children(e.id);
    if (kids.size() == 1) {
      stack.push_back({kids[0], item.child_prefix, item.child_prefix});
      continue;
    }
    for (size_t i = kids.size(); i-- > 0;) {
      bool last = i + 1 == kids.size();
      stack.push_back({kids[i], item.child_prefix + (last ? "└─ " : "├─ "),
                       item.child_prefix + (last ? "   " : "│  ")});
    }
  }
  return out;
}

std::string ExportMarkdown(const Session& s) {
  const SessionHeader& h = s.header();
  std::string out = "# Session " + h.id + "\n\n";
  out += "- cwd: `" + SanitizeUtf8(h.cwd) + "`\n- created: " + h.created + "\n";
  out += "- model: " + SanitizeUtf8(h.provider) + "/" + SanitizeUtf8(h.model) + "\n";
  if (!h.parent_session.empty()) out += "- forked from: " + h.parent_session + "\n";
  for (const Entry* e : s.Path()) {
    if (e->type == "label") continue;
    if (e->type != "message") {
      out += "\n> " + OtherSummary(*e) + "\n";
      if (e->type == "compaction") {
        std::string summary = Str(e->data(), "summary");
        if (!summary.empty()) out += "\n" + summary + "\n";
      }
      continue;
    }
    const Json& m = MessageOf(*e);
    std::string role = Str(m, "role");
    out += "\n## " + RoleTitle(m) + "\n\n";
    auto content = m.find("content");
    std::vector<Json> blocks;
    if (content != m.end() && content->is_array()) blocks.assign(content->begin(), content->end());
    else if (content != m.end() && content->is_string()) blocks.push_back(*content);
    for (const Json& b : blocks) {
      std::string type = b.is_object() ? Str(b, "type") : "text";
      std::string text = b.is_string() ? SanitizeUtf8(b.get<std::string>()) : Str(b, "text");
      if (type == "tool_call") {
        auto args = b.find("arguments");
        std::string a = args != b.end() ? args->dump(2, ' ', false, Json::error_handler_t::replace) : "{}";
        out += "**Tool call:** `" + Str(b, "name") + "`\n\n" + Fence(a) + "json\n" + a + "\n" +
               Fence(a) + "\n\n";
      } else if (type == "thinking") {
        std::string t = Str(b, "thinking");
        out += "<details><summary>Thinking</summary>\n\n" + t + "\n\n</details>\n\n";
      } else if (role == "tool_result") {
        out += Fence(text) + "\n" + text + "\n" + Fence(text) + "\n\n";
      } else if (type == "text") {
        out += text + "\n\n";
      } else {
        out += BlockText(b, true) + "\n\n";
      }
    }
  }
  return out;
}

std::string ExportHtml(const Session& s) {
  const SessionHeader& h = s.header();
  std::string out =
      "<!doctype html>\n<html><head><meta charset=\"utf-8\">\n<title>sepp session " + h.id +
      "</title>\n<style>body{font:15px/1.5 system-ui,sans-serif;max-width:60em;margin:2em "
      "auto;padding:0 1em}.m{border-left:4px solid #ccc;padding:.2em 1em;margin:1em 0}"
      ".user{border-color:#36c}.assistant{border-color:#3a3}.tool_result{border-color:#999}"
      ".error{border-color:#c33}.note{color:#666;font-style:italic}pre{white-space:pre-wrap;"
      "background:#f6f6f6;padding:.5em}h3{margin:.2em 0;font-size:1em}</style></head><body>\n";
  out += "<h1>Session " + h.id + "</h1>\n<p>cwd <code>" + HtmlEscape(SanitizeUtf8(h.cwd)) +
         "</code> · created " + HtmlEscape(h.created) + " · model " +
         HtmlEscape(SanitizeUtf8(h.provider + "/" + h.model)) + "</p>\n";
  for (const Entry* e : s.Path()) {
    if (e->type == "label") continue;
    if (e->type != "message") {
      out += "<p class=\"note\">" + HtmlEscape(OtherSummary(*e)) + "</p>\n";
      if (e->type == "compaction")
        out += "<pre>" + HtmlEscape(Str(e->data(), "summary")) + "</pre>\n";
      continue;
    }
    const Json& m = MessageOf(*e);
    std::string role = Str(m, "role");
    std::string cls = role == "user" || role == "assistant" || role == "tool_result" ? role : "other";
    if (IsTrue(m, "is_error")) cls += " error";
    out += "<div class=\"m " + cls + "\"><h3>" + HtmlEscape(RoleTitle(m)) + "</h3>\n";
    for (const std::string& b : Blocks(m, true)) {
      bool pre = role == "tool_result" || StartsWith(b, "→ ");
      out += pre ? "<pre>" + HtmlEscape(b) + "</pre>\n" : "<p>" + ReplaceAll(HtmlEscape(b), "\n", "<br>\n") + "</p>\n";
    }
    out += "</div>\n";
  }
  out += "</body></html>\n";
  return out;
}

std::string ExportJsonl(const Session& s) {
  std::string out = EncodeHeader(s.header());
  out += '\n';
  for (const Entry& e : s.entries()) {
    out += EncodeEntry(e);
    out += '\n';
  }
  return out;
}

}  // namespace sepp::session
