// Two threads per job: one pumps its output into the log (a pipe nobody
// reads would stall the command once 64 KiB are waiting), one waits for its
// exit. The output may outlast the exit (a grandchild holding the pipe), so
// they are separate.
#include "tools/background_jobs.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <thread>

#include "base/ids.h"
#include "base/stream_redactor.h"
#include "sandbox/orphan_reaper.h"
#include "tools/truncate.h"

namespace sepp::tools {
namespace fs = std::filesystem;
namespace {

std::atomic<BackgroundJobs*> session_jobs{nullptr};
thread_local CancelToken* current_detach = nullptr;

UniqueFd OpenLog(const fs::path& path) {
  return UniqueFd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600));
}

void WriteAll(int fd, std::string_view s) {
  while (!s.empty()) {
    ssize_t n = ::write(fd, s.data(), s.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // a full /tmp: the output is lost, the command goes on
    s.remove_prefix(static_cast<size_t>(n));
  }
}

}  // namespace

struct BackgroundJobs::Job {
  Info info;  // guarded by BackgroundJobs::mu_
  UniqueFd log;
  size_t log_bytes = 0;  // written to the current file (the pump thread's)
};

void SetSessionJobs(BackgroundJobs* jobs) { session_jobs = jobs; }
BackgroundJobs* SessionJobs() { return session_jobs.load(); }

CancelToken* CurrentCallDetach() { return current_detach; }
CallDetachScope::CallDetachScope(CancelToken* token) : previous_(current_detach) {
  current_detach = token;
}
CallDetachScope::~CallDetachScope() { current_detach = previous_; }

std::string BackgroundJobs::RefuseNew() {
  std::lock_guard<std::mutex> lock(mu_);
  if (running_ < kMaxRunning) return "";
  return std::to_string(running_) +
         " background processes are running already (the most a session may have); stop one "
         "with process_signal (process_list shows them) and try again";
}

Result<fs::path> BackgroundJobs::Adopt(pid_t pid, UniqueFd output, const std::string& command,
                                       std::string_view already_written) {
  auto job = std::make_shared<Job>();
  job->info.pid = pid;
  job->info.command = command;
  std::string why = PrepareOutputFolder(log_dir_);
  if (why.empty()) {
    job->info.log = log_dir_ / ("bg-" + std::to_string(pid) + "-" + NewId().substr(0, 6) + ".log");
    job->log = OpenLog(job->info.log);
    if (!job->log.valid()) why = "cannot create " + job->info.log.string() + ": " + ErrnoText(errno);
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    jobs_[pid] = job;
    ++running_;
  }
  // Reaped and pumped whatever happens to the log: the command runs already.
  std::thread([this, job] { Reap(job); }).detach();
  if (job->log.valid()) {
    WriteAll(job->log.get(), already_written);
    job->log_bytes = already_written.size();
  }
  std::thread([this, job, out = std::move(output)]() mutable { Pump(job, std::move(out)); }).detach();
  if (!why.empty())
    return Error::Make("the background process " + std::to_string(pid) +
                       " runs, but its output cannot be kept: " + why);
  return job->info.log;
}

void BackgroundJobs::Pump(std::shared_ptr<Job> job, UniqueFd output) {
  StreamRedactor redactor;
  char buf[65536];
  auto write = [&](std::string_view text) {
    if (!job->log.valid() || text.empty()) return;
    if (job->log_bytes + text.size() > kLogBytes && job->log_bytes > 0) {
      // Full: the old file becomes LOG.1, the newest output goes on in LOG.
      job->log.Reset();
      fs::path old = job->info.log;
      old += ".1";
      std::error_code ec;
      fs::rename(job->info.log, old, ec);
      job->log = OpenLog(job->info.log);
      job->log_bytes = 0;
      if (!job->log.valid()) return;
    }
    WriteAll(job->log.get(), text);
    job->log_bytes += text.size();
  };
  for (;;) {
    ssize_t n = ::read(output.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // every writer is gone
    write(redactor.Push(std::string_view(buf, static_cast<size_t>(n))));
  }
  write(redactor.Flush());
  job->log.Reset();
}

void BackgroundJobs::Reap(std::shared_ptr<Job> job) {
  int status = 0;
  pid_t pid = job->info.pid;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    job->info.running = false;
    if (WIFEXITED(status)) job->info.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) job->info.term_signal = WTERMSIG(status);
    --running_;
  }
  sandbox::ReleaseOwnedChild(pid);  // after the reap: the pid may be reused from now on
}

std::optional<BackgroundJobs::Info> BackgroundJobs::Find(pid_t pid) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = jobs_.find(pid);
  if (it == jobs_.end()) return std::nullopt;
  return it->second->info;
}

}  // namespace sepp::tools
