// TerminalSession: the terminal in the state the UI needs (raw input,
// bracketed paste, the kitty keyboard protocol's "disambiguate" flag and
// xterm's modifyOtherKeys for Shift+Enter) and back again on every way out:
// the destructor, exit(), and fatal signals (SIGSEGV, SIGABRT, SIGBUS,
// SIGFPE, SIGILL), whose handler restores with write() and tcsetattr() only
// (both async-signal-safe) and then lets the signal kill the process. The
// alternate screen (the viewer) is left first when it is up.
#pragma once
#include <termios.h>

#include <memory>

#include "base/result.h"

namespace sepp::front::tui {

struct TerminalSize {
  int cols = 80;
  int rows = 24;
};

class TerminalSession {
 public:
  // One at a time per process.
  static Result<std::unique_ptr<TerminalSession>> Enter(int in_fd, int out_fd);
  ~TerminalSession();
  TerminalSession(const TerminalSession&) = delete;
  TerminalSession& operator=(const TerminalSession&) = delete;

  TerminalSize Size() const;
  // Restores the terminal now (idempotent; the destructor calls it).
  void Restore();
  // Hands the terminal to another program ($EDITOR) and takes it back:
  // Suspend is Restore; Resume puts raw mode and the modes back.
  void Suspend() { Restore(); }
  // Whether the bytes about to be written leave the terminal on the
  // alternate screen: set before they are written, so that a crash at any
  // point after restores the main screen too.
  void SetAlternateScreen(bool on);
  Status Resume();

  // The bytes that switch the modes on and off (tests check them).
  static const char kEnterModes[];
  static const char kLeaveModes[];

 private:
  TerminalSession(int in_fd, int out_fd) : in_fd_(in_fd), out_fd_(out_fd) {}
  int in_fd_;
  int out_fd_;
};

}  // namespace sepp::front::tui
