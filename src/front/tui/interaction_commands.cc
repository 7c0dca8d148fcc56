// The built-in slash commands (docs/tui.md lists them).
#include <algorithm>
#include <cstdlib>
#include <map>

#include "base/json.h"
#include "front/tui/clipboard.h"
#include "front/tui/interaction.h"
#include "front/tui/session_diff.h"
#include "runtime/settings.h"
#include "session/store.h"

namespace sepp::front::tui {
namespace {

// The text of an entry's message (string content or text blocks).
std::string EntryText(const Json& entry) {
  if (!entry.is_object() || !entry.contains("message")) return "";
  const Json& m = entry["message"];
  if (!m.is_object() || !m.contains("content")) return "";
  const Json& c = m["content"];
  if (c.is_string()) return c.get<std::string>();
  std::string out;
  if (c.is_array()) {
    for (const auto& b : c) {
      if (!b.is_object()) continue;
      std::string type = b.value("type", "");
      if (type == "text" && b.contains("text") && b["text"].is_string()) out += b["text"].get<std::string>();
      else if (type == "toolCall" || type == "tool_use") out += "[" + b.value("name", std::string("tool")) + "] ";
    }
  }
  return out;
}

std::string OneLine(std::string s, size_t max) {
  for (char& c : s)
    if (c == '\n' || c == '\t') c = ' ';
  if (s.size() > max) {
    s.resize(max);
    while (!s.empty() && (static_cast<unsigned char>(s.back()) & 0xC0) == 0x80) s.pop_back();
    if (!s.empty()) s.pop_back();
    s += "\u2026";
  }
  return s;
}

// The keys, for /help and /hotkeys (docs/tui.md has the full table).
constexpr std::pair<const char*, const char*> kHotkeys[] = {
    {"Enter", "send (a steer while working)"},
    {"Alt+Enter", "queue a follow-up"},
    {"Alt+Up", "take the queued messages back into the editor"},
    {"Shift+Enter, Ctrl+J", "a newline"},
    {"Esc", "abort the turn"},
    {"Up / Down", "earlier prompts"},
    {"Ctrl+R", "search earlier prompts"},
    {"Ctrl+_ / Alt+_", "undo / redo"},
    {"Ctrl+G", "edit the prompt in $EDITOR"},
    {"Tab", "complete a /command; @ completes a file"},
    {"Ctrl+O", "view the last tool output full-screen"},
    {"Ctrl+X", "abort one running call (the turn goes on)"},
    {"Ctrl+C", "clear the editor (twice: quit)"},
    {"Ctrl+D", "quit"},
};

std::string HotkeysText() {
  size_t widest = 0;
  for (const auto& [key, what] : kHotkeys) widest = std::max(widest, std::string_view(key).size());
  std::string text = "keys:";
  for (const auto& [key, what] : kHotkeys)
    text += "\n  " + std::string(key) + std::string(widest - std::string_view(key).size() + 2, ' ') + what;
  return text;
}

}  // namespace

void Interaction::AddBuiltinCommands() {
  auto add = [&](std::string name, std::string args, std::string description, std::function<void(const std::string&)> run) {
    commands_.Add({std::move(name), std::move(args), std::move(description), std::move(run)});
  };
  add("help", "", "the commands and keys", [this](const std::string&) { CmdHelp(); });
  add("model", "[id]", "show or change the model (from the next call)", [this](const std::string& a) { CmdModel(a); });
  add("thinking", "[level]", "show or change the thinking level", [this](const std::string& a) { CmdThinking(a); });
  add("compact", "[focus]", "summarise the older context now", [this](const std::string& a) { CmdCompact(a); });
  add("new", "", "start a new session", [this](const std::string&) { CmdNew(); });
  add("resume", "", "pick an earlier session of this folder", [this](const std::string&) { CmdResume(); });
  add("tree", "", "the session tree: go on from an earlier entry", [this](const std::string&) { CmdTree(); });
  add("fork", "[entry]", "a new session from here (or from an entry)", [this](const std::string& a) { CmdFork(a); });
  add("label", "text", "label the current entry (shown in /tree)", [this](const std::string& a) { CmdLabel(a); });
  add("name", "text", "name this session", [this](const std::string& a) { CmdName(a); });
  add("copy", "[message | code N | tool N | thinking]", "copy to the clipboard (OSC 52)", [this](const std::string& a) { CmdCopy(a); });
  add("view", "[message | tool N | thinking]", "show in the full-screen viewer", [this](const std::string& a) { CmdView(a); });
  add("calls", "", "the running tool calls: abort one", [this](const std::string&) { CmdCalls(); });
  add("export", "[file.html]", "write this session as HTML", [this](const std::string& a) { CmdExport(a); });
  add("diff", "", "what the agent's edits and writes changed in this session", [this](const std::string&) { CmdDiff(); });
  add("hotkeys", "", "the keys", [this](const std::string&) { view_.Notice(HotkeysText()); });
  add("quit", "", "leave sepp", [this](const std::string&) { quit_ = true; });
}

void Interaction::ShowSessionTail(size_t messages) { view_.ShowHistory(session_.Messages(), messages); }

void Interaction::CmdHelp() {
  std::string text = "commands:\n";
  for (const auto& c : commands_.all())
    text += "  /" + c.name + (c.args.empty() ? "" : " " + c.args) + "  " + c.description + "\n";
  text += HotkeysText();
  view_.Notice(text);
}

void Interaction::CmdModel(const std::string& args) {
  if (args.empty()) {
    runtime::SessionState s = session_.GetState();
    view_.Notice("model: " + s.model + " (" + s.provider + "); /model ID changes it from the next call");
    return;
  }
  Status st = session_.SetModel(args);
  if (!st.ok()) {
    view_.Notice("sepp: " + st.error().message);
    return;
  }
  UpdateFooter();
  view_.Notice("model: " + args);
}

void Interaction::CmdThinking(const std::string& args) {
  auto set = [this](const std::string& name) {
    runtime::ThinkingLevel level;
    if (!runtime::ParseThinkingLevel(name, &level)) {
      std::string names;
      for (auto l : runtime::AllThinkingLevels()) names += std::string(names.empty() ? "" : ", ") + runtime::ToString(l);
      view_.Notice("sepp: unknown thinking level \"" + name + "\"; the levels are " + names);
      return;
    }
    Status st = session_.SetThinking(level);
    if (st.ok()) UpdateFooter();
    view_.Notice(st.ok() ? std::string("thinking: ") + runtime::ToString(level) : "sepp: " + st.error().message);
  };
  if (!args.empty()) return set(args);
  std::vector<Picker::Item> items;
  for (auto l : runtime::AllThinkingLevels())
    items.push_back({runtime::ToString(l), runtime::ToString(l),
                     std::to_string(runtime::ThinkingBudget(l)) + " tokens"});
  picker_.Open("thinking level", std::move(items), set, runtime::ToString(session_.GetState().thinking));
}

void Interaction::CmdCompact(const std::string& args) {
  if (compacting_) {
    view_.Notice("sepp: a compaction is already running");
    return;
  }
  compacting_ = session_.Compact(args);
  view_.Notice("compacting the older context" + (args.empty() ? std::string() : " (focus: " + args + ")") + "\u2026");
}

void Interaction::CmdNew() {
  Status st = session_.NewSession();
  if (!st.ok()) {
    view_.Notice("sepp: " + st.error().message);
    return;
  }
  UpdateFooter();
  view_.Notice("a new session: " + session_.GetState().session_id);
}

void Interaction::CmdResume() {
  auto settings = runtime::LoadSettings(session_.GetState().cwd);
  if (!settings.ok()) {
    view_.Notice("sepp: " + settings.error().message);
    return;
  }
  auto store = session::OpenStore(settings->session_store, session::DefaultSessionsRoot());
  if (!store.ok()) {
    view_.Notice("sepp: " + store.error().message);
    return;
  }
  auto list = (*store)->List(session_.GetState().cwd.string());
  if (!list.ok()) {
    view_.Notice("sepp: " + list.error().message);
    return;
  }
  std::vector<Picker::Item> items;
  for (const auto& s : *list) {
    std::string label = s.first_prompt.empty() ? "(no prompt yet)" : OneLine(s.first_prompt, 60);
    items.push_back({s.id, label, s.id.substr(0, 8) + "  " + std::to_string(s.message_count) + " messages  " + s.created});
  }
  if (items.empty()) {
    view_.Notice("sepp: no sessions in this folder yet");
    return;
  }
  picker_.Open("resume a session", std::move(items), [this](const std::string& id) {
    Status st = session_.SwitchSession(id);
    if (!st.ok()) {
      view_.Notice("sepp: " + st.error().message);
      return;
    }
    UpdateFooter();
    view_.Notice("resumed " + id);
    ShowSessionTail(40);
  }, session_.GetState().session_id);
}

void Interaction::CmdTree() {
  Json tree = session_.Tree();
  Json entries = session_.Entries();
  std::map<std::string, std::string> text;
  for (const auto& e : entries)
    if (e.is_object() && e.contains("id") && e["id"].is_string()) text[e["id"].get<std::string>()] = EntryText(e);
  std::map<std::string, const Json*> nodes;
  std::vector<std::string> roots;
  for (const auto& n : tree["nodes"]) {
    std::string id = n.value("id", "");
    nodes[id] = &n;
    std::string parent = n.contains("parent_id") && n["parent_id"].is_string() ? n["parent_id"].get<std::string>() : "";
    if (parent.empty()) roots.push_back(id);
  }
  if (nodes.empty()) {
    view_.Notice("sepp: this session has no entries yet");
    return;
  }
  std::string leaf = tree.value("leaf", "");
  std::vector<Picker::Item> items;
  // Depth first, children in order; a depth only where the tree branches,
  // so a long straight conversation does not march off to the right.
  std::vector<std::pair<std::string, int>> todo;
  for (auto it = roots.rbegin(); it != roots.rend(); ++it) todo.push_back({*it, 0});
  while (!todo.empty()) {
    auto [id, depth] = todo.back();
    todo.pop_back();
    const Json& n = *nodes[id];
    std::string type = n.value("type", "");
    std::string role = n.value("role", "");
    std::string label = std::string(static_cast<size_t>(depth) * 2, ' ') + (role.empty() ? type : role) + ": " +
                        OneLine(text[id], 70);
    std::string detail = id.substr(0, 8);
    if (n.contains("label")) detail += "  [" + n.value("label", "") + "]";
    if (id == leaf) detail += "  (here)";
    items.push_back({id, label, detail});
    const Json& children = n["children"];
    int child_depth = children.size() > 1 ? depth + 1 : depth;
    for (auto it = children.rbegin(); it != children.rend(); ++it)
      if (it->is_string() && nodes.count(it->get<std::string>())) todo.push_back({it->get<std::string>(), child_depth});
  }
  picker_.Open("session tree: Enter goes on from the entry", std::move(items), [this](const std::string& id) {
    Status st = session_.Branch(id);
    if (!st.ok()) {
      view_.Notice("sepp: " + st.error().message);
      return;
    }
    view_.Notice("went back to " + id.substr(0, 8) + ": the next prompt goes on from there");
    ShowSessionTail(6);
  }, leaf);
}

void Interaction::CmdFork(const std::string& args) {
  std::string entry = args.empty() ? session_.Tree().value("leaf", "") : args;
  if (entry.empty()) {
    view_.Notice("sepp: nothing to fork yet");
    return;
  }
  auto id = session_.Fork(entry);
  if (!id.ok()) {
    view_.Notice("sepp: " + id.error().message);
    return;
  }
  view_.Notice("forked into a new session: " + *id);
}

void Interaction::CmdLabel(const std::string& args) {
  std::string leaf = session_.Tree().value("leaf", "");
  if (args.empty() || leaf.empty()) {
    view_.Notice(leaf.empty() ? "sepp: nothing to label yet" : "sepp: give the label: /label TEXT");
    return;
  }
  Status st = session_.Label(leaf, args);
  view_.Notice(st.ok() ? "labelled " + leaf.substr(0, 8) + ": " + args : "sepp: " + st.error().message);
}

void Interaction::CmdName(const std::string& args) {
  if (args.empty()) {
    view_.Notice("sepp: give the name: /name TEXT");
    return;
  }
  Status st = session_.SetSessionName(args);
  if (st.ok()) UpdateFooter();
  view_.Notice(st.ok() ? "session name: " + args : "sepp: " + st.error().message);
}

std::optional<std::string> Interaction::Target(const std::string& args, std::string* title, std::string* error) const {
  std::string what = args, n_text;
  if (size_t sp = args.find(' '); sp != std::string::npos) {
    what = args.substr(0, sp);
    n_text = args.substr(args.find_first_not_of(' ', sp) == std::string::npos ? args.size() : args.find_first_not_of(' ', sp));
  }
  if (what.empty()) what = "message";
  size_t n = 1;
  if (!n_text.empty()) {
    char* end = nullptr;
    unsigned long v = std::strtoul(n_text.c_str(), &end, 10);
    if (!end || *end || v == 0) {
      *error = "\"" + n_text + "\" is not a number: give N from 1";
      return std::nullopt;
    }
    n = v;
  }
  if (what == "message" || what == "code") {
    std::string text = session_.LastAssistantText();
    if (text.empty()) {
      for (const auto& m : session_.Messages())
        if (m.role == llm::Role::kAssistant && !m.Text().empty()) text = m.Text();
    }
    if (text.empty()) {
      *error = "there is no answer yet";
      return std::nullopt;
    }
    if (what == "message") {
      *title = "the last answer";
      return text;
    }
    auto blocks = CodeBlocks(text);
    if (n > blocks.size()) {
      *error = "the last answer has " + std::to_string(blocks.size()) + " code block" + (blocks.size() == 1 ? "" : "s");
      return std::nullopt;
    }
    *title = "code block " + std::to_string(n);
    return blocks[n - 1];
  }
  if (what == "thinking") {
    // Folded in the scrollback once it ended; the session keeps it.
    auto messages = session_.Messages();
    for (auto m = messages.rbegin(); m != messages.rend(); ++m) {
      if (m->role != llm::Role::kAssistant) continue;
      std::string text;
      bool redacted = false;
      for (const auto& b : m->content) {
        if (b.kind != llm::ContentBlock::Kind::kThinking) continue;
        if (b.redacted) redacted = true;
        else text += (text.empty() ? "" : "\n\n") + b.text;
      }
      if (!text.empty()) {
        *title = "the last thinking";
        return text;
      }
      if (redacted) {
        *error = "the provider redacted the last thinking";
        return std::nullopt;
      }
    }
    *error = "there is no thinking yet";
    return std::nullopt;
  }
  if (what == "tool") {
    std::vector<const llm::Message*> outputs;
    auto messages = session_.Messages();
    for (const auto& m : messages)
      if (m.role == llm::Role::kToolResult) outputs.push_back(&m);
    if (n > outputs.size()) {
      *error = outputs.empty() ? "no tool has run yet" : "there are " + std::to_string(outputs.size()) + " tool outputs";
      return std::nullopt;
    }
    const llm::Message& m = *outputs[outputs.size() - n];
    *title = m.tool_name + " output" + (n > 1 ? " (" + std::to_string(n) + " back)" : "");
    return m.Text();
  }
  *error = "which? message, code N, tool N or thinking";
  return std::nullopt;
}

void Interaction::CmdCopy(const std::string& args) {
  std::string title, error;
  auto text = Target(args, &title, &error);
  if (!text) {
    view_.Notice("sepp: /copy: " + error);
    return;
  }
  const char* tmux = std::getenv("TMUX");
  out_ += Osc52(*text, tmux && *tmux);
  view_.Notice("copied " + title + " (" + std::to_string(text->size()) + " bytes) to the clipboard");
}

void Interaction::CmdView(const std::string& args) {
  std::string title, error;
  auto text = Target(args, &title, &error);
  if (!text) {
    view_.Notice("sepp: /view: " + error);
    return;
  }
  OpenViewer(title, *text);
}

void Interaction::CmdExport(const std::string& args) {
  auto path = session_.ExportHtml(args);
  view_.Notice(path.ok() ? "exported to " + *path : "sepp: " + path.error().message);
}

void Interaction::CmdDiff() {
  SessionDiff diff = DiffOfSession(session_.Messages());
  if (diff.text.empty()) {
    view_.Notice("sepp: /diff: the agent has not edited or written a file in this session");
    return;
  }
  OpenViewer("/diff: " + std::to_string(diff.files.size()) + (diff.files.size() == 1 ? " file" : " files"), diff.text);
}

void Interaction::CmdCalls() {
  if (running_calls_.empty()) {
    view_.Notice("sepp: no tool call is running");
    return;
  }
  std::vector<Picker::Item> items;
  for (size_t i = 0; i < running_calls_.size(); ++i)
    items.push_back({running_calls_[i], OneLine(running_summaries_[i], 70), running_calls_[i]});
  picker_.Open("running calls: Enter aborts that one (the turn goes on)", std::move(items),
               [this](const std::string& id) {
                 Status st = session_.AbortCall(id);
                 view_.Notice(st.ok() ? "aborting that call" : "sepp: " + st.error().message);
               });
}

}  // namespace sepp::front::tui
