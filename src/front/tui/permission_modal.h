// PermissionModal: the runtime's permission requests (PermissionBroker,
// docs/permissions.md) as the terminal UI asks them. It shows what the
// sandbox refused (the typed denials), what would be widened, the model's
// reason and, for "always for this project", the exact policy change; the
// user picks allow once / for this session / always for this project /
// deny with 1-4 (or y, s, p, n), or moves with Up/Down and confirms with
// Enter; Esc denies. Requests that arrive together are asked one at a time.
//
// It never takes a key typed before it was drawn: the caller hands it keys
// only while it is open, and opens it (Open) after the input that was
// already waiting went to the editor.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "agent/permission_gate.h"
#include "front/tui/key_decoder.h"
#include "front/tui/text.h"
#include "runtime/agent_session.h"

namespace sepp::front::tui {

class PermissionModal {
 public:
  struct Answer {
    std::string request_id;
    agent::PermissionAnswer answer;
  };

  // Queues a request (a duplicate id is ignored).
  void Open(const runtime::PendingPermission& pending);
  // The request was resolved elsewhere (timeout, abort): drop it.
  void Drop(const std::string& request_id);
  bool open() const { return !queue_.empty(); }
  const std::string& current_id() const { return queue_.front().request.id; }

  // A key while open: an answer when one was chosen (the request leaves
  // the queue), else nullopt (moved, or a key that means nothing here).
  std::optional<Answer> Handle(const InputEvent& e);

  // The modal as live lines, for the width the renderer wraps to.
  std::vector<Line> Render() const;

 private:
  Answer Choose(agent::PermissionChoice c);

  std::vector<runtime::PendingPermission> queue_;
  int selected_ = 0;  // 0..3: once, session, project, deny
};

}  // namespace sepp::front::tui
