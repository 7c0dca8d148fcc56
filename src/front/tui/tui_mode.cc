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
#include <deque>
#include <mutex>
#include <thread>

#include "front/tui/chat_view.h"
#include "front/tui/interaction.h"
#include "front/tui/prompt_history.h"
#include "front/tui/terminal.h"
#include "llm/models.h"

namespace sepp::front::tui {
namespace {

// How long a lone Esc waits for the rest of a sequence before it counts.
constexpr std::chrono::milliseconds kEscWait{25};
// The shortest time between two frames drawn for the runtime's events.
constexpr std::chrono::milliseconds kFrameInterval{16};
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
  ChatView view(&renderer);
  runtime::SessionState state = session.GetState();
  view.SetFooter({state.cwd.string(), state.model,
                  llm::LookupModel(state.provider, state.model).context_window});
  KeyDecoder decoder;
  EventPump pump(session.Subscribe());
  Interaction ui(session, view, renderer, **term, options.out_fd,
                 PromptHistory(PromptHistory::FileFor(state.cwd)));

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
    for (const auto& e : decoder.Feed(std::string_view(buf, static_cast<size_t>(n)))) ui.Handle(e);
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

  // Frames: a key or a resize draws at once (typing never waits); the
  // runtime's events draw at most once per kFrameInterval, so a fast stream
  // costs a frame per interval, not one per delta. Nothing pending: poll()
  // sleeps without a timeout (no wake-ups when idle).
  Clock::time_point last_frame{};
  bool dirty = true;
  bool urgent = true;
  bool quit_signal = false;
  while (!ui.quit() && !quit_signal) {
    Clock::time_point now = Clock::now();
    if (dirty && (urgent || now - last_frame >= kFrameInterval)) {
      if (!WriteAll(options.out_fd, ui.Frame())) break;
      last_frame = now;
      dirty = urgent = false;
    }
    int timeout = -1;
    auto until = [&](Clock::time_point t) {
      auto ms = std::chrono::ceil<std::chrono::milliseconds>(t - now).count();
      int wait = static_cast<int>(std::max<int64_t>(ms, 0));
      timeout = timeout < 0 ? wait : std::min(timeout, wait);
    };
    if (dirty) until(last_frame + kFrameInterval);
    if (decoder.pending()) until(esc_deadline);
    struct pollfd fds[3] = {{options.in_fd, POLLIN, 0}, {sig_fd, POLLIN, 0}, {pump.fd(), POLLIN, 0}};
    int ready = poll(fds, 3, timeout);
    if (ready < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (decoder.pending() && Clock::now() >= esc_deadline) {
      for (const auto& e : decoder.Flush()) ui.Handle(e);  // a lone Esc
      dirty = urgent = true;
    }
    if (ready == 0) continue;
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      if (read_input() < 0) break;
      dirty = urgent = true;
    }
    if (fds[1].revents & POLLIN) {
      struct signalfd_siginfo si;
      while (read(sig_fd, &si, sizeof si) == sizeof si) {
        if (si.ssi_signo == SIGWINCH) {
          TerminalSize size_now = (*term)->Size();
          ui.Resize(size_now.cols, size_now.rows);
          dirty = urgent = true;
        } else {
          quit_signal = true;  // SIGTERM, SIGHUP, SIGINT
        }
      }
    }
    if (fds[2].revents & POLLIN) {
      for (const auto& e : pump.Take()) ui.OnEvent(e);
      dirty = true;
    }
  }
  session.Abort();
  WriteAll(options.out_fd, ui.Finish());
  (*term)->Restore();
  if (sig_fd >= 0) close(sig_fd);
  return 0;
}

}  // namespace sepp::front::tui
