// Interaction: what the user's keys do in the terminal UI, above the
// editor: slash commands (slash_commands.h) with autocomplete, `@path`
// completion, the prompt history with Ctrl+R, $EDITOR, the permission modal,
// pickers (/resume, /tree, running calls), /copy over OSC 52 and the
// full-screen viewer. It submits operations to the session runtime and
// reads its state; ChatView draws the conversation, this adds the panel
// (modal, picker, completion list, search line) above the editor.
//
// Keys go to the first of these that is open: the viewer, the permission
// modal, a picker, the history search, the completion list, the editor.
#pragma once
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agent/compaction.h"
#include "agent/events.h"
#include "front/tui/chat_view.h"
#include "front/tui/editor.h"
#include "front/tui/file_index.h"
#include "front/tui/inline_renderer.h"
#include "front/tui/key_decoder.h"
#include "front/tui/permission_modal.h"
#include "front/tui/question_modal.h"
#include "front/tui/picker.h"
#include "front/tui/prompt_history.h"
#include "front/tui/slash_commands.h"
#include "front/tui/terminal.h"
#include "front/tui/viewer.h"
#include "runtime/agent_session.h"

namespace sepp::front::tui {

class Interaction {
 public:
  Interaction(runtime::AgentSession& session, ChatView& view, InlineRenderer& renderer,
              TerminalSession& term, int out_fd, PromptHistory history);

  // Feeds the input that is already waiting to Handle (the loop's decoder):
  // called before the permission modal opens, so that nothing typed before
  // it appeared is taken as an answer.
  void SetDrainInput(std::function<void()> drain) { drain_input_ = std::move(drain); }
  // Loads another theme by name for /settings theme; returns "" or why the
  // theme could not be loaded (the previous one stays).
  void SetThemeSwitch(std::function<std::string(const std::string&)> set) { switch_theme_ = std::move(set); }

  void Handle(const InputEvent& e);
  void OnEvent(const agent::Event& e);
  void Resize(int cols, int rows);
  // The bytes of the next frame ("" when nothing changed).
  std::string Frame();
  // The last frame on the way out (the viewer left, the cursor below).
  std::string Finish();
  bool quit() const { return quit_; }

  // Commands: the built-ins are added at construction; others (prompt
  // templates, extensions) are added by whoever sets the UI up.
  CommandTable& commands() { return commands_; }
  // Sends text to the model as typed: a prompt when idle, else a steer (or
  // a follow-up); on failure it goes back into the editor with the reason.
  void Send(std::string text, bool follow_up = false);

 private:
  struct Completion {
    bool shown = false;
    bool slash = false;  // a /command, else a path
    size_t from = 0, to = 0;  // the editor bytes the choice replaces
    std::vector<std::string> values;  // what replaces them
    std::vector<std::string> labels;  // what the list shows
    size_t selected = 0;
  };
  struct Search {
    bool active = false;
    std::string query;
    int match = -1;  // index into the history's entries
  };

  void AddBuiltinCommands();
  void Submit(bool follow_up);
  void RunCommand(const std::string& text);
  void HandleEditorAction(Editor::Action a);
  bool HandleCompletion(const InputEvent& e);
  bool HandleSearch(const InputEvent& e);
  void UpdateCompletion();
  void CompletePathAtCaret();
  void Accept(size_t index);
  void OpenPermission(const std::string& request_id);
  void OpenQuestion(const std::string& question_id);
  void EditExternally();
  void OpenViewer(const std::string& title, const std::string& text);
  void ShowSessionTail(size_t messages);
  std::vector<Line> Panel() const;
  void UpdateFooter();
  // Queued messages back into the editor, above its text.
  void IntoEditor(const runtime::QueueState& queued);
  void PullQueue();

  // The built-in commands' bodies (interaction_commands.cc).
  void CmdHelp();
  void CmdModel(const std::string& args);
  void CmdThinking(const std::string& args);
  void CmdCompact(const std::string& args);
  void CmdNew();
  void CmdResume();
  void CmdTree();
  void CmdFork(const std::string& args);
  void CmdLabel(const std::string& args);
  void CmdName(const std::string& args);
  void CmdCopy(const std::string& args);
  void CmdView(const std::string& args);
  void CmdExport(const std::string& args);
  void CmdCalls();
  void CmdDiff();
  void CmdContext();
  void CmdPermissions(const std::string& args);
  void CmdBranch(const std::string& args);
  void CmdSettings(const std::string& args);
  // Uses the setting now and saves it in the user's settings.toml.
  void ApplySetting(const std::string& key, const std::string& value);
  // The pickers /model, /thinking and /settings share.
  void PickModel(std::function<void(const std::string&)> chosen);
  void PickThinking(std::function<void(const std::string&)> chosen);
  void PickTheme(std::function<void(const std::string&)> chosen);
  // The footer's compaction mark: window minus reserve, -1 when off, 0 unknown.
  int64_t CompactsAt() const;
  // What /copy and /view address: "message" (the last answer), "code N"
  // (its Nth code block), "tool N" (the Nth latest tool output); an error
  // message in *error when there is none.
  std::optional<std::string> Target(const std::string& args, std::string* title, std::string* error) const;

  runtime::AgentSession& session_;
  ChatView& view_;
  InlineRenderer& renderer_;
  TerminalSession& term_;
  int out_fd_;
  PromptHistory history_;
  Editor editor_;
  CommandTable commands_;
  FileIndex files_;
  PermissionModal modal_;
  QuestionModal question_modal_;
  Picker picker_;
  Viewer viewer_;
  Completion completion_;
  Search search_;
  std::function<void()> drain_input_;
  std::function<std::string(const std::string&)> switch_theme_;
  std::string theme_name_;  // the one /settings set in this run ("" : from the settings file)
  std::vector<std::string> running_calls_;  // call ids, in start order
  std::vector<std::string> running_summaries_;
  // Sub-agents sent to the background (their "agent" calls returned a
  // receipt), until background.finished: Ctrl+X lists them, Enter aborts one.
  std::vector<std::string> background_agents_;
  std::vector<std::string> background_summaries_;
  std::optional<std::future<Result<agent::CompactionResult>>> compacting_;
  std::string out_;  // bytes for the next frame (OSC 52, leaving the viewer)
  int cols_ = 80, rows_ = 24;
  bool quit_ = false;
  bool ctrl_c_armed_ = false;
  bool viewer_dirty_ = false;
  bool completion_dismissed_ = false;  // Esc closed it: not again until the text changes
};

}  // namespace sepp::front::tui
