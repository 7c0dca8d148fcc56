// The built-in slash commands (docs/tui.md lists them).
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <set>

#include "base/json.h"
#include "base/paths.h"
#include "front/tui/clipboard.h"
#include "front/tui/context_report.h"
#include "front/tui/interaction.h"
#include "front/tui/policy_summary.h"
#include "front/tui/session_diff.h"
#include "llm/models.h"
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
    {"Ctrl+X", "the running calls: Enter aborts one, Ctrl+B sends a bash or agent call to the background"},
    {"Ctrl+T", "expand / collapse the tool calls' output"},
    {"Alt+T", "the last tool call again, whole"},
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
  add("model", "[id]", "pick or set the model (from the next call)", [this](const std::string& a) { CmdModel(a); });
  add("thinking", "[level]", "show or change the thinking level", [this](const std::string& a) { CmdThinking(a); });
  add("compact", "[focus]", "summarise the older context now", [this](const std::string& a) { CmdCompact(a); });
  add("new", "", "start a new session", [this](const std::string&) { CmdNew(); });
  add("resume", "", "pick an earlier session of this folder", [this](const std::string&) { CmdResume(); });
  add("tree", "", "the session tree: go on from an earlier entry", [this](const std::string&) { CmdTree(); });
  add("branch", "[entry]", "go back to one of your earlier messages and edit it", [this](const std::string& a) { CmdBranch(a); });
  add("fork", "[entry]", "a new session from here (or from an entry)", [this](const std::string& a) { CmdFork(a); });
  add("label", "text", "label the current entry (shown in /tree)", [this](const std::string& a) { CmdLabel(a); });
  add("name", "text", "name this session", [this](const std::string& a) { CmdName(a); });
  add("copy", "[message | code N | tool N | thinking]", "copy to the clipboard (OSC 52)", [this](const std::string& a) { CmdCopy(a); });
  add("view", "[message | tool N | thinking]", "show in the full-screen viewer", [this](const std::string& a) { CmdView(a); });
  add("calls", "", "the running tool calls: abort one", [this](const std::string&) { CmdCalls(); });
  add("export", "[file.html]", "write this session as HTML", [this](const std::string& a) { CmdExport(a); });
  add("diff", "", "what the agent's edits and writes changed in this session", [this](const std::string&) { CmdDiff(); });
  add("settings", "[model | thinking | theme [value]]", "show the settings; change one now and save it",
      [this](const std::string& a) { CmdSettings(a); });
  add("context", "", "what fills the model's window", [this](const std::string&) { CmdContext(); });
  add("permissions", "[revoke KIND TARGET]", "the sandbox policy and the grants; revoke a session grant",
      [this](const std::string& a) { CmdPermissions(a); });
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
  auto set = [this](const std::string& id) {
    Status st = session_.SetModel(id);
    if (!st.ok()) {
      view_.Notice("sepp: " + st.error().message);
      return;
    }
    UpdateFooter();
    view_.Notice("model: " + id + " (/settings model saves it as the default)");
  };
  if (!args.empty()) return set(args);
  PickModel(set);
}

void Interaction::PickModel(std::function<void(const std::string&)> chosen) {
  runtime::SessionState s = session_.GetState();
  // The provider's models from the model table (no server is asked: the
  // list is the one sepp knows the limits of); any other id works by name.
  std::vector<llm::ModelInfo> models = llm::KnownModels(s.provider);
  if (std::none_of(models.begin(), models.end(), [&](const llm::ModelInfo& m) { return m.id == s.model; }))
    models.insert(models.begin(), llm::LookupModel(s.provider, s.model));
  if (models.size() <= 1) {
    view_.Notice("model: " + s.model + " (" + s.provider + "); sepp has no model list for this provider: /model ID changes it");
    return;
  }
  std::vector<Picker::Item> items;
  for (const auto& m : models)
    items.push_back({m.id, m.id, CompactCount(m.context_window) + " window" + (m.supports_thinking ? ", thinks" : "") +
                                     (m.id == s.model ? "  (now)" : "")});
  picker_.Open("model for " + s.provider + " (type to filter; /model ID for another)", std::move(items),
               std::move(chosen), s.model);
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
  PickThinking(set);
}

void Interaction::PickThinking(std::function<void(const std::string&)> chosen) {
  std::vector<Picker::Item> items;
  for (auto l : runtime::AllThinkingLevels())
    items.push_back({runtime::ToString(l), runtime::ToString(l),
                     std::to_string(runtime::ThinkingBudget(l)) + " tokens"});
  picker_.Open("thinking level", std::move(items), std::move(chosen), runtime::ToString(session_.GetState().thinking));
}

void Interaction::PickTheme(std::function<void(const std::string&)> chosen) {
  std::vector<Picker::Item> items = {{"dark", "dark", "built in"}, {"light", "light", "built in"}};
  std::error_code ec;
  std::vector<std::string> files;
  for (std::filesystem::directory_iterator it(SeppHome() / "themes", ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".json" && it->is_regular_file(ec)) files.push_back(it->path().stem().string());
  std::sort(files.begin(), files.end());
  for (const auto& f : files)
    if (f != "dark" && f != "light") items.push_back({f, f, (SeppHome() / "themes" / (f + ".json")).string()});
  picker_.Open("theme", std::move(items), std::move(chosen), theme_name_);
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

namespace {

// A sub-agent's session, read-only, as (entry text lines) for /tree; empty
// when it cannot be read (the reason in *error).
std::vector<std::pair<std::string, std::string>> ChildMessages(const std::filesystem::path& cwd,
                                                                const std::string& id, std::string* error) {
  std::vector<std::pair<std::string, std::string>> out;  // role, text
  auto settings = runtime::LoadSettings(cwd);
  if (!settings.ok()) {
    *error = settings.error().message;
    return out;
  }
  auto store = session::OpenStore(settings->session_store, session::DefaultSessionsRoot());
  if (!store.ok()) {
    *error = store.error().message;
    return out;
  }
  auto child = (*store)->Open(id, session::OpenMode::kReadOnly);
  if (!child.ok()) {
    *error = child.error().message;
    return out;
  }
  for (const session::Entry* e : (*child)->Path()) {
    if (e->type != "message") continue;
    const Json& j = e->data.get();
    std::string role = j.contains("message") && j["message"].is_object() ? j["message"].value("role", "") : "";
    out.push_back({role, EntryText(j)});
  }
  return out;
}

}  // namespace

void Interaction::CmdTree() {
  Json tree = session_.Tree();
  Json entries = session_.Entries();
  std::map<std::string, std::string> text;
  std::map<std::string, std::string> child_session;  // a subagent entry's session
  for (const auto& e : entries) {
    if (!e.is_object() || !e.contains("id") || !e["id"].is_string()) continue;
    std::string id = e["id"].get<std::string>();
    text[id] = EntryText(e);
    if (e.value("type", "") == "subagent" && e.contains("session_id") && e["session_id"].is_string()) {
      child_session[id] = e["session_id"].get<std::string>();
      text[id] = e.value("task", std::string());
    }
  }
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
  std::filesystem::path cwd = session_.GetState().cwd;
  std::vector<Picker::Item> items;
  std::vector<long> parent_item;  // per item: the item it hangs under (-1: a root)
  // What Enter on a sub-agent's line shows: its session, read-only.
  auto transcripts = std::make_shared<std::map<std::string, std::string>>();
  // Depth first, children in order; a depth only where the tree branches,
  // so a long straight conversation does not march off to the right.
  struct Todo {
    std::string id;
    int depth;
    long parent;
  };
  std::vector<Todo> todo;
  for (auto it = roots.rbegin(); it != roots.rend(); ++it) todo.push_back({*it, 0, -1});
  std::set<std::string> seen;  // a damaged tree cannot loop this
  while (!todo.empty()) {
    Todo t = todo.back();
    todo.pop_back();
    if (!seen.insert(t.id).second) continue;
    const Json& n = *nodes[t.id];
    std::string type = n.value("type", "");
    std::string role = n.value("role", "");
    std::string indent(static_cast<size_t>(t.depth) * 2, ' ');
    long self = static_cast<long>(items.size());
    auto child = child_session.find(t.id);
    if (child != child_session.end()) {
      items.push_back({"sub:" + child->second, indent + "sub-agent: " + OneLine(text[t.id], 66),
                       "session " + child->second.substr(0, 8) + "  (Enter shows it)"});
      parent_item.push_back(t.parent);
      // Its session's messages as child nodes, under the sub-agent's line.
      std::string error, transcript;
      auto messages = ChildMessages(cwd, child->second, &error);
      if (!error.empty()) {
        items.push_back({"sub:" + child->second, indent + "  \u23bf (" + OneLine(error, 60) + ")", ""});
        parent_item.push_back(self);
      }
      for (const auto& [r, body] : messages) {
        items.push_back({"sub:" + child->second, indent + "  \u23bf " + (r.empty() ? "message" : r) + ": " + OneLine(body, 64), ""});
        parent_item.push_back(self);
        transcript += (transcript.empty() ? "" : "\n\n") + (r.empty() ? "message" : r) + ":\n" + body;
      }
      (*transcripts)[child->second] = transcript.empty() ? "(the sub-agent's session has no messages)" : transcript;
    } else {
      std::string detail = t.id.substr(0, 8);
      if (n.contains("label")) detail += "  [" + n.value("label", "") + "]";
      if (t.id == leaf) detail += "  (here)";
      items.push_back({t.id, indent + (role.empty() ? type : role) + ": " + OneLine(text[t.id], 70), detail});
      parent_item.push_back(t.parent);
    }
    const Json& children = n["children"];
    int child_depth = children.size() > 1 ? t.depth + 1 : t.depth;
    for (auto it = children.rbegin(); it != children.rend(); ++it)
      if (it->is_string() && nodes.count(it->get<std::string>())) todo.push_back({it->get<std::string>(), child_depth, self});
  }
  // Each item's subtree is the items right after it (depth first): Left
  // folds them.
  std::vector<size_t> size(items.size(), 1);
  for (size_t i = items.size(); i-- > 0;)
    if (parent_item[i] >= 0) size[static_cast<size_t>(parent_item[i])] += size[i];
  for (size_t i = 0; i < items.size(); ++i) items[i].descendants = size[i] - 1;
  picker_.Open("session tree: Enter goes on from the entry, Left folds, Right unfolds", std::move(items),
               [this, transcripts](const std::string& id) {
    if (id.rfind("sub:", 0) == 0) {
      std::string child = id.substr(4);
      OpenViewer("sub-agent session " + child.substr(0, 8), (*transcripts)[child]);
      return;
    }
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
  if (running_calls_.empty() && background_agents_.empty()) {
    view_.Notice("sepp: no tool call is running");
    return;
  }
  std::vector<Picker::Item> items;
  for (size_t i = 0; i < running_calls_.size(); ++i)
    items.push_back({running_calls_[i], OneLine(running_summaries_[i], 70), running_calls_[i]});
  for (size_t i = 0; i < background_agents_.size(); ++i)
    items.push_back({background_agents_[i], OneLine("(background) " + background_summaries_[i], 70),
                     background_agents_[i]});
  picker_.Open("running calls: Enter aborts that one, Ctrl+B sends it to the background (the turn goes on)",
               std::move(items), [this](const std::string& id) {
                 Status st = session_.AbortCall(id);
                 view_.Notice(st.ok() ? "aborting that call" : "sepp: " + st.error().message);
               });
  picker_.SetCtrlBChoice("backgrounds", [this](const std::string& id) {
    Status st = session_.BackgroundCall(id);
    view_.Notice(st.ok() ? "sending that call to the background (a command goes on in the sandbox, process_list shows "
                           "it; a sub-agent goes on and its report reaches the model when it is done)"
                         : "sepp: " + st.error().message);
  });
}

int64_t Interaction::CompactsAt() const {
  runtime::SessionState state = session_.GetState();
  int64_t window = llm::LookupModel(state.provider, state.model).context_window;
  if (!state.auto_compaction) return -1;
  int64_t reserve = agent::CompactionSettings{}.reserve_tokens;
  return window > reserve ? window - reserve : 0;
}

void Interaction::CmdContext() {
  runtime::SessionState state = session_.GetState();
  llm::Request preamble = session_.RequestPreamble();
  std::vector<llm::Message> messages = session_.Messages();
  ContextReportInput in;
  in.preamble = &preamble;
  in.messages = &messages;
  in.window = llm::LookupModel(state.provider, state.model).context_window;
  in.compacts_at = CompactsAt();
  view_.Notice(ContextReport(in));
}

void Interaction::CmdPermissions(const std::string& args) {
  if (!args.empty()) {
    // /permissions revoke KIND TARGET
    std::string rest = args;
    auto word = [&rest]() {
      size_t start = rest.find_first_not_of(' ');
      if (start == std::string::npos) return std::string();
      size_t end = rest.find(' ', start);
      std::string w = rest.substr(start, end == std::string::npos ? std::string::npos : end - start);
      rest = end == std::string::npos ? "" : rest.substr(end);
      return w;
    };
    std::string verb = word(), kind_name = word();
    size_t start = rest.find_first_not_of(' ');
    std::string target = start == std::string::npos ? "" : rest.substr(start);
    agent::Widening w;
    if (verb != "revoke" || !agent::ParseWideningKind(kind_name, &w.kind) || target.empty()) {
      view_.Notice("sepp: /permissions revoke KIND TARGET (KIND: domain, write or read), or /permissions alone to pick one");
      return;
    }
    w.target = target;
    Status st = session_.RevokeSessionGrant(w);
    view_.Notice(st.ok() ? "revoked " + kind_name + " " + target + ": the next request it covered is asked again"
                         : "sepp: " + st.error().message);
    return;
  }
  std::vector<runtime::PermissionGrant> grants = session_.PermissionGrants();
  view_.Notice(PolicySummary(session_.policy(), grants));
  std::vector<Picker::Item> items;
  for (const auto& g : grants) {
    if (g.for_project) continue;
    std::string key = std::string(agent::ToString(g.widening.kind)) + " " + g.widening.target;
    items.push_back({key, key, "this session"});
  }
  if (items.empty()) return;
  picker_.Open("session grants: Enter revokes one (Esc keeps them)", std::move(items), [this](const std::string& key) {
    CmdPermissions("revoke " + key);
  });
}

void Interaction::CmdBranch(const std::string& args) {
  Json tree = session_.Tree();
  std::map<std::string, std::string> parent_of;
  std::map<std::string, std::string> role_of;
  for (const auto& n : tree["nodes"]) {
    std::string id = n.value("id", "");
    parent_of[id] = n.contains("parent_id") && n["parent_id"].is_string() ? n["parent_id"].get<std::string>() : "";
    role_of[id] = n.value("role", "");
  }
  std::map<std::string, std::string> text;
  for (const auto& e : session_.Entries())
    if (e.is_object() && e.contains("id") && e["id"].is_string()) text[e["id"].get<std::string>()] = EntryText(e);
  // Goes on from just before the message, with its text in the editor to
  // change and send again (pi's /branch).
  auto branch_at = [this, parent_of, text](const std::string& id) {
    auto p = parent_of.find(id);
    if (p == parent_of.end()) {
      view_.Notice("sepp: /branch: this session has no entry " + id);
      return;
    }
    if (p->second.empty()) {
      view_.Notice("sepp: /branch: that is the session's first entry; /new starts afresh");
      return;
    }
    Status st = session_.Branch(p->second);
    if (!st.ok()) {
      view_.Notice("sepp: " + st.error().message);
      return;
    }
    view_.Notice("branched before " + id.substr(0, 8) + ": edit the message and send it (the old branch stays in /tree)");
    ShowSessionTail(6);
    auto t = text.find(id);
    if (t != text.end()) editor_.SetText(t->second);
  };
  if (!args.empty()) {
    // An entry id or a unique prefix of one.
    std::vector<std::string> matches;
    for (const auto& [id, parent] : parent_of)
      if (id.rfind(args, 0) == 0) matches.push_back(id);
    if (matches.size() != 1) {
      view_.Notice(matches.empty() ? "sepp: /branch: no entry starts with " + args
                                   : "sepp: /branch: " + args + " names " + std::to_string(matches.size()) + " entries; give more of the id");
      return;
    }
    return branch_at(matches[0]);
  }
  // Your messages on the current path, newest first.
  std::vector<Picker::Item> items;
  size_t steps = 0;  // a damaged tree cannot loop this
  for (std::string id = tree.value("leaf", ""); !id.empty() && steps++ <= parent_of.size();) {
    if (role_of[id] == "user" && !text[id].empty()) items.push_back({id, OneLine(text[id], 70), id.substr(0, 8)});
    auto p = parent_of.find(id);
    if (p == parent_of.end()) break;
    id = p->second;
  }
  if (items.empty()) {
    view_.Notice("sepp: /branch: you have not sent a message in this session yet");
    return;
  }
  picker_.Open("branch from one of your messages (it comes back into the editor)", std::move(items), branch_at);
}

void Interaction::ApplySetting(const std::string& key, const std::string& value) {
  if (key == "model") {
    if (Status st = session_.SetModel(value); !st.ok()) return view_.Notice("sepp: " + st.error().message);
  } else if (key == "thinking") {
    runtime::ThinkingLevel level;
    if (!runtime::ParseThinkingLevel(value, &level))
      return view_.Notice("sepp: /settings thinking: one of off, minimal, low, medium, high, xhigh");
    if (Status st = session_.SetThinking(level); !st.ok()) return view_.Notice("sepp: " + st.error().message);
  } else if (key == "theme") {
    if (!switch_theme_) return view_.Notice("sepp: /settings theme: themes cannot change here");
    std::string error = switch_theme_(value);
    // A theme that does not load is not saved: the next start would fail
    // the same way.
    if (!error.empty()) return view_.Notice("sepp: " + error);
    theme_name_ = value;
  } else {
    return view_.Notice("sepp: /settings: model, thinking or theme (then a value, or a picker)");
  }
  UpdateFooter();
  Status saved = runtime::SaveUserSetting(key, value);
  view_.Notice(saved.ok() ? key + ": " + value + " (now, and saved in " + (SeppHome() / "settings.toml").string() + ")"
                          : key + ": " + value + " for now; not saved: " + saved.error().message);
}

void Interaction::CmdSettings(const std::string& args) {
  std::string key = args.substr(0, args.find(' '));
  std::string value;
  if (size_t sp = args.find(' '); sp != std::string::npos && args.find_first_not_of(' ', sp) != std::string::npos)
    value = args.substr(args.find_first_not_of(' ', sp));
  auto apply = [this, key](const std::string& v) { ApplySetting(key, v); };
  if (!key.empty() && !value.empty()) return ApplySetting(key, value);
  if (key == "model") return PickModel(apply);
  if (key == "thinking") return PickThinking(apply);
  if (key == "theme") return PickTheme(apply);
  if (!key.empty()) return view_.Notice("sepp: /settings: model, thinking or theme (then a value, or a picker)");

  runtime::SessionState state = session_.GetState();
  auto settings = runtime::LoadSettings(state.cwd);
  auto saved = [](const std::string& v) { return v.empty() ? std::string("not set") : "\u201c" + v + "\u201d"; };
  std::string text = "settings (" + (SeppHome() / "settings.toml").string() + ", then .sepp/settings.toml):\n";
  if (!settings.ok()) {
    text += "  sepp: " + settings.error().message + "\n";
  } else {
    text += "  model      " + state.model + "  (saved: " + saved(settings->model) + ")\n";
    text += "  thinking   " + std::string(runtime::ToString(state.thinking)) + "  (saved: " + saved(settings->thinking) + ")\n";
    std::string theme = !theme_name_.empty() ? theme_name_ : settings->theme.empty() ? "from the terminal's background" : settings->theme;
    text += "  theme      " + theme + "  (saved: " + saved(settings->theme) + ")\n";
    text += "  session store  " + std::string(session::StoreKindName(settings->session_store)) + "\n";
    for (const auto& w : settings->warnings) text += "  " + w + "\n";
  }
  text += "Enter on one changes it now and saves it as the default (-m, SEPP_MODEL and --thinking still win)";
  view_.Notice(text);
  std::vector<Picker::Item> items = {{"model", "model", state.model},
                                     {"thinking", "thinking", runtime::ToString(state.thinking)},
                                     {"theme", "theme", theme_name_.empty() && settings.ok() ? settings->theme : theme_name_}};
  picker_.Open("settings: Enter changes one", std::move(items), [this](const std::string& k) { CmdSettings(k); });
}

}  // namespace sepp::front::tui
