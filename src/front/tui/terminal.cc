#include "front/tui/terminal.h"

#include <signal.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace sepp::front::tui {

// Bracketed paste on; kitty keyboard protocol flag 1 pushed; modifyOtherKeys
// level 2. A terminal ignores what it does not know.
const char TerminalSession::kEnterModes[] = "\x1b[?2004h\x1b[>1u\x1b[>4;2m";
// The reverse, and the cursor shown; first the scroll region the renderer
// may have left set (InlineRenderer::set_scroll_region) is taken off, the
// cursor saved around it (DECSTBM homes it).
const char TerminalSession::kLeaveModes[] = "\x1b" "7\x1b[r\x1b" "8\x1b[<u\x1b[>4;0m\x1b[?2004l\x1b[?25h\x1b[?2026l";

namespace {

// The saved state for the signal handler: plain data, set before the
// handlers are installed.
struct Saved {
  int in_fd = -1;
  int out_fd = -1;
  struct termios original;
};
Saved g_saved;
std::atomic<bool> g_active{false};
// The alternate screen is up (the viewer): leave it first, since the kitty
// keyboard protocol keeps one stack per screen and the modes were pushed on
// the main one.
std::atomic<bool> g_alternate{false};
constexpr char kLeaveAlternate[] = "\x1b[?1049l";

void RestoreNow() {
  if (!g_active.exchange(false)) return;
  if (g_alternate.exchange(false)) (void)!write(g_saved.out_fd, kLeaveAlternate, sizeof(kLeaveAlternate) - 1);
  (void)!write(g_saved.out_fd, TerminalSession::kLeaveModes, sizeof(TerminalSession::kLeaveModes) - 1);
  tcsetattr(g_saved.in_fd, TCSAFLUSH, &g_saved.original);
}

constexpr int kFatalSignals[] = {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL};

void OnFatalSignal(int sig) {
  RestoreNow();
  // SA_RESETHAND put the default action back: the re-raised signal kills
  // the process as it would have (no core: the process is undumpable).
  raise(sig);
}

}  // namespace

Result<std::unique_ptr<TerminalSession>> TerminalSession::Enter(int in_fd, int out_fd) {
  if (g_active.load()) return Error::Make("the terminal UI is already running", "internal");
  if (!isatty(in_fd) || !isatty(out_fd)) {
    return Error::Make("the terminal UI needs a terminal on stdin and stdout; give a task with -p \"...\" otherwise", "usage");
  }
  if (tcgetattr(in_fd, &g_saved.original) != 0) {
    return Error::Make(std::string("cannot read the terminal's settings: ") + std::strerror(errno), "io");
  }
  g_saved.in_fd = in_fd;
  g_saved.out_fd = out_fd;
  struct termios raw = g_saved.original;
  cfmakeraw(&raw);
  raw.c_cc[VMIN] = 1;
  raw.c_cc[VTIME] = 0;
  if (tcsetattr(in_fd, TCSAFLUSH, &raw) != 0) {
    return Error::Make(std::string("cannot put the terminal in raw mode: ") + std::strerror(errno), "io");
  }
  g_active = true;
  static bool handlers_installed = false;
  if (!handlers_installed) {
    handlers_installed = true;
    struct sigaction sa {};
    sa.sa_handler = OnFatalSignal;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    for (int sig : kFatalSignals) sigaction(sig, &sa, nullptr);
    std::atexit(RestoreNow);
  }
  (void)!write(out_fd, kEnterModes, sizeof(kEnterModes) - 1);
  return std::unique_ptr<TerminalSession>(new TerminalSession(in_fd, out_fd));
}

TerminalSession::~TerminalSession() { Restore(); }

void TerminalSession::Restore() { RestoreNow(); }

void TerminalSession::SetAlternateScreen(bool on) { g_alternate = on; }

Status TerminalSession::Resume() {
  if (g_active.load()) return Ok();
  struct termios raw = g_saved.original;
  cfmakeraw(&raw);
  raw.c_cc[VMIN] = 1;
  raw.c_cc[VTIME] = 0;
  if (tcsetattr(in_fd_, TCSAFLUSH, &raw) != 0) {
    return Error::Make(std::string("cannot put the terminal back in raw mode: ") + std::strerror(errno), "io");
  }
  g_active = true;
  (void)!write(out_fd_, kEnterModes, sizeof(kEnterModes) - 1);
  return Ok();
}

TerminalSize TerminalSession::Size() const {
  struct winsize ws {};
  TerminalSize size;
  if (ioctl(out_fd_, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 && ws.ws_row > 0) {
    size.cols = ws.ws_col;
    size.rows = ws.ws_row;
  }
  return size;
}

}  // namespace sepp::front::tui
