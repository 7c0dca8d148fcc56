#include "front/tui/interaction.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "base/strings.h"
#include "agent/compaction.h"
#include "front/tui/external_editor.h"
#include "front/tui/git_branch.h"
#include "llm/models.h"

namespace sepp::front::tui {
namespace {

constexpr Style kDimStyle{.dim = true};
constexpr Style kSelectedStyle{.inverse = true};
constexpr Style kSearchStyle{.fg = 4, .bold = true};
constexpr size_t kCompletionRows = 8;

}  // namespace

Interaction::Interaction(runtime::AgentSession& session, ChatView& view, InlineRenderer& renderer,
                         TerminalSession& term, int out_fd, PromptHistory history)
    : session_(session),
      view_(view),
      renderer_(renderer),
      term_(term),
      out_fd_(out_fd),
      history_(std::move(history)),
      files_(session.GetState().cwd) {
  TerminalSize size = term_.Size();
  cols_ = size.cols;
  rows_ = size.rows;
  AddBuiltinCommands();
  UpdateFooter();  // a resumed session's name, the thinking level from the settings
}

void Interaction::UpdateFooter() {
  runtime::SessionState state = session_.GetState();
  FooterInfo info;
  info.cwd = state.cwd.string();
  info.model = state.model;
  info.context_window = llm::LookupModel(state.provider, state.model).context_window;
  info.branch = GitBranch(state.cwd);
  info.session_name = state.session_name;
  info.thinking = runtime::ToString(state.thinking);
  // The loop compacts at the window minus its reserve (agent.cc); the
  // session uses the default reserve (no setting changes it).
  if (!state.auto_compaction) info.compacts_at = -1;
  else if (info.context_window > agent::CompactionSettings{}.reserve_tokens)
    info.compacts_at = info.context_window - agent::CompactionSettings{}.reserve_tokens;
  info.sandbox = !state.sandbox_enabled ? FooterInfo::Sandbox::kOff
                 : state.sandbox_pid > 0 ? FooterInfo::Sandbox::kRunning
                                         : FooterInfo::Sandbox::kOn;
  view_.SetFooter(std::move(info));
}

void Interaction::Resize(int cols, int rows) {
  cols_ = cols;
  rows_ = rows;
  renderer_.Resize(cols, rows);
  if (viewer_.open()) viewer_.Resize(cols, rows);
  viewer_dirty_ = true;
}

std::string Interaction::Frame() {
  std::string out = std::exchange(out_, {});
  term_.SetAlternateScreen(viewer_.open());
  if (viewer_.open()) {
    // The alternate screen shares the main one's scroll region: off first.
    out = renderer_.ReleaseScrollRegion() + out;
    // The runtime's events do not change the viewer: redraw on keys only.
    if (std::exchange(viewer_dirty_, false)) out += viewer_.Frame();
    return out;
  }
  view_.Refresh(editor_, Panel());
  return out + renderer_.Frame();
}

std::string Interaction::Finish() {
  std::string out = std::exchange(out_, {});
  if (viewer_.open()) out += viewer_.Close();
  term_.SetAlternateScreen(false);
  view_.Refresh(editor_, Panel());
  return out + renderer_.Finish();
}

// ---- keys

void Interaction::Handle(const InputEvent& e) {
  if (viewer_.open()) {
    viewer_.Handle(e);
    viewer_dirty_ = true;
    if (!viewer_.open()) out_ += viewer_.Close();
    return;
  }
  if (modal_.open()) {
    if (auto a = modal_.Handle(e)) {
      Status st = session_.AnswerPermission(a->request_id, a->answer);
      if (!st.ok()) view_.Notice("sepp: " + st.error().message);
      else view_.Notice(std::string("permission: ") + agent::ToString(a->answer.choice));
    }
    return;
  }
  if (question_modal_.open()) {
    if (auto a = question_modal_.Handle(e)) {
      Status st = a->declined ? session_.DeclineQuestion(a->question_id)
                              : session_.AnswerQuestion(a->question_id, a->values);
      if (!st.ok()) view_.Notice("sepp: " + st.error().message);
      else view_.Notice(a->declined ? "question declined" : "question answered");
    }
    return;
  }
  if (picker_.open()) {
    picker_.Handle(e);
    return;
  }
  if (search_.active && HandleSearch(e)) return;
  if (completion_.shown && HandleCompletion(e)) return;

  // Alt+Up with messages queued: they come back into the editor (above what
  // is being written) and leave the queue, to be changed or dropped.
  if (e.type == InputEvent::Type::kKey && e.key == Key::kUp && (e.mods & kAlt) && view_.queued() > 0) {
    PullQueue();
    return;
  }

  std::string before = editor_.text();
  Editor::Action action = editor_.Handle(e);
  if (action != Editor::Action::kInterrupt) ctrl_c_armed_ = false;
  HandleEditorAction(action);
  if (editor_.text() != before) {
    completion_dismissed_ = false;
    if (action == Editor::Action::kNone) history_.ResetBrowse();
  }
  UpdateCompletion();
}

void Interaction::IntoEditor(const runtime::QueueState& queued) {
  std::string back;
  for (const auto* list : {&queued.steering, &queued.follow_up}) {
    for (const auto& m : *list) back += (back.empty() ? "" : "\n") + m;
  }
  if (!back.empty()) editor_.SetText(back + (editor_.empty() ? "" : "\n" + editor_.text()));
}

void Interaction::PullQueue() {
  runtime::QueueState queued = session_.ClearQueue();
  size_t n = queued.steering.size() + queued.follow_up.size();
  IntoEditor(queued);
  // The runtime's queue.updated event clears the view's list; a pull that
  // found the queue already drained (the steer just went in) says so.
  view_.Notice(n == 0 ? "the queue was empty: its messages had gone in"
                      : std::to_string(n) + (n == 1 ? " queued message" : " queued messages") +
                            " back in the editor");
}

void Interaction::HandleEditorAction(Editor::Action action) {
  switch (action) {
    case Editor::Action::kSubmit: Submit(false); break;
    case Editor::Action::kAltEnter:
      if (view_.busy()) Submit(true);
      else editor_.Insert("\n");
      break;
    case Editor::Action::kEscape:
      if (view_.busy()) {
        IntoEditor(session_.Abort());
        view_.Notice("aborted");
      }
      break;
    case Editor::Action::kInterrupt:
      if (!editor_.empty()) {
        editor_.Take();
      } else if (ctrl_c_armed_) {
        quit_ = true;
      } else {
        ctrl_c_armed_ = true;
        view_.Notice("Ctrl+C again to quit");
      }
      break;
    case Editor::Action::kEof: quit_ = true; break;
    case Editor::Action::kHistoryPrev:
      if (auto t = history_.Older(editor_.text())) editor_.SetText(*t);
      break;
    case Editor::Action::kHistoryNext:
      if (auto t = history_.Newer()) editor_.SetText(*t);
      break;
    case Editor::Action::kSearch:
      search_ = {true, "", -1};
      break;
    case Editor::Action::kExternal: EditExternally(); break;
    case Editor::Action::kComplete: CompletePathAtCaret(); break;
    case Editor::Action::kViewer: CmdView("tool 1"); break;
    case Editor::Action::kCalls: CmdCalls(); break;
    case Editor::Action::kToggleTools:
      view_.SetToolsExpanded(!view_.tools_expanded());
      view_.Notice(view_.tools_expanded()
                       ? "tool calls expanded: " + std::to_string(ChatView::kExpandedToolLines) +
                             " lines of output each from now on (Ctrl+T collapses, Alt+T shows the last one whole)"
                       : "tool calls collapsed: the last " + std::to_string(ChatView::kToolTailLines) +
                             " lines of output each (Ctrl+T expands)");
      break;
    case Editor::Action::kExpandLast:
      if (!view_.ExpandLastTool()) view_.Notice("sepp: no tool call has finished yet");
      break;
    case Editor::Action::kNone: break;
  }
}

void Interaction::Submit(bool follow_up) {
  std::string text = editor_.Take();
  completion_ = {};
  if (text.find_first_not_of(" \t\n") == std::string::npos) return;
  if (std::string msg = history_.Add(text); !msg.empty()) view_.Notice("sepp: " + msg);
  std::string name, args;
  if (ParseSlash(text, &name, &args)) {
    RunCommand(text);
    return;
  }
  if (text.rfind("//", 0) == 0) text.erase(0, 1);  // "//x" sends "/x"
  Send(std::move(text), follow_up);
}

void Interaction::Send(std::string text, bool follow_up) {
  Status st = Ok();
  if (follow_up) {
    st = session_.FollowUp(text);
  } else if (!view_.busy()) {
    st = session_.Prompt(text);
    if (!st.ok() && st.error().kind == "busy") st = session_.Steer(text);
  } else {
    st = session_.Steer(text);
  }
  if (!st.ok()) {
    view_.Notice("sepp: " + st.error().message);
    editor_.SetText(text);
  }
}

void Interaction::RunCommand(const std::string& text) {
  std::string name, args;
  ParseSlash(text, &name, &args);
  const SlashCommand* c = commands_.Find(name);
  if (!c) {
    auto close = commands_.Matching(name);
    std::string hint = close.empty() ? "" : " (did you mean /" + close[0]->name + "?)";
    view_.Notice("sepp: unknown command /" + name + hint + "; /help lists them, and //" + name +
                 " sends the text as a prompt");
    return;
  }
  c->run(args);
}

bool Interaction::HandleSearch(const InputEvent& e) {
  auto find = [&](int before) {
    search_.match = history_.Search(search_.query, before);
  };
  if (e.type == InputEvent::Type::kPaste) {
    search_.query += e.text;
    find(static_cast<int>(history_.entries().size()));
    return true;
  }
  const bool ctrl = e.mods & kCtrl;
  if (e.key == Key::kChar && ctrl && e.codepoint == 'r') {
    // Ctrl+R again: the next older match.
    find(search_.match >= 0 ? search_.match : static_cast<int>(history_.entries().size()));
    return true;
  }
  if (e.key == Key::kEscape || (e.key == Key::kChar && ctrl && (e.codepoint == 'g' || e.codepoint == 'c'))) {
    search_ = {};
    return true;
  }
  if (e.key == Key::kBackspace) {
    if (!search_.query.empty()) search_.query.pop_back();
    find(static_cast<int>(history_.entries().size()));
    return true;
  }
  if (e.key == Key::kChar && !ctrl && !(e.mods & kAlt) && e.codepoint >= 0x20) {
    AppendUtf8(e.codepoint, &search_.query);
    find(static_cast<int>(history_.entries().size()));
    return true;
  }
  // Anything else takes the match into the editor; Enter stops there (the
  // user may still edit it), other keys go on to the editor.
  if (search_.match >= 0) editor_.SetText(history_.entries()[search_.match]);
  search_ = {};
  return e.key == Key::kEnter;
}

// ---- completion

void Interaction::UpdateCompletion() {
  completion_.shown = false;
  if (completion_dismissed_) return;
  const std::string& text = editor_.text();
  size_t caret = editor_.cursor();
  // A /command: the first word, the caret inside it.
  if (text.size() >= 1 && text[0] == '/' && text.find_first_of(" \n") >= caret && text.rfind("//", 0) != 0) {
    std::string typed = text.substr(1, caret - 1);
    completion_ = {};
    completion_.slash = true;
    completion_.from = 0;
    completion_.to = std::min(text.find_first_of(" \n"), text.size());
    for (const SlashCommand* c : commands_.Matching(typed)) {
      completion_.values.push_back("/" + c->name);
      completion_.labels.push_back("/" + c->name + (c->args.empty() ? "" : " " + c->args) + "  " + c->description);
    }
    completion_.shown = !completion_.values.empty();
    return;
  }
  // An @path: the word before the caret.
  size_t start = text.find_last_of(" \n\t", caret == 0 ? 0 : caret - 1);
  start = (start == std::string::npos || caret == 0) ? 0 : start + 1;
  if (caret == 0 || start >= caret || text[start] != '@') return;
  std::string query = text.substr(start + 1, caret - start - 1);
  completion_ = {};
  completion_.from = start;
  completion_.to = caret;
  for (auto& p : files_.Matching(query, 50)) {
    completion_.labels.push_back(p);
    completion_.values.push_back("@" + p);
  }
  completion_.shown = !completion_.values.empty();
}

void Interaction::Accept(size_t index) {
  if (index >= completion_.values.size()) return;
  std::string value = completion_.values[index];
  bool folder = !value.empty() && value.back() == '/';
  // A folder keeps completing below it; a file or a command ends with a space.
  if (!folder && !(completion_.to < editor_.text().size() && editor_.text()[completion_.to] == ' ')) value += " ";
  editor_.Replace(completion_.from, completion_.to, value);
  completion_ = {};
  UpdateCompletion();
}

bool Interaction::HandleCompletion(const InputEvent& e) {
  if (e.type != InputEvent::Type::kKey) return false;
  size_t n = completion_.values.size();
  switch (e.key) {
    case Key::kUp: completion_.selected = (completion_.selected + n - 1) % n; return true;
    case Key::kDown: completion_.selected = (completion_.selected + 1) % n; return true;
    case Key::kTab: Accept(completion_.selected); return true;
    case Key::kEscape:
      completion_ = {};
      completion_dismissed_ = true;
      return true;
    case Key::kEnter: {
      if (e.mods) return false;
      if (!completion_.slash) {
        Accept(completion_.selected);
        return true;
      }
      // "/mo" + Enter runs the command the list has selected; a complete
      // name runs as typed.
      std::string name, args;
      if (ParseSlash(editor_.text(), &name, &args) && commands_.Find(name)) return false;
      Accept(completion_.selected);
      Submit(false);
      return true;
    }
    default: return false;
  }
}

// Tab outside a list: complete the word before the caret as a path.
void Interaction::CompletePathAtCaret() {
  const std::string& text = editor_.text();
  size_t caret = editor_.cursor();
  size_t start = caret == 0 ? std::string::npos : text.find_last_of(" \n\t", caret - 1);
  start = start == std::string::npos ? 0 : start + 1;
  std::string word = text.substr(start, caret - start);
  if (word.empty()) {
    editor_.Insert("    ");
    return;
  }
  namespace fs = std::filesystem;
  std::string prefix = word[0] == '@' ? "@" : "";
  std::string path = word.substr(prefix.size());
  std::string expanded = path;
  if (expanded.rfind("~/", 0) == 0) {
    if (const char* home = std::getenv("HOME")) expanded = std::string(home) + expanded.substr(1);
  }
  size_t slash = expanded.rfind('/');
  std::string dir = slash == std::string::npos ? "" : expanded.substr(0, slash + 1);
  std::string base = slash == std::string::npos ? expanded : expanded.substr(slash + 1);
  fs::path look = dir.empty() ? session_.GetState().cwd : fs::path(dir).is_absolute() ? fs::path(dir) : session_.GetState().cwd / dir;
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(look, ec), end; !ec && it != end && names.size() < 200; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.rfind(base, 0) != 0) continue;
    if (base.empty() && name[0] == '.') continue;
    std::error_code tec;
    names.push_back(name + (it->is_directory(tec) ? "/" : ""));
  }
  if (names.empty()) return;
  std::sort(names.begin(), names.end());
  std::string typed_dir = slash == std::string::npos ? "" : path.substr(0, path.rfind('/') + 1);
  if (names.size() == 1) {
    editor_.Replace(start, caret, prefix + typed_dir + names[0]);
    return;
  }
  // Several: the common prefix now, and the list to choose from.
  std::string common = names[0];
  for (const auto& n : names)
    common.resize(std::mismatch(common.begin(), common.end(), n.begin(), n.end()).first - common.begin());
  if (common.size() > base.size()) editor_.Replace(start, caret, prefix + typed_dir + common);
  completion_ = {};
  completion_.from = start;
  completion_.to = editor_.cursor();
  for (const auto& n : names) {
    completion_.values.push_back(prefix + typed_dir + n);
    completion_.labels.push_back(typed_dir + n);
  }
  completion_.shown = true;
}

// ---- events

void Interaction::OnEvent(const agent::Event& e) {
  using agent::EventType;
  view_.OnEvent(e);
  switch (e.type) {
    case EventType::kPermissionRequested: OpenPermission(e.data.value("request_id", std::string())); break;
    case EventType::kPermissionResolved:
      if (e.data.is_object()) modal_.Drop(e.data.value("request_id", std::string()));
      break;
    case EventType::kBackgroundFinished:
      for (size_t i = 0; i < background_agents_.size(); ++i) {
        if (background_agents_[i] != e.call_id) continue;
        view_.Notice(std::string(e.is_error ? "a sub-agent in the background ended without a report: "
                                            : "a sub-agent in the background finished: ") +
                     background_summaries_[i] + " (the model reads its report at the next turn)");
        background_agents_.erase(background_agents_.begin() + static_cast<long>(i));
        background_summaries_.erase(background_summaries_.begin() + static_cast<long>(i));
        break;
      }
      break;
    case EventType::kQuestionRequested: OpenQuestion(e.data.value("question_id", std::string())); break;
    case EventType::kQuestionResolved:
      if (e.data.is_object()) question_modal_.Drop(e.data.value("question_id", std::string()));
      break;
    case EventType::kToolStarted:
      if (e.parent_call_id.empty()) {
        running_calls_.push_back(e.call_id);
        running_summaries_.push_back(e.summary.empty() ? e.tool : e.summary);
      }
      break;
    case EventType::kToolFinished:
      for (size_t i = 0; i < running_calls_.size(); ++i) {
        if (running_calls_[i] != e.call_id) continue;
        if (e.tool == "agent" && e.data.is_object() && e.data.contains("details") &&
            e.data["details"].is_object() && e.data["details"].value("background", false)) {
          background_agents_.push_back(e.call_id);
          background_summaries_.push_back(running_summaries_[i]);
        }
        running_calls_.erase(running_calls_.begin() + static_cast<long>(i));
        running_summaries_.erase(running_summaries_.begin() + static_cast<long>(i));
        break;
      }
      // The first call that ran in the session sandbox started it.
      if (e.parent_call_id.empty()) UpdateFooter();
      break;
    case EventType::kAgentSettled:
      running_calls_.clear();
      running_summaries_.clear();
      UpdateFooter();  // the turn may have switched the git branch
      break;
    default: break;
  }
  if (compacting_ && compacting_->wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
    auto r = compacting_->get();
    compacting_.reset();
    if (!r.ok()) view_.Notice("sepp: compaction failed: " + r.error().message);
    else view_.Notice("compacted: the older context is now a summary");
  }
}

void Interaction::OpenPermission(const std::string& request_id) {
  // Whatever was typed before the modal appears belongs to the editor.
  if (drain_input_) drain_input_();
  for (const auto& p : session_.PendingPermissions()) {
    if (p.request.id == request_id) {
      completion_.shown = false;
      modal_.Open(p);
      return;
    }
  }
}

void Interaction::OpenQuestion(const std::string& question_id) {
  if (drain_input_) drain_input_();
  for (const auto& q : session_.PendingQuestions()) {
    if (q.question.id == question_id) {
      completion_.shown = false;
      question_modal_.Open(q);
      return;
    }
  }
}

// ---- $EDITOR and the viewer

void Interaction::EditExternally() {
  // The terminal goes to the editor: below the live region, modes off.
  view_.Refresh(editor_, Panel());
  // Finish() draws the pending frame itself; separate statements keep the
  // order of the bytes (the operands of + are not sequenced).
  std::string bytes = std::exchange(out_, {});
  bytes += renderer_.Finish();
  for (size_t off = 0; off < bytes.size();) {
    ssize_t n = write(out_fd_, bytes.data() + off, bytes.size() - off);
    if (n <= 0) break;
    off += static_cast<size_t>(n);
  }
  term_.Suspend();
  auto edited = EditInExternalEditor(editor_.text());
  if (Status st = term_.Resume(); !st.ok()) view_.Notice("sepp: " + st.error().message);
  // Finish() left the old live region in place: the next frame draws it
  // afresh below, whatever the editor left on the main screen.
  if (!edited.ok()) {
    view_.Notice("sepp: " + edited.error().message);
    return;
  }
  editor_.SetText(*edited);
}

void Interaction::OpenViewer(const std::string& title, const std::string& text) {
  viewer_.Open(title, text, cols_, rows_);
  viewer_dirty_ = true;
}

std::vector<Line> Interaction::Panel() const {
  if (modal_.open()) return modal_.Render();
  if (question_modal_.open()) return question_modal_.Render();
  if (picker_.open()) return picker_.Render();
  std::vector<Line> out;
  if (search_.active) {
    Line l;
    l.Add("history search: ", kSearchStyle).Add(Sanitize(search_.query));
    if (search_.match >= 0) {
      std::string m = history_.entries()[search_.match];
      std::replace(m.begin(), m.end(), '\n', ' ');
      l.Add("  \u2192 ", kDimStyle).Add(Sanitize(m));
    } else if (!search_.query.empty()) {
      l.Add("  (no match)", kDimStyle);
    }
    out.push_back(std::move(l));
    out.push_back(Line{}.Add("  Ctrl+R older, Enter takes it, Esc cancels", kDimStyle));
    return out;
  }
  if (completion_.shown) {
    size_t n = completion_.labels.size();
    size_t first = completion_.selected >= kCompletionRows ? completion_.selected - kCompletionRows + 1 : 0;
    for (size_t i = first; i < n && i < first + kCompletionRows; ++i) {
      Line l;
      bool sel = i == completion_.selected;
      l.Add(sel ? " \u203a " : "   ");
      l.Add(Sanitize(completion_.labels[i]), sel ? kSelectedStyle : kDimStyle);
      out.push_back(std::move(l));
    }
    if (n > kCompletionRows) out.push_back(Line{}.Add("   \u2026 " + std::to_string(n) + " in all", kDimStyle));
  }
  return out;
}

}  // namespace sepp::front::tui
