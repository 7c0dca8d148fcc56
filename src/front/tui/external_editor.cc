#include "front/tui/external_editor.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <vector>

#include "base/file.h"
#include "base/secrets.h"

extern char** environ;

namespace sepp::front::tui {

Result<std::string> EditInExternalEditor(const std::string& text) {
  const char* editor = std::getenv("VISUAL");
  if (!editor || !*editor) editor = std::getenv("EDITOR");
  if (!editor || !*editor) {
    return Error::Make("Ctrl+G edits the prompt in $VISUAL or $EDITOR: set one (export EDITOR=vim)", "usage");
  }
  std::string dir = std::filesystem::temp_directory_path().string();
  std::string path = dir + "/sepp-prompt-XXXXXX.md";
  int fd = mkstemps(path.data(), 3);  // 0600
  if (fd < 0) return Error::Make("cannot create a file for the editor in " + dir + ": " + std::strerror(errno), "io");
  bool wrote = static_cast<size_t>(write(fd, text.data(), text.size())) == text.size();
  close(fd);
  struct Cleanup {
    std::string path;
    ~Cleanup() { unlink(path.c_str()); }
  } cleanup{path};
  if (!wrote) return Error::Make("cannot write the prompt to " + path + " for the editor", "io");

  // The editor gets sepp's environment without the credentials (provider
  // keys and the like): no child of sepp holds them. Built before fork().
  std::vector<std::string> env_strings;
  for (char** e = environ; e && *e; ++e) {
    std::string_view kv(*e);
    if (!IsSecretEnvName(kv.substr(0, kv.find('=')))) env_strings.emplace_back(kv);
  }
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string cmd = std::string(editor) + " \"$1\"";
  const char* argv[] = {"sh", "-c", cmd.c_str(), "sh", path.c_str(), nullptr};

  pid_t pid = fork();
  if (pid < 0) return Error::Make(std::string("cannot start the editor: ") + std::strerror(errno), "io");
  if (pid == 0) {
    // The UI blocks these for its signalfd; the editor needs them as usual.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGWINCH, SIGPIPE, SIGQUIT, SIGTSTP}) signal(sig, SIG_DFL);
    execve("/bin/sh", const_cast<char* const*>(argv), envp.data());
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::string how = WIFEXITED(status) ? "exited with status " + std::to_string(WEXITSTATUS(status))
                                        : "was killed by signal " + std::to_string(WTERMSIG(status));
    return Error::Make(std::string("the editor (") + editor + ") " + how + "; the prompt is unchanged", "editor");
  }
  auto edited = ReadFile(path);
  if (!edited.ok()) return Error::Make("cannot read the edited prompt back: " + edited.error().message, "io");
  std::string out = std::move(*edited);
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

}  // namespace sepp::front::tui
