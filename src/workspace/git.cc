#include "workspace/git.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/fd.h"
#include "base/secrets.h"

extern char** environ;

namespace sepp::workspace {

namespace {

bool PassesToGit(std::string_view entry) {
  std::string_view name = entry.substr(0, entry.find('='));
  for (std::string_view keep : {"GH_TOKEN", "GITHUB_TOKEN", "GIT_ASKPASS", "SSH_AUTH_SOCK"})
    if (name == keep) return true;
  return !IsSecretEnvName(name);
}

struct Child {
  std::vector<std::string> argv_storage;
  std::vector<char*> argv;
  std::vector<char*> envp;
};

Child MakeChild(const std::filesystem::path& cwd, const std::vector<std::string>& args) {
  Child c;
  c.argv_storage = {"git", "-C", cwd.string()};
  c.argv_storage.insert(c.argv_storage.end(), args.begin(), args.end());
  for (auto& a : c.argv_storage) c.argv.push_back(a.data());
  c.argv.push_back(nullptr);
  for (char** e = environ; e && *e; ++e)
    if (PassesToGit(*e)) c.envp.push_back(*e);
  c.envp.push_back(nullptr);
  return c;
}

Result<int> Wait(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return Error{"waiting for git: " + std::string(std::strerror(errno)), "io"};
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

}  // namespace

Result<GitOutput> Git(const std::filesystem::path& cwd, const std::vector<std::string>& args,
                      std::string_view input) {
  // The input goes into the pipe whole before git runs: no write can block
  // or meet a closed reader (no SIGPIPE when git fails early).
  UniqueFd in_r;
  if (!input.empty()) {
    if (input.size() > 4096) return Error{"git input over 4 KiB", "usage"};
    auto in = MakePipe();
    if (!in.ok()) return in.error();
    in_r = std::move(in->first);
    if (write(in->second.get(), input.data(), input.size()) != static_cast<ssize_t>(input.size()))
      return Error{"cannot write git's input: " + std::string(std::strerror(errno)), "io"};
  }
  auto out = MakePipe();
  if (!out.ok()) return out.error();
  auto err = MakePipe();
  if (!err.ok()) return err.error();
  UniqueFd out_r = std::move(out->first), out_w = std::move(out->second);
  UniqueFd err_r = std::move(err->first), err_w = std::move(err->second);
  Child c = MakeChild(cwd, args);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (in_r.valid()) posix_spawn_file_actions_adddup2(&fa, in_r.get(), 0);
  else posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, out_w.get(), 1);
  posix_spawn_file_actions_adddup2(&fa, err_w.get(), 2);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, "git", &fa, nullptr, c.argv.data(), c.envp.data());
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0)
    return Error{"cannot run git: " + std::string(std::strerror(rc)) + " (is git installed and on PATH?)",
                 "not_found"};
  out_w.Reset();
  err_w.Reset();
  in_r.Reset();
  GitOutput r;
  pollfd fds[2] = {{out_r.get(), POLLIN, 0}, {err_r.get(), POLLIN, 0}};
  std::string* sinks[2] = {&r.out, &r.err};
  int open_fds = 2;
  char buf[16384];
  while (open_fds > 0) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        sinks[i]->append(buf, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  auto code = Wait(pid);
  if (!code.ok()) return code.error();
  r.exit_code = *code;
  return r;
}

Result<int> GitInteractive(const std::filesystem::path& cwd, const std::vector<std::string>& args) {
  Child c = MakeChild(cwd, args);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, "git", nullptr, nullptr, c.argv.data(), c.envp.data());
  if (rc != 0)
    return Error{"cannot run git: " + std::string(std::strerror(rc)) + " (is git installed and on PATH?)",
                 "not_found"};
  return Wait(pid);
}

std::string Trimmed(const std::string& out) {
  size_t n = out.size();
  while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == '\r')) --n;
  return out.substr(0, n);
}

}  // namespace sepp::workspace
