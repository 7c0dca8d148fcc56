#include "front/serve/agent_install.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

#include "base/fd.h"
#include "base/strings.h"

extern char** environ;

namespace sepp::front::serve {

namespace fs = std::filesystem;

namespace {

// Runs argv with the server's environment, stdin from /dev/null, stdout
// and stderr together; the exit status and the output (the last 64 KiB).
Result<int> RunCollecting(const std::vector<std::string>& argv, std::string* output) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return Error::Make("pipe: " + ErrnoText(errno), "io");
  UniqueFd r(fds[0]), w(fds[1]);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, w.get(), 1);
  posix_spawn_file_actions_adddup2(&fa, w.get(), 2);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  int rc = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  w.Reset();
  if (rc != 0) return Error::Make("cannot run " + argv[0] + ": " + ErrnoText(rc), "io");
  char buf[4096];
  for (;;) {
    ssize_t n = read(r.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    output->append(buf, static_cast<size_t>(n));
    if (output->size() > 128 * 1024) output->erase(0, output->size() - 64 * 1024);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

std::string LastLines(const std::string& text, size_t n) {
  auto lines = Split(text, '\n');
  std::string out;
  size_t from = lines.size() > n ? lines.size() - n : 0;
  for (size_t i = from; i < lines.size(); ++i)
    if (!Trim(lines[i]).empty()) out += (out.empty() ? "" : "\n") + lines[i];
  return out;
}

Json Artifact(const AgentSpec& spec, const AgentLocation& loc) {
  return {{"kind", "npm"},
          {"package", spec.package},
          {"version", loc.version},
          {"path", loc.program.string()},
          {"foundIn", loc.found_in}};
}

}  // namespace

Result<Json> InstallAgent(const AgentCatalog& catalog, const AgentSpec& spec, const InstallRequest& req) {
  if (spec.package.empty())
    return Error::Make("agent " + spec.id + " is a command from " + spec.source +
                           ", not an npm package sepp installs; install " +
                           (spec.command.empty() ? std::string("it") : spec.command[0]) + " yourself",
                       "usage");
  AgentLocation before = catalog.Locate(spec);
  if (before.installed && !req.reinstall)
    return Json{{"already_installed", true}, {"artifacts", Json::array({Artifact(spec, before)})}};
  const fs::path prefix = catalog.data_dir() / "npm";
  std::error_code ec;
  fs::create_directories(prefix, ec);
  if (ec) return Error::Make("cannot make " + prefix.string() + ": " + ec.message(), "io");
  std::string what = req.from.empty() ? spec.package + "@" + spec.version : req.from;
  std::vector<std::string> argv = {req.npm,      "install",  "--no-audit", "--no-fund",
                                   "--no-save", "--prefix", prefix.string(), what};
  std::string output;
  auto status = RunCollecting(argv, &output);
  if (!status.ok()) return status.error();
  if (!WIFEXITED(*status) || WEXITSTATUS(*status) != 0)
    return Error::Make("npm could not install " + what + " into " + prefix.string() +
                           " (exit status " + std::to_string(WIFEXITED(*status) ? WEXITSTATUS(*status) : -1) +
                           "): " + LastLines(output, 8),
                       "io");
  AgentLocation after = catalog.Locate(spec);
  if (!after.installed || after.found_in != "data folder")
    return Error::Make("npm installed " + what + " but " + prefix.string() + "/node_modules/.bin/" +
                           spec.command[0] + " is not there: is it the package of agent " + spec.id + "?",
                       "io");
  return Json{{"already_installed", false}, {"artifacts", Json::array({Artifact(spec, after)})}};
}

}  // namespace sepp::front::serve
