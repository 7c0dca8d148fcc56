// sepp holds provider keys, so it is undumpable (base/undumpable.h): killed
// by SIGSEGV or SIGABRT with `ulimit -c unlimited` it writes no core file
// (a sandboxed command could read one in the workspace), and another process
// of the same normal user cannot read its /proc/PID/environ or /proc/PID/mem.
// Each check first shows, on a plain process under the same conditions, that
// this machine would write the core or allow the read, so it can fail.
#include <gtest/gtest.h>
#include <grp.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fcntl.h>
#include <thread>

#include "base/file.h"
#include "base/ids.h"
#include "e2e/run_sepp.h"
#include "support/fake_provider.h"

namespace sepp::e2e {
namespace {

namespace fs = std::filesystem;
constexpr char kKey[] = "sk-undumpable-secret-0123456789abcdef";

// The normal user the processes run as: ourselves, or nobody when the test
// runs as root (root reads any /proc file whatever the flag).
uid_t NormalUid() { return geteuid() == 0 ? 65534 : geteuid(); }
gid_t NormalGid() { return geteuid() == 0 ? 65534 : getegid(); }

void BecomeNormalUser() {
  if (geteuid() != 0) return;
  if (setgroups(0, nullptr) != 0 || setresgid(NormalGid(), NormalGid(), NormalGid()) != 0 ||
      setresuid(NormalUid(), NormalUid(), NormalUid()) != 0)
    _exit(120);
}

// Starts argv as the normal user in dir, with unlimited core size, env as
// its whole environment, stdio on /dev/null.
pid_t Spawn(const std::vector<std::string>& args, const std::vector<std::string>& env,
            const fs::path& dir) {
  std::vector<char*> argv, envp;
  for (auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    int null = open("/dev/null", O_RDWR);
    dup2(null, 0);
    dup2(null, 1);
    dup2(null, 2);
    if (chdir(dir.c_str()) != 0) _exit(121);
    struct rlimit unlimited = {RLIM_INFINITY, RLIM_INFINITY};
    if (setrlimit(RLIMIT_CORE, &unlimited) != 0) _exit(122);
    BecomeNormalUser();
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  return pid;
}

enum class Access { kDenied, kReadKey, kReadNoKey };

// What a process of the same normal user gets when it opens
// /proc/PID/<file> and reads it.
Access Probe(pid_t target, const std::string& file) {
  pid_t pid = fork();
  if (pid == 0) {
    BecomeNormalUser();
    int fd = open(("/proc/" + std::to_string(target) + "/" + file).c_str(), O_RDONLY);
    if (fd < 0) _exit(0);
    std::string data;
    char buf[4096];
    // mem: a read at offset 0 fails (nothing mapped) even when the open is
    // allowed; the open itself is the access check.
    if (file == "mem") _exit(2);
    for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) data.append(buf, n);
    _exit(data.find(kKey) != std::string::npos ? 1 : 2);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) > 2) ADD_FAILURE() << "the probe itself failed";
  return static_cast<Access>(WIFEXITED(status) ? WEXITSTATUS(status) : 0);
}

bool HasCoreFile(const fs::path& dir) {
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().rfind("core", 0) == 0) return true;
  return false;
}

class Undumpable : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("sepp-undumpable-" + ShortId());
    fs::create_directories(dir_ / "home");
    // The normal user must be able to write its core (the control) here.
    fs::permissions(dir_, fs::perms::all);
    fs::permissions(dir_ / "home", fs::perms::all);
    // The request arrives, then the answer waits: sepp is then well past
    // main and blocked on the network, key in hand.
    fp_.SetScript({{"responses", {{{"text", "late"}, {"chunk_delay_ms", 1000}},
                                  {{"text", "late"}, {"chunk_delay_ms", 1000}}}}});
    ASSERT_TRUE(fp_.Start().ok());
  }
  void TearDown() override {
    fp_.Stop();
    fs::remove_all(dir_);
  }

  std::vector<std::string> Env() const {
    return {"PATH=/usr/bin:/bin", "HOME=" + (dir_ / "home").string(),
            "SEPP_HOME=" + (dir_ / "home").string(), "ANTHROPIC_BASE_URL=" + fp_.base_url(),
            std::string("ANTHROPIC_API_KEY=") + kKey, "SEPP_PROVIDER=anthropic"};
  }

  // Waits (polling, no fixed sleep) until the fake provider has n requests.
  bool WaitForRequests(size_t n) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (fp_.requests().size() < n) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return true;
  }

  fs::path dir_;
  fake::FakeProvider fp_;
};

// A long-lived plain process of the normal user with the key in its
// environment (cat on a pipe), for the control probes.
class PlainProcess {
 public:
  PlainProcess() {
    int p[2];
    if (pipe(p) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      close(p[1]);
      dup2(p[0], 0);
      BecomeNormalUser();
      std::string var = std::string("ANTHROPIC_API_KEY=") + kKey;
      char* argv[] = {const_cast<char*>("/bin/cat"), nullptr};
      char* envp[] = {var.data(), nullptr};
      execve(argv[0], argv, envp);
      _exit(127);
    }
    close(p[0]);
    feed_ = p[1];
  }
  ~PlainProcess() {
    close(feed_);  // cat sees EOF and ends
    int status = 0;
    if (pid_ > 0) waitpid(pid_, &status, 0);
  }
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  int feed_ = -1;
};

TEST_F(Undumpable, ACrashWritesNoCoreAndProcFilesAreClosedToTheSameUser) {
  // Controls: a plain process of the same user, same limits, same folder,
  // dumps core, and the same user can read its environment (and its memory,
  // unless Yama's ptrace_scope forbids that for every non-descendant).
  pid_t plain = Spawn({"/bin/sh", "-c", "kill -SEGV $$"}, Env(), dir_);
  ASSERT_GT(plain, 0);
  int status = 0;
  ASSERT_EQ(waitpid(plain, &status, 0), plain);
  if (!WCOREDUMP(status) || !HasCoreFile(dir_))
    GTEST_SKIP() << "this machine writes no core file into the working folder (see "
                    "/proc/sys/kernel/core_pattern), so there is nothing to show";
  for (const auto& e : fs::directory_iterator(dir_))
    if (e.path().filename().string().rfind("core", 0) == 0) fs::remove(e.path());
  bool mem_readable = false;
  {
    PlainProcess cat;
    ASSERT_GT(cat.pid(), 0);
    // Its environ is the new one once cat has exec'd: poll for that.
    Access a = Access::kDenied;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while ((a = Probe(cat.pid(), "environ")) != Access::kReadKey &&
           std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ASSERT_EQ(a, Access::kReadKey) << "the same user cannot read a plain process's environ here";
    mem_readable = Probe(cat.pid(), "mem") != Access::kDenied;
  }

  size_t requests = 0;
  for (int sig : {SIGSEGV, SIGABRT}) {
    SCOPED_TRACE(strsignal(sig));
    pid_t sepp = Spawn({SeppPath(), "-p", "go", "--no-session", "--sandbox", "off"}, Env(), dir_);
    ASSERT_GT(sepp, 0);
    ASSERT_TRUE(WaitForRequests(++requests)) << "sepp never called the provider";
    EXPECT_EQ(Probe(sepp, "environ"), Access::kDenied);
    if (mem_readable) EXPECT_EQ(Probe(sepp, "mem"), Access::kDenied);
    ASSERT_EQ(kill(sepp, sig), 0);
    ASSERT_EQ(waitpid(sepp, &status, 0), sepp);
    ASSERT_TRUE(WIFSIGNALED(status));
    EXPECT_EQ(WTERMSIG(status), sig);
    EXPECT_FALSE(WCOREDUMP(status)) << "the kernel dumped sepp's core";
    EXPECT_FALSE(HasCoreFile(dir_)) << "a core file is in the working folder";
  }
}

}  // namespace
}  // namespace sepp::e2e
