// The session sandbox (tools/tool_worker.h): the file tools and bash run in
// a confined worker, and the kernel decides. Every attack runs next to the
// legitimate work that must still succeed.
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "base/secrets.h"
#include "base/strings.h"
#include "worker_fixture.h"
#include "support/host_processes.h"

using sepp::testing_support::HostProcessesWith;

namespace sepp::tools {
namespace {

namespace fs = std::filesystem;
using testing::kSecret;
using testing::WorkerTest;

bool Contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST_F(WorkerTest, FileToolsAndBashWorkInsideTheSessionSandbox) {
  ToolResult w = Use("write", {{"path", "notes.txt"}, {"content", "alpha\nbeta\n"}});
  ASSERT_FALSE(w.is_error) << w.text;
  EXPECT_EQ(Get(ws_ / "notes.txt"), "alpha\nbeta\n");
  ToolResult e = Use("edit", {{"path", "notes.txt"}, {"old_string", "beta"}, {"new_string", "gamma"}});
  ASSERT_FALSE(e.is_error) << e.text;
  ToolResult r = Use("read", {{"path", "notes.txt"}});
  EXPECT_TRUE(Contains(r.text, "gamma")) << r.text;
  EXPECT_TRUE(Contains(Use("ls", {{"path", "."}}).text, "notes.txt"));
  EXPECT_TRUE(Contains(Use("find", {{"pattern", "*.txt"}}).text, "notes.txt"));
  EXPECT_TRUE(Contains(Use("grep", {{"pattern", "gamma"}}).text, "notes.txt"));

  // bash runs in the same sandbox: its pid 1 is the worker, and one
  // call's /tmp is the next call's (and not the host's).
  Put("/tmp/sepp-h16-host-marker", "host");
  ToolResult b = Use("bash", {{"command", "tr '\\0' ' ' </proc/1/cmdline; echo; echo kept >/tmp/x; "
                                          "ls /tmp/sepp-h16-host-marker 2>&1 || true"}});
  fs::remove("/tmp/sepp-h16-host-marker");
  EXPECT_FALSE(b.is_error) << b.text;
  EXPECT_TRUE(Contains(b.text, "__tool-worker")) << b.text;
  EXPECT_TRUE(Contains(b.text, "No such file")) << b.text;
  EXPECT_TRUE(Contains(Use("bash", {{"command", "cat /tmp/x"}}).text, "kept"));
  EXPECT_TRUE(Contains(Use("read", {{"path", "/tmp/x"}}).text, "kept"));
  EXPECT_GT(worker_->sandbox_pid(), 0);
}

TEST_F(WorkerTest, SessionEndKillsEveryProcessAndItsTmp) {
  // A detached process (its own session, so the call's group kill misses
  // it); the loop waits until it has detached.
  ToolResult b = Use("bash", {{"command", "setsid sh -c 'echo up >/tmp/up; exec sleep 987123' "
                                          ">/dev/null 2>&1 & nohup sleep 987124 >/dev/null 2>&1 & "
                                          "until [ -s /tmp/up ]; do :; done; echo s >/tmp/y"}});
  ASSERT_FALSE(b.is_error) << b.text;
  EXPECT_GE(HostProcessesWith("987123"), 1);  // still running: the session lives
  worker_.reset();
  EXPECT_EQ(HostProcessesWith("987123"), 0);
  EXPECT_EQ(HostProcessesWith("987124"), 0);
  worker_ = std::make_unique<ToolWorker>(policy_, ws_, SEPP_BINARY_DIR "/sepp", false);
  ToolResult again = Use("bash", {{"command", "cat /tmp/y"}});
  EXPECT_TRUE(again.is_error);
  EXPECT_TRUE(Contains(again.text, "No such file")) << again.text;
}

TEST_F(WorkerTest, WorkerEnvironmentAndMemoryHoldNoKey) {
  const std::string key = "sk-ant-api03-h16workerkeyXYZ0123456789";
  setenv("ANTHROPIC_API_KEY", key.c_str(), 1);
  worker_ = std::make_unique<ToolWorker>(policy_, ws_, SEPP_BINARY_DIR "/sepp", false);
  // From inside: every process of the sandbox, its environment and command line.
  ToolResult b = Use("bash", {{"command", "for p in /proc/[0-9]*; do cat $p/environ $p/cmdline; "
                                          "done 2>/dev/null | tr '\\0' '\\n'; echo; env"}});
  unsetenv("ANTHROPIC_API_KEY");
  ASSERT_FALSE(b.is_error) << b.text;
  EXPECT_TRUE(Contains(b.text, "PATH=")) << b.text;  // the environments were read
  EXPECT_FALSE(Contains(b.text, "h16workerkey")) << b.text;
  EXPECT_FALSE(Contains(b.text, "ANTHROPIC_API_KEY")) << b.text;

  // From inside too: the worker (pid 1 of the sandbox) is this uid's but
  // undumpable (every sepp process is, base/undumpable.h),
  // so bash in the sandbox cannot read their memory at all.
  const std::string dump =
      "for p in 1; do grep -E '^[0-9a-f]+-[0-9a-f]+ r' /proc/$p/maps | "
      "while read range rest; do s=$((0x${range%-*})); e=$((0x${range#*-})); "
      "dd if=/proc/$p/mem bs=4096 skip=$((s/4096)) count=$(((e-s)/4096)) 2>/dev/null; done; done";
  // (The pattern is written in two pieces so the command sent to the worker
  // does not itself put the key's text into the worker's memory.)
  ToolResult mem = Use("bash", {{"command", "{ " + dump + "; } 2>/dev/null | wc -c; { " + dump +
                                                "; } 2>/dev/null | grep -ac 'h16worker''key'; true"}});
  std::istringstream counts(mem.text);
  long bytes = 0, hits = -1;
  counts >> bytes >> hits;
  EXPECT_EQ(bytes, 0) << mem.text;  // nothing of the worker's memory was readable
  EXPECT_EQ(hits, 0) << mem.text;
  for (const char* pid : {"1"}) {  // the attempt is refused, not empty by accident
    ToolResult maps = Use("bash", {{"command", std::string("cat /proc/") + pid +
                                                   "/maps >/dev/null 2>&1 && echo readable || "
                                                   "echo refused; cat /proc/self/maps | wc -l"}});
    EXPECT_TRUE(Contains(maps.text, "refused")) << maps.text;
    EXPECT_FALSE(Contains(maps.text, "readable")) << maps.text;
  }

  // The worker's whole memory, read by its ancestor (this process).
  pid_t worker = worker_->sandbox_pid();
  ASSERT_GT(worker, 0);
  size_t scanned = 0;
  for (pid_t pid : {worker}) {
    std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
    int mem = open(("/proc/" + std::to_string(pid) + "/mem").c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(mem, 0) << "cannot open the memory of " << pid;
    std::string line;
    while (std::getline(maps, line)) {
      unsigned long lo, hi;
      char perms[8];
      if (sscanf(line.c_str(), "%lx-%lx %7s", &lo, &hi, perms) != 3 || perms[0] != 'r') continue;
      if (Contains(line, "[vvar]") || Contains(line, "[vsyscall]")) continue;
      std::string buf(hi - lo, '\0');
      ssize_t got = pread(mem, buf.data(), buf.size(), static_cast<off_t>(lo));
      if (got <= 0) continue;
      scanned += static_cast<size_t>(got);
      buf.resize(static_cast<size_t>(got));
      EXPECT_FALSE(Contains(buf, "h16workerkey")) << "the key is in the memory of " << pid
                                                  << " at " << line;
    }
    close(mem);
  }
  EXPECT_GT(scanned, 100000u);  // the scan read real memory
}

// A chain of links whose resolution is longer than PATH_MAX (userspace
// resolution gives up; the kernel follows it), and a link loop.
TEST_F(WorkerTest, OverLongAndUnresolvablePathsAreRefused) {
  const std::string chain = testing::MakeOverLongChain(ws_, home_ / ".ssh/id_ed25519");
  fs::create_symlink("loop2", ws_ / "loop1");
  fs::create_symlink("loop1", ws_ / "loop2");
  Put(ws_ / "plain.txt", "plain text\n");
  const std::string key = chain + "/end";
  for (const std::string& p : {key, chain + "/plain.txt", std::string("loop1"),
                               std::string("loop1/x")}) {
    for (const char* tool : {"read", "edit", "write", "grep"}) {
      Json args = {{"path", p}};
      if (std::string(tool) == "edit") args.update({{"old_string", "K"}, {"new_string", "X"}});
      if (std::string(tool) == "write") args["content"] = "pwned";
      if (std::string(tool) == "grep") args["pattern"] = "SECRET";
      ToolResult r = Use(tool, args);
      EXPECT_TRUE(r.is_error) << tool << " " << p << ": " << r.text;
      EXPECT_FALSE(Contains(r.text, kSecret)) << tool << " " << p;
    }
  }
  EXPECT_TRUE(Contains(Use("read", {{"path", key}}).text, "cannot be resolved"));
  EXPECT_TRUE(Contains(Get(home_ / ".ssh/id_ed25519"), kSecret));  // unchanged
  // The kernel follows the chain, into the mask: nothing of the key.
  ToolResult b = Use("bash", {{"command", "cat " + key + "; echo rc=$?; cat " + chain +
                                          "/plain.txt"}});
  EXPECT_FALSE(Contains(b.text, kSecret)) << b.text;
  // Next to it, legitimate work: the long path in bash, plain paths in every tool.
  EXPECT_TRUE(Contains(b.text, "plain text")) << b.text;
  EXPECT_TRUE(Contains(Use("read", {{"path", "plain.txt"}}).text, "plain text"));
}

TEST_F(WorkerTest, DenyPathsByEverySpelling) {
  fs::create_symlink(home_ / ".ssh", ws_ / "sshlink");
  fs::create_symlink(home_, ws_ / "homelink");
  const std::string abs = (home_ / ".ssh/id_ed25519").string();
  const std::vector<std::string> spellings = {
      abs,
      "../.ssh/id_ed25519",
      "~/.ssh/id_ed25519",
      "./../.ssh//id_ed25519",
      (home_ / ".ssh/../.ssh/./id_ed25519").string(),
      "sshlink/id_ed25519",
      "homelink/.ssh/id_ed25519",
      "/proc/self/root" + abs,
      "/proc/self/cwd/../.ssh/id_ed25519",
      "/proc/thread-self/root" + abs,
  };
  int refused = 0;
  for (const auto& p : spellings) {
    ToolResult r = Use("read", {{"path", p}});
    EXPECT_FALSE(Contains(r.text, kSecret)) << p << ": " << r.text;
    refused += r.is_error || !Contains(r.text, kSecret);
    ToolResult g = Use("grep", {{"pattern", "SECRET"}, {"path", p}});
    EXPECT_FALSE(Contains(g.text, kSecret)) << p << ": " << g.text;
    ToolResult l = Use("ls", {{"path", fs::path(p).parent_path().string()}});
    EXPECT_FALSE(Contains(l.text, "id_ed25519")) << p << ": " << l.text;
    ToolResult b = Use("bash", {{"command", "cat '" + p + "' 2>&1; ls -a '" +
                                                fs::path(p).parent_path().string() + "' 2>&1"}});
    EXPECT_FALSE(Contains(b.text, kSecret)) << p << ": " << b.text;
    EXPECT_FALSE(Contains(b.text, "id_ed25519\n")) << p << ": " << b.text;
    ToolResult w = Use("write", {{"path", p}, {"content", "pwned"}});
    EXPECT_TRUE(w.is_error) << p << ": " << w.text;
  }
  EXPECT_EQ(refused, static_cast<int>(spellings.size()));
  // The guard's refusal comes back from the worker typed, as it was made.
  ToolResult typed = Use("read", {{"path", abs}});
  ASSERT_EQ(typed.denials.size(), 1u) << typed.text;
  SCOPED_TRACE(typed.denials[0].text);
  EXPECT_EQ(typed.denials[0].kind, sandbox::DenialKind::kSecret);
  EXPECT_EQ(typed.denials[0].target, abs);
  ToolResult walk = Use("grep", {{"pattern", "SECRET"}, {"path", home_.string()}});
  EXPECT_FALSE(Contains(walk.text, kSecret)) << walk.text;
  ToolResult found = Use("find", {{"pattern", "**/id_*"}, {"path", home_.string()}});
  EXPECT_FALSE(Contains(found.text, "id_ed25519")) << found.text;
  EXPECT_TRUE(Contains(Get(home_ / ".ssh/id_ed25519"), kSecret));
  // Legitimate: the rest of the home is readable.
  EXPECT_TRUE(Contains(Use("read", {{"path", "~/.bashrc"}}).text, "# rc"));
}

// A folder of the workspace is swapped, over and over and as fast as the
// kernel allows, with a link to ~/.ssh while every tool works on it.
TEST_F(WorkerTest, SymlinkAndFolderSwapsRacedAgainstEveryToolNeverLeak) {
  fs::create_directories(ws_ / "dir");
  Put(ws_ / "dir/id_ed25519", "harmless\n");
  fs::create_symlink(home_ / ".ssh", ws_ / "alt");
  std::atomic<bool> stop{false};
  std::atomic<long> swaps{0};
  std::thread swapper([&] {
    std::string a = (ws_ / "dir").string(), b = (ws_ / "alt").string();
    while (!stop) {
      if (syscall(SYS_renameat2, AT_FDCWD, a.c_str(), AT_FDCWD, b.c_str(), 2 /*EXCHANGE*/) == 0)
        ++swaps;
    }
  });
  int leaks = 0, legit = 0, calls = 0;
  const int kRounds = 150;
  for (int i = 0; i < kRounds; ++i) {
    std::vector<ToolResult> results = {
        Use("read", {{"path", "dir/id_ed25519"}}),
        Use("grep", {{"pattern", "SECRET|harmless"}, {"path", "dir"}}),
        Use("grep", {{"pattern", "SECRET|harmless"}}),
        Use("ls", {{"path", "dir"}}),
        Use("find", {{"pattern", "**/*"}, {"path", "dir"}}),
        Use("edit", {{"path", "dir/id_ed25519"}, {"old_string", "OPENSSH"}, {"new_string", "X"}}),
        Use("write", {{"path", "dir/id_ed25519"}, {"content", "harmless\n"}}),
    };
    for (const auto& r : results) {
      ++calls;
      if (Contains(r.text, kSecret)) ++leaks;
      if (Contains(r.text, "harmless")) ++legit;
    }
  }
  stop = true;
  swapper.join();
  EXPECT_EQ(leaks, 0);
  EXPECT_GT(legit, 0);  // the legitimate folder was read between swaps
  EXPECT_GT(swaps.load(), 100);
  std::string key = Get(home_ / ".ssh/id_ed25519");
  EXPECT_TRUE(Contains(key, kSecret) && Contains(key, "OPENSSH")) << key;  // never written
  RecordProperty("calls", calls);
  RecordProperty("swaps", static_cast<int>(swaps.load()));
}

TEST_F(WorkerTest, FifosDevicesAndSocketsAreRefusedWithoutBlocking) {
  ASSERT_EQ(mkfifo((ws_ / "pipe").c_str(), 0600), 0);
  int sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::string sock_path = (ws_ / "sock").string();
  ASSERT_LT(sock_path.size(), sizeof addr.sun_path);
  memcpy(addr.sun_path, sock_path.c_str(), sock_path.size() + 1);
  ASSERT_EQ(bind(sock, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(listen(sock, 1), 0);
  for (const std::string& p : {(ws_ / "pipe").string(), sock_path, std::string("/dev/zero"),
                               std::string("/dev/tty"), std::string("/dev/null")}) {
    ToolResult r = Use("read", {{"path", p}});
    EXPECT_TRUE(r.is_error) << p << ": " << r.text;
    ToolResult e = Use("edit", {{"path", p}, {"old_string", "a"}, {"new_string", "b"}});
    EXPECT_TRUE(e.is_error) << p << ": " << e.text;
    ToolResult w = Use("write", {{"path", p}, {"content", "x"}});
    EXPECT_TRUE(w.is_error) << p << ": " << w.text;
  }
  EXPECT_TRUE(Contains(Use("read", {{"path", "pipe"}}).text, "not a regular file"));
  // grep walks past the FIFO and still finds the text next to it.
  Put(ws_ / "text.txt", "needle\n");
  ToolResult g = Use("grep", {{"pattern", "needle"}});
  EXPECT_TRUE(Contains(g.text, "text.txt")) << g.text;
  EXPECT_TRUE(fs::is_fifo(ws_ / "pipe"));  // write did not replace it
  EXPECT_TRUE(fs::is_socket(ws_ / "sock"));
  close(sock);
}

TEST_F(WorkerTest, CancelDuringABlockedCallReturns) {
  CancelToken cancel;
  ToolContext ctx = Context(&cancel);
  ctx.on_output = [&](std::string_view chunk) {
    if (Contains(std::string(chunk), "started")) cancel.Cancel();
  };
  ToolResult r = RunTool(*registry_->Find("bash"),
                         {{"command", "echo started; exec sleep 600"}}, ctx);
  EXPECT_TRUE(r.is_error) << r.text;
  // The session goes on.
  EXPECT_TRUE(Contains(Use("bash", {{"command", "echo next"}}).text, "next"));
}

TEST_F(WorkerTest, AWorkerThatDiesIsReplacedAtTheNextCall) {
  ASSERT_FALSE(Use("bash", {{"command", "echo old >/tmp/old"}}).is_error);
  pid_t init = worker_->sandbox_pid();  // the worker is the sandbox's pid 1
  ASSERT_GT(init, 0);
  ASSERT_EQ(kill(init, SIGKILL), 0);
  // Calls made before sepp has seen the worker go fail, saying so; then a
  // fresh sandbox answers (its /tmp is new).
  ToolResult r;
  int failed = 0;
  for (int i = 0; i < 1000; ++i) {
    r = Use("bash", {{"command", "cat /tmp/old 2>&1 || echo fresh"}});
    if (!r.is_error) break;
    ++failed;
    EXPECT_TRUE(Contains(r.text, "exited") || Contains(r.text, "did not finish")) << r.text;
  }
  EXPECT_TRUE(Contains(r.text, "fresh")) << r.text;
  EXPECT_NE(worker_->sandbox_pid(), init);
  EXPECT_LE(failed, 999);
}

TEST_F(WorkerTest, ParallelEditsOfOneFileAllLand) {
  std::string text;
  for (int i = 0; i < 16; ++i) text += "line" + std::to_string(i) + "\n";
  Put(ws_ / "f.txt", text);
  std::vector<std::thread> threads;
  std::vector<ToolResult> results(16);
  for (int i = 0; i < 16; ++i)
    threads.emplace_back([&, i] {
      std::string n = std::to_string(i);
      results[i] = Use("edit", {{"path", "f.txt"}, {"old_string", "line" + n + "\n"},
                                {"new_string", "edited" + n + "\n"}});
    });
  for (auto& t : threads) t.join();
  std::string after = Get(ws_ / "f.txt");
  for (int i = 0; i < 16; ++i) {
    EXPECT_FALSE(results[i].is_error) << results[i].text;
    EXPECT_TRUE(Contains(after, "edited" + std::to_string(i) + "\n")) << after;
  }
}

// A secret the policy passes into the sandbox (env_allow_secrets) is known
// to the worker, which redacts it from the saved file; sepp redacts it from
// the result.
TEST_F(WorkerTest, SavedOutputIsPrivateRedactedAndReadableInTheSandbox) {
  const std::string key = "h16-passed-in-secret-0123456789abcdef";
  setenv("SEPP_H16_TEST_TOKEN", key.c_str(), 1);
  RegisterSecret(key);
  policy_.env_allow_secrets.push_back("SEPP_H16_TEST_TOKEN");
  worker_ = std::make_unique<ToolWorker>(policy_, ws_, SEPP_BINARY_DIR "/sepp", false);
  ToolResult b = Use("bash", {{"command", "for i in $(seq 1 5000); do "
                                          "echo \"line $i $SEPP_H16_TEST_TOKEN\"; done"}});
  unsetenv("SEPP_H16_TEST_TOKEN");
  ASSERT_TRUE(b.truncated) << b.text;
  EXPECT_FALSE(Contains(b.text, key));
  EXPECT_TRUE(Contains(b.text, "[REDACTED]")) << b.text.substr(0, 500);
  ASSERT_TRUE(b.details.contains("full_output_path")) << b.text;
  std::string saved = b.details["full_output_path"];
  ToolResult r = Use("read", {{"path", saved}, {"offset", 4990}});
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_TRUE(Contains(r.text, "line 5000 [REDACTED]")) << r.text;
  ToolResult g = Use("grep", {{"pattern", "line 4321 "}, {"path", saved}});
  EXPECT_TRUE(Contains(g.text, "line 4321")) << g.text;
  // Checked in the sandbox itself, where the secret is in the environment.
  ToolResult mode = Use("bash", {{"command", "stat -c %a " + saved + "; grep -c \"$SEPP_H16_TEST_TOKEN\" " +
                                                 saved + " || true"}});
  EXPECT_TRUE(Contains(mode.text, "600\n0\n")) << mode.text;
}

// The session sandbox lives across commands, so a git control file that
// could not be made read-only in advance (commondir: git refuses an empty
// one) must go after the command that planted it, not at session end: the
// next command's git, and the user's own, would read config from elsewhere.
TEST_F(WorkerTest, PlantedGitControlIsRemovedAfterEachCommand) {
  ASSERT_EQ(std::system(("git init -q " + ws_.string()).c_str()), 0);
  fs::create_directories(ws_ / "elsewhere");
  ToolResult plant = Use("bash", {{"command", "echo ../elsewhere > .git/commondir; echo planted"}});
  EXPECT_TRUE(Contains(plant.text, "planted")) << plant.text;
  EXPECT_FALSE(fs::exists(ws_ / ".git" / "commondir"));
  EXPECT_TRUE(Contains(plant.text, "[sandbox]")) << plant.text;
  ASSERT_TRUE(plant.details.is_object());
  EXPECT_TRUE(plant.details.value("denied", false));
  ASSERT_EQ(plant.denials.size(), 1u);
  EXPECT_EQ(plant.denials[0].kind, sandbox::DenialKind::kProtected);
  EXPECT_EQ(plant.denials[0].target, (ws_ / ".git" / "commondir").string());
  // Legitimate git work in the same session still succeeds.
  ToolResult work = Use("bash", {{"command", "git -c user.name=t -c user.email=t@e "
                                             "commit -q --allow-empty -m one && git log --oneline"}});
  EXPECT_FALSE(work.is_error) << work.text;
  EXPECT_TRUE(Contains(work.text, "one")) << work.text;
  EXPECT_FALSE(Contains(work.text, "[sandbox]")) << work.text;
}

// The worker is pid 1 of its sandbox and reaps the orphans that commands
// leave behind; its reaper must never take the exit status of a command that
// a call waits for. Calls in parallel, each leaving orphans that exit while
// the call runs and ending with its own exit code: every call reports its
// own code, and no zombie is left.
TEST_F(WorkerTest, OrphansAreReapedAndNeverTakeACallsExitStatus) {
  constexpr int kThreads = 6, kCalls = 15;
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < kCalls; ++i) {
        int code = 1 + (t * kCalls + i) % 120;
        ToolContext ctx = Context();
        ToolResult r = RunTool(*registry_->Find("bash"),
                               {{"command", "for k in 1 2 3; do (true &); (exit 9 &); done; "
                                            "exit " + std::to_string(code)}},
                               ctx);
        if (!r.details.is_object() || r.details.value("exit_code", -1) != code) {
          ++wrong;
          ADD_FAILURE() << "expected exit code " << code << ": " << r.text;
        }
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
  // Every orphan was reaped (a zombie lingers only until the reaper's next
  // turn; the loop bounds the wait, it does not time it).
  ToolResult z = Use("bash", {{"command",
                               "for i in $(seq 1 2000); do n=0; for s in /proc/[0-9]*/stat; do "
                               "read -r line <$s 2>/dev/null || continue; case ${line##*) } in "
                               "Z*) n=$((n+1));; esac; done; [ $n -eq 0 ] && break; done; "
                               "echo zombies=$n"}});
  EXPECT_TRUE(Contains(z.text, "zombies=0")) << z.text;
  EXPECT_FALSE(z.is_error) << z.text;
}

// pid 1 of a pid namespace gets no signal from inside it that it has no
// handler for, SIGKILL included: a command cannot kill or stop the worker
// (and with it the session's sandbox); the next call runs in the same one.
TEST_F(WorkerTest, NothingInsideCanSignalTheWorker) {
  ASSERT_FALSE(Use("bash", {{"command", "echo kept >/tmp/kept"}}).is_error);
  pid_t pid = worker_->sandbox_pid();
  ToolResult r = Use("bash", {{"command", "for s in KILL TERM INT HUP QUIT SEGV ABRT STOP USR1; "
                                          "do kill -s $s 1 2>&1; done; echo sent"}});
  EXPECT_TRUE(Contains(r.text, "sent")) << r.text;
  ToolResult after = Use("bash", {{"command", "cat /tmp/kept; grep ^State: /proc/1/status"}});
  EXPECT_FALSE(after.is_error) << after.text;
  EXPECT_TRUE(Contains(after.text, "kept")) << after.text;
  EXPECT_FALSE(Contains(after.text, "stopped")) << after.text;
  EXPECT_EQ(worker_->sandbox_pid(), pid);
}

}  // namespace
}  // namespace sepp::tools
