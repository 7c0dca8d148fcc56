#include "ext/mcp/stdio_transport.h"

#include <poll.h>
#include <unistd.h>

#include <sys/wait.h>

#include <cerrno>
#include <chrono>

#include "base/clock.h"
#include "base/secrets.h"

namespace sepp::ext::mcp {
namespace {

constexpr size_t kStderrTailBytes = 8192;
// How long a server whose stdin was closed may take to exit by itself.
constexpr int kGraceMs = 200;

std::string ExitText(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "was killed by signal " + std::to_string(WTERMSIG(status));
  return "ended";
}

}  // namespace

Result<std::unique_ptr<StdioTransport>> StdioTransport::Spawn(const sandbox::HeldSpec& spec,
                                                              const sandbox::Policy& policy) {
  auto child = sandbox::HeldChild::Start(spec, policy);
  if (!child.ok()) return child.error();
  return std::unique_ptr<StdioTransport>(new StdioTransport(std::move(*child)));
}

StdioTransport::StdioTransport(std::unique_ptr<sandbox::HeldChild> child)
    : child_(std::move(child)) {
  auto p = MakePipe();
  if (p.ok()) {
    stop_r_ = std::move(p->first);
    stop_w_ = std::move(p->second);
  }
}

StdioTransport::~StdioTransport() { Close(); }

void StdioTransport::Start(OnMessage on_message, OnClosed on_closed) {
  on_message_ = std::move(on_message);
  on_closed_ = std::move(on_closed);
  reader_ = std::thread([this] { ReadLoop(); });
}

Status StdioTransport::Send(const Json& message) {
  if (closed_) return Error::Make("the server's connection is closed", "eof");
  std::string line = DumpJson(message);
  line.push_back('\n');
  std::lock_guard lock(send_mu_);
  return child_->WriteStdin(line);
}

void StdioTransport::AddStderr(std::string_view s) {
  std::lock_guard lock(diag_mu_);
  stderr_tail_.append(s);
  if (stderr_tail_.size() > 2 * kStderrTailBytes)
    stderr_tail_.erase(0, stderr_tail_.size() - kStderrTailBytes);
}

std::string StdioTransport::Diagnostics() const {
  std::lock_guard lock(diag_mu_);
  std::string out = stderr_tail_.size() > kStderrTailBytes
                        ? stderr_tail_.substr(stderr_tail_.size() - kStderrTailBytes)
                        : stderr_tail_;
  if (junk_lines_)
    out += "\n(" + std::to_string(junk_lines_) + " line(s) on stdout were not JSON-RPC and were ignored)";
  return Redact(out);
}

void StdioTransport::ReadLoop() {
  std::string pending;  // an incomplete line
  std::string reason;
  char buf[65536];
  bool out_open = true, err_open = true;
  while (out_open) {
    pollfd fds[3] = {{child_->stdout_fd(), POLLIN, 0},
                     {err_open ? child_->stderr_fd() : -1, POLLIN, 0},
                     {stop_r_.get(), POLLIN, 0}};
    int n = poll(fds, 3, -1);
    if (n < 0) {
      if (errno == EINTR) continue;
      reason = "polling the server failed: " + ErrnoText(errno);
      break;
    }
    if (fds[2].revents) {
      reason = "closed by sepp";
      break;
    }
    if (fds[1].revents) {
      ssize_t r = read(child_->stderr_fd(), buf, sizeof buf);
      if (r > 0) AddStderr({buf, static_cast<size_t>(r)});
      else if (r == 0 || errno != EINTR) err_open = false;
    }
    if (fds[0].revents) {
      ssize_t r = read(child_->stdout_fd(), buf, sizeof buf);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) {
        out_open = false;
        break;
      }
      size_t start = 0;
      std::string_view chunk(buf, static_cast<size_t>(r));
      for (size_t nl; (nl = chunk.find('\n', start)) != std::string_view::npos; start = nl + 1) {
        pending.append(chunk.substr(start, nl - start));
        if (pending.size() > kMaxMessageBytes) break;
        if (!pending.empty() && pending.back() == '\r') pending.pop_back();
        if (pending.find_first_not_of(" \t") != std::string::npos) {
          auto j = ParseJson(pending);
          if (j.ok() && j->is_object()) {
            on_message_(std::move(*j));
          } else {
            std::lock_guard lock(diag_mu_);
            ++junk_lines_;
          }
        }
        pending.clear();
      }
      if (start < chunk.size()) pending.append(chunk.substr(start));
      if (pending.size() > kMaxMessageBytes) {
        reason = "the server sent a message larger than " +
                 std::to_string(kMaxMessageBytes >> 20) + " MiB; sepp dropped the connection";
        break;
      }
    }
  }
  closed_ = true;
  if (reason.empty()) {
    // stdout closed: the server is exiting (or has); one that lingers
    // without its output is of no use and is killed.
    double deadline = MonotonicSeconds() + 1.0;
    while (!child_->TryWait() && MonotonicSeconds() < deadline) {
      pollfd p = {child_->pidfd(), POLLIN, 0};
      if (p.fd < 0) break;
      poll(&p, 1, 50);
    }
    child_->Kill();
    int status = child_->Wait();
    reason = "the server " + ExitText(status);
    std::string diag = Diagnostics();
    if (!diag.empty()) reason += "; its last output: " + diag;
  } else {
    child_->Kill();
  }
  if (on_closed_) on_closed_(reason);
}

void StdioTransport::Close() {
  if (!child_) return;
  if (!closed_.exchange(true)) {
    // The spec's shutdown: close its input, wait a moment, then kill.
    child_->CloseStdin();
    double deadline = MonotonicSeconds() + kGraceMs / 1000.0;
    while (!child_->TryWait() && MonotonicSeconds() < deadline) {
      pollfd p = {child_->pidfd(), POLLIN, 0};
      if (p.fd < 0) break;
      poll(&p, 1, 20);
    }
  }
  child_->Kill();
  if (stop_w_.valid()) {
    char c = 1;
    ssize_t ignored = write(stop_w_.get(), &c, 1);
    (void)ignored;
  }
  if (reader_.joinable()) reader_.join();
  child_->Wait();
}

}  // namespace sepp::ext::mcp
