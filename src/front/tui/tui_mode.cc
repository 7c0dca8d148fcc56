#include "front/tui/tui_mode.h"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <fcntl.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <thread>

#include "base/file.h"
#include "base/json.h"
#include "base/paths.h"
#include "front/tui/chat_view.h"
#include "front/tui/frame_pacer.h"
#include "front/tui/interaction.h"
#include "front/tui/prompt_history.h"
#include "front/tui/scroll_region_support.h"
#include "front/tui/terminal.h"
#include "front/tui/terminal_replies.h"
#include "front/tui/theme_watcher.h"
#include "runtime/settings.h"

namespace sepp::front::tui {
namespace {

// How long a lone Esc waits for the rest of a sequence before it counts.
constexpr std::chrono::milliseconds kEscWait{25};
// How many of a resumed session's last messages are written at start.
constexpr size_t kHistoryMessages = 40;
using Clock = std::chrono::steady_clock;

bool WriteAll(int fd, const std::string& bytes) {
  size_t off = 0;
  while (off < bytes.size()) {
    ssize_t n = write(fd, bytes.data() + off, bytes.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    off += static_cast<size_t>(n);
  }
  return true;
}

// The runtime's events, handed from a reader thread to the loop; a byte on
// the pipe wakes the loop's poll().
class EventPump {
 public:
  explicit EventPump(std::shared_ptr<runtime::Subscription> sub) : sub_(std::move(sub)) {
    if (pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0) wake_[0] = wake_[1] = -1;
    thread_ = std::thread([this] {
      agent::Event e(agent::EventType::kError);
      while (sub_->Pop(&e) == runtime::Subscription::Next::kEvent) {
        {
          std::lock_guard<std::mutex> lock(mu_);
          queue_.push_back(e);
        }
        char c = 1;
        (void)!write(wake_[1], &c, 1);
      }
    });
  }
  ~EventPump() {
    sub_->Close();
    thread_.join();
    close(wake_[0]);
    close(wake_[1]);
  }
  int fd() const { return wake_[0]; }
  std::deque<agent::Event> Take() {
    char buf[256];
    while (read(wake_[0], buf, sizeof buf) > 0) {
    }
    std::lock_guard<std::mutex> lock(mu_);
    return std::exchange(queue_, {});
  }

 private:
  std::shared_ptr<runtime::Subscription> sub_;
  int wake_[2];
  std::mutex mu_;
  std::deque<agent::Event> queue_;
  std::thread thread_;
};

// SEPP_TUI_STATS=<file>: what drawing cost, as one JSON object, written at
// exit for the benchmarks (bench/tui/peers.sh) and for looking into a slow
// terminal. Nothing is written without it.
void WriteRenderStats(const RenderStats& st) {
  const char* path = std::getenv("SEPP_TUI_STATS");
  if (!path || !*path) return;
  Json j = {{"frames", st.frames},
            {"bytes", st.bytes},
            {"bytes_per_frame", st.frames ? st.bytes / st.frames : 0},
            {"max_frame_bytes", st.max_frame_bytes},
            {"rows_written", st.rows_written},
            {"lines_committed", st.lines_committed},
            {"committed_in_place", st.committed_in_place},
            {"full_redraws", st.full_redraws},
            {"region_scrolls", st.region_scrolls},
            {"render_ms", static_cast<double>(st.render_ns) / 1e6},
            {"frame_p50_us", st.FrameTimeQuantileUs(0.5)},
            {"frame_p99_us", st.FrameTimeQuantileUs(0.99)}};
  if (auto st2 = WriteFileAtomic(path, DumpJson(j) + "\n"); !st2.ok()) {
    std::fprintf(stderr, "sepp: SEPP_TUI_STATS: %s\n", st2.error().message.c_str());
  }
}

}  // namespace

int RunTui(runtime::AgentSession& session, const TuiOptions& options) {
  auto term = TerminalSession::Enter(options.in_fd, options.out_fd);
  if (!term.ok()) {
    std::fprintf(stderr, "sepp: %s\n", term.error().message.c_str());
    return 2;
  }
  sigset_t signals;
  sigemptyset(&signals);
  for (int sig : {SIGWINCH, SIGTERM, SIGHUP, SIGINT}) sigaddset(&signals, sig);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  int sig_fd = signalfd(-1, &signals, SFD_CLOEXEC | SFD_NONBLOCK);

  TerminalSize size = (*term)->Size();
  InlineRenderer renderer(size.cols, size.rows);
  // A stream scrolled with a scroll region only where its lines are kept:
  // by the environment now, and again by the terminal's XTVERSION answer
  // when the start-up replies are in (before the stream reaches the
  // screen's bottom, where the region is first used).
  auto getenv = [](const char* name) { return std::getenv(name); };
  renderer.set_scroll_region(ScrollRegionKeepsScrollback(getenv));
  ChatView view(&renderer);
  runtime::SessionState state = session.GetState();
  KeyDecoder decoder;
  EventPump pump(session.Subscribe());
  // Synchronized output only once the terminal said it has it.
  TerminalReplies replies;
  WriteAll(options.out_fd, TerminalReplies::Query());
  auto settings = runtime::LoadSettings(state.cwd);
  ThemeWatcher themes(SeppHome() / "themes", settings.ok() ? settings->theme : "");
  std::string theme_error;
  themes.Load(&theme_error);
  view.SetTheme(themes.theme());
  if (!theme_error.empty()) view.Notice("sepp: " + theme_error);
  // No theme in the settings: the terminal's background picks light or dark.
  bool theme_from_background = !settings.ok() || settings->theme.empty();
  Interaction ui(session, view, renderer, **term, options.out_fd,
                 PromptHistory(PromptHistory::FileFor(state.cwd)));
  ui.SetThemeSwitch([&](const std::string& name) {
    themes.SetName(name);
    std::string error;
    themes.Load(&error);
    view.SetTheme(themes.theme());
    theme_from_background = false;  // chosen: the background no longer picks
    return error;
  });
  // Prompt templates and skills: the runtime expands "/name args", so the
  // table only sends them; built-ins keep their names.
  for (const auto& c : session.Commands())
    ui.commands().Add({c.name, c.argument_hint, c.description.empty() ? c.source : c.description,
                       [&ui, name = c.name](const std::string& args) {
                         ui.Send("/" + name + (args.empty() ? "" : " " + args));
                       }});

  // A resumed session (-c, -r): its tail, not its whole history.
  view.ShowHistory(session.Messages(), kHistoryMessages);
  view.Notice("sepp: Enter sends, Shift+Enter or Ctrl+J starts a new line, Esc aborts, /help lists commands, Ctrl+D quits");

  Clock::time_point esc_deadline{};
  // Decodes what the terminal sent; true when it read anything.
  auto read_input = [&]() -> int {
    char buf[65536];
    ssize_t n = read(options.in_fd, buf, sizeof buf);
    if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) return -1;  // the terminal went away
    if (n < 0) return 0;
    bool was_pending = decoder.pending();
    // The terminal's answers to the start-up queries are not keys.
    bool replies_done = replies.done();
    std::string keys = replies.Filter(std::string_view(buf, static_cast<size_t>(n)));
    renderer.set_synchronized_output(replies.synchronized_output());
    if (!replies_done && replies.done())
      renderer.set_scroll_region(ScrollRegionKeepsScrollback(getenv, replies.terminal_version()));
    if (theme_from_background && replies.background_known()) {
      theme_from_background = false;  // once: the user's own choice is never overridden
      if (replies.light_background()) view.SetTheme(Theme::Light());
    }
    for (const auto& e : decoder.Feed(keys)) ui.Handle(e);
    if (decoder.pending() && !was_pending) esc_deadline = Clock::now() + kEscWait;
    return 1;
  };
  // Before the permission modal opens: the keys already typed go to the
  // editor, not to the modal.
  ui.SetDrainInput([&] {
    struct pollfd p = {options.in_fd, POLLIN, 0};
    while (poll(&p, 1, 0) == 1 && (p.revents & POLLIN) && read_input() > 0) {
    }
    if (decoder.pending())
      for (const auto& e : decoder.Flush()) ui.Handle(e);
  });

  // Frames (frame_pacer.h): a key or a resize draws at once, the runtime's
  // events at most once per interval; nothing pending: poll() sleeps
  // without a timeout (no wake-ups when idle).
  FramePacer pacer;
  bool quit_signal = false;
  while (!ui.quit() && !quit_signal) {
    Clock::time_point now = Clock::now();
    if (pacer.Due(now)) {
      if (!WriteAll(options.out_fd, ui.Frame())) break;
      pacer.Drawn(now);
    }
    int timeout = -1;
    auto until = [&](Clock::time_point t) {
      auto ms = std::chrono::ceil<std::chrono::milliseconds>(t - now).count();
      int wait = static_cast<int>(std::max<int64_t>(ms, 0));
      timeout = timeout < 0 ? wait : std::min(timeout, wait);
    };
    if (pacer.pending()) until(pacer.deadline());
    if (decoder.pending()) until(esc_deadline);
    struct pollfd fds[4] = {{options.in_fd, POLLIN, 0}, {sig_fd, POLLIN, 0}, {pump.fd(), POLLIN, 0},
                            {themes.fd(), POLLIN, 0}};
    int ready = poll(fds, 4, timeout);
    if (ready < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (decoder.pending() && Clock::now() >= esc_deadline) {
      for (const auto& e : decoder.Flush()) ui.Handle(e);  // a lone Esc
      pacer.Urgent();
    }
    if (ready == 0) continue;
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      if (read_input() < 0) break;
      pacer.Urgent();
    }
    if (fds[1].revents & POLLIN) {
      struct signalfd_siginfo si;
      while (read(sig_fd, &si, sizeof si) == sizeof si) {
        if (si.ssi_signo == SIGWINCH) {
          TerminalSize size_now = (*term)->Size();
          ui.Resize(size_now.cols, size_now.rows);
          pacer.Urgent();
        } else {
          quit_signal = true;  // SIGTERM, SIGHUP, SIGINT
        }
      }
    }
    if (fds[2].revents & POLLIN) {
      for (const auto& e : pump.Take()) ui.OnEvent(e);
      pacer.Changed();
    }
    if ((fds[3].revents & POLLIN) && themes.Changed()) {
      themes.Load(&theme_error);
      view.SetTheme(themes.theme());
      view.Notice(theme_error.empty() ? "theme " + themes.theme().name + " loaded" : "sepp: " + theme_error);
      pacer.Urgent();
    }
  }
  session.Abort();
  WriteAll(options.out_fd, ui.Finish());
  (*term)->Restore();
  WriteRenderStats(renderer.stats());
  if (sig_fd >= 0) close(sig_fd);
  return 0;
}

}  // namespace sepp::front::tui
