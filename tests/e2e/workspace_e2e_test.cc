// Workspace sessions end to end (`sepp new`, list, diff, merge, push,
// remove; docs/workspaces.md): scripted repositories made by the test, the
// real binary, git outside and the agent inside its worktree's sandbox.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "base/file.h"
#include "base/ids.h"
#include "e2e/run_sepp.h"
#include "sqlite/sqlite_db.h"
#include "support/fake_provider.h"
#include "support/tool_results.h"
#include "workspace/git_servers.h"
#include "workspace/private_sshd.h"

namespace sepp::e2e {
namespace {

namespace fs = std::filesystem;

struct Sh {
  int code;
  std::string out;
};

// The home folder the tests' git runs with (no file of the machine's user).
fs::path g_home;

// A shell command in dir, for setting up and checking repositories.
Sh Shell(const fs::path& dir, const std::string& cmd) {
  std::string full = "export HOME='" + g_home.string() + "' GIT_CONFIG_NOSYSTEM=1 GIT_CEILING_DIRECTORIES='" +
                     g_home.parent_path().string() + "'; cd '" +
                     dir.string() + "' && (" + cmd + ") 2>&1";
  FILE* p = popen(full.c_str(), "r");
  Sh r{-1, ""};
  if (!p) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  int st = pclose(p);
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

class WorkspaceE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    // Not under /tmp: inside the sandbox /tmp is the sandbox's own.
    root_ = fs::path(SEPP_BINARY_DIR) / "test-tmp" / ("ws-e2e-" + NewId().substr(0, 12));
    repo_ = root_ / "repo";
    fs::create_directories(repo_);
    fs::create_directories(root_ / "home");
    g_home = root_ / "home";
    ASSERT_EQ(Shell(repo_, "git init -q -b main . && git config user.name T && "
                           "git config user.email t@example.com && printf 'one\\ntwo\\n' > a.txt && "
                           "git add a.txt && git commit -qm init")
                  .code,
              0);
  }
  void TearDown() override {
    fp_.Stop();
    fs::remove_all(root_);
  }
  std::map<std::string, std::string> Env() {
    return {{"PATH", "/usr/bin:/bin"},
            {"HOME", (root_ / "home").string()},
            {"SEPP_HOME", (root_ / "home" / ".sepp").string()},
            {"GIT_CONFIG_NOSYSTEM", "1"},
            // The test folder lies inside sepp's own checkout: git must not
            // find that repository from a folder of the test's.
            {"GIT_CEILING_DIRECTORIES", root_.string()},
            {"ANTHROPIC_BASE_URL", fp_.base_url()},
            {"ANTHROPIC_API_KEY", "sk-workspace-e2e-key"}};
  }
  RunOutput Sepp(std::vector<std::string> args, const fs::path& cwd) {
    RunOptions o;
    o.args = std::move(args);
    o.env = Env();
    o.cwd = cwd.string();
    return RunSepp(o);
  }
  Json NewWorkspace(const std::string& name) {
    auto r = Sepp({"new", "--no-attach", "--json", "--name", name}, repo_);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    Json j = Json::parse(r.out, nullptr, false);
    EXPECT_TRUE(j.is_object()) << r.out;
    return j;
  }
  Json List() {
    auto r = Sepp({"list", "--json"}, repo_);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return Json::parse(r.out, nullptr, false);
  }
  std::string ResultFor(const std::string& id) { return fake::LastToolResult(fp_, id); }
  fs::path root_, repo_;
  fake::FakeProvider fp_;
};

TEST_F(WorkspaceE2E, NewMakesABranchWorktreeAndScratchAndRefusesATakenName) {
  Json w = NewWorkspace("feat");
  EXPECT_EQ(w["branch"], "sepp/feat");
  fs::path wt = w["worktree"].get<std::string>();
  EXPECT_TRUE(fs::exists(wt / "a.txt"));
  EXPECT_TRUE(fs::is_directory(w["scratch"].get<std::string>()));
  EXPECT_EQ(Shell(wt, "git rev-parse --abbrev-ref HEAD").out, "sepp/feat\n");
  auto again = Sepp({"new", "--no-attach", "--name", "feat"}, repo_);
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_NE(again.err.find("exists already"), std::string::npos) << again.err;
  auto bad = Sepp({"new", "--no-attach", "--name", "../x"}, repo_);
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("invalid session name"), std::string::npos) << bad.err;
  // Two generated names in the same second do not collide.
  auto g1 = Sepp({"new", "--no-attach", "--json"}, repo_);
  auto g2 = Sepp({"new", "--no-attach", "--json"}, repo_);
  ASSERT_EQ(g1.exit_code, 0) << g1.err;
  ASSERT_EQ(g2.exit_code, 0) << g2.err;
  EXPECT_NE(Json::parse(g1.out)["branch"], Json::parse(g2.out)["branch"]);
  EXPECT_EQ(List().size(), 3u);
  // Outside a repository: a clear error.
  auto outside = Sepp({"new", "--no-attach"}, root_ / "home");
  EXPECT_EQ(outside.exit_code, 1);
  EXPECT_NE(outside.err.find("not in a git repository"), std::string::npos) << outside.err;
}

TEST_F(WorkspaceE2E, DiffAfterTheBaseMovedShowsOnlyTheSessionsChanges) {
  fs::path wt = NewWorkspace("feat")["worktree"].get<std::string>();
  ASSERT_EQ(Shell(wt, "printf 'one\\nTWO\\n' > a.txt && git commit -qam edit && echo new > b.txt").code, 0);
  ASSERT_EQ(Shell(repo_, "echo main-only > m.txt && git add m.txt && git commit -qm main").code, 0);
  auto d = Sepp({"diff", "feat"}, repo_);
  ASSERT_EQ(d.exit_code, 0) << d.err;
  EXPECT_NE(d.out.find("+TWO"), std::string::npos) << d.out;
  EXPECT_NE(d.out.find("b.txt"), std::string::npos) << d.out;  // untracked, as added
  EXPECT_EQ(d.out.find("m.txt"), std::string::npos) << d.out;
  auto stat = Sepp({"diff", "--stat", "feat"}, repo_);
  EXPECT_NE(stat.out.find("a.txt"), std::string::npos) << stat.out;
  Json l = List();
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(l[0]["ahead"], 1);
  EXPECT_EQ(l[0]["behind"], 1);
  EXPECT_EQ(l[0]["changed_files"], 1);
  EXPECT_EQ(l[0]["state"], "stopped");
  // From inside the worktree, the session is found without naming it.
  auto inside = Sepp({"diff"}, wt);
  EXPECT_EQ(inside.exit_code, 0) << inside.err;
  EXPECT_EQ(inside.out, d.out);
}

TEST_F(WorkspaceE2E, MergeRefusesADirtyDetachedOrSameBranchCheckoutThenMerges) {
  fs::path wt = NewWorkspace("feat")["worktree"].get<std::string>();
  ASSERT_EQ(Shell(wt, "echo session > s.txt").code, 0);  // pending: merge commits it
  ASSERT_EQ(Shell(repo_, "echo stray > stray.txt").code, 0);
  auto dirty = Sepp({"merge", "feat"}, repo_);
  EXPECT_EQ(dirty.exit_code, 1);
  EXPECT_NE(dirty.err.find("uncommitted or untracked"), std::string::npos) << dirty.err;
  fs::remove(repo_ / "stray.txt");
  auto same = Sepp({"merge"}, wt);
  EXPECT_EQ(same.exit_code, 1);
  EXPECT_NE(same.err.find("own branch"), std::string::npos) << same.err;
  ASSERT_EQ(Shell(repo_, "git checkout -q --detach").code, 0);
  auto detached = Sepp({"merge", "feat"}, repo_);
  EXPECT_EQ(detached.exit_code, 1);
  EXPECT_NE(detached.err.find("detached"), std::string::npos) << detached.err;
  ASSERT_EQ(Shell(repo_, "git checkout -q main").code, 0);
  // Refusals changed nothing, not even the session's pending work.
  EXPECT_EQ(Shell(wt, "git status --porcelain").out, "?? s.txt\n");

  auto ok = Sepp({"merge", "--remove", "feat"}, repo_);
  ASSERT_EQ(ok.exit_code, 0) << ok.err << ok.out;
  EXPECT_TRUE(fs::exists(repo_ / "s.txt"));
  EXPECT_EQ(Shell(repo_, "git log -1 --format=%s").out, "Merge sepp session feat\n");
  EXPECT_EQ(Shell(repo_, "git log -1 --format=%s HEAD^2").out, "Apply sepp session feat\n");
  EXPECT_FALSE(fs::exists(wt));
  EXPECT_EQ(Shell(repo_, "git rev-parse --verify -q sepp/feat >/dev/null").code, 0);  // branch kept
  EXPECT_TRUE(List().empty());
}

TEST_F(WorkspaceE2E, AConflictingMergeIsAbortedCleanlyAndListsTheFiles) {
  fs::path wt = NewWorkspace("feat")["worktree"].get<std::string>();
  ASSERT_EQ(Shell(wt, "echo session > a.txt && git commit -qam s").code, 0);
  ASSERT_EQ(Shell(repo_, "echo main > a.txt && git commit -qam m").code, 0);
  std::string before = Shell(repo_, "git rev-parse HEAD").out;
  auto r = Sepp({"merge", "feat"}, repo_);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("aborted"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  a.txt"), std::string::npos) << r.out;
  EXPECT_EQ(Shell(repo_, "git status --porcelain").out, "");
  EXPECT_EQ(Shell(repo_, "git rev-parse HEAD").out, before);
  EXPECT_FALSE(fs::exists(repo_ / ".git" / "MERGE_HEAD"));
  // --squash and --ff-only stop the same way.
  EXPECT_EQ(Sepp({"merge", "--squash", "feat"}, repo_).exit_code, 1);
  EXPECT_EQ(Shell(repo_, "git status --porcelain").out, "");
  EXPECT_EQ(Sepp({"merge", "--ff-only", "feat"}, repo_).exit_code, 1);
  EXPECT_EQ(Shell(repo_, "git rev-parse HEAD").out, before);
}

TEST_F(WorkspaceE2E, PushCommitsPendingWorkAndPushesTheBranchToALocalRemote) {
  ASSERT_EQ(Shell(root_, "git init -q --bare remote.git").code, 0);
  ASSERT_EQ(Shell(repo_, "git remote add origin '" + (root_ / "remote.git").string() + "'").code, 0);
  fs::path wt = NewWorkspace("feat")["worktree"].get<std::string>();
  ASSERT_EQ(Shell(wt, "echo pushed > p.txt").code, 0);
  auto r = Sepp({"push", "feat", "origin"}, repo_);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(Shell(root_ / "remote.git", "git show sepp/feat:p.txt").out, "pushed\n");
  EXPECT_EQ(Shell(wt, "git status --porcelain").out, "");
  // One word that is a remote is the remote; the session is the newest.
  ASSERT_EQ(Shell(wt, "echo more >> p.txt").code, 0);
  EXPECT_EQ(Sepp({"push", "origin"}, repo_).exit_code, 0);
  EXPECT_EQ(Shell(root_ / "remote.git", "git show sepp/feat:p.txt").out, "pushed\nmore\n");
}

TEST_F(WorkspaceE2E, RemoveKeepsTheBranchRefusesLostWorkAndALiveSession) {
  Json w = NewWorkspace("feat");
  fs::path wt = w["worktree"].get<std::string>();
  ASSERT_EQ(Shell(wt, "echo unsaved > u.txt").code, 0);
  auto refused = Sepp({"remove", "feat"}, repo_);
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.err.find("--force"), std::string::npos) << refused.err;
  EXPECT_TRUE(fs::exists(wt / "u.txt"));
  // A sepp running in the workspace holds its lock: shown live, not removed.
  fs::path lock = wt.parent_path() / "feat.lock";
  int fd = open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(flock(fd, LOCK_EX), 0);
  EXPECT_EQ(List()[0]["state"], "live");
  auto live = Sepp({"remove", "--force", "feat"}, repo_);
  EXPECT_EQ(live.exit_code, 1);
  EXPECT_NE(live.err.find("running"), std::string::npos) << live.err;
  auto attach = Sepp({"attach", "feat", "--", "-p", "hi"}, repo_);
  EXPECT_EQ(attach.exit_code, 1);
  EXPECT_NE(attach.err.find("running already"), std::string::npos) << attach.err;
  close(fd);
  auto forced = Sepp({"remove", "--force", "feat"}, repo_);
  ASSERT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_FALSE(fs::exists(wt));
  EXPECT_FALSE(fs::exists(w["scratch"].get<std::string>()));
  EXPECT_EQ(Shell(repo_, "git rev-parse --verify -q sepp/feat >/dev/null").code, 0);
  NewWorkspace("gone");
  ASSERT_EQ(Sepp({"remove", "--delete-branch", "gone"}, repo_).exit_code, 0);
  EXPECT_NE(Shell(repo_, "git rev-parse --verify -q sepp/gone").code, 0);
}

// Rows of the table in the database file under SEPP_HOME matching where.
int64_t Rows(const fs::path& db, const std::string& table, const std::string& where) {
  auto d = sqlite::SqliteDb::Open(db);
  if (!d.ok()) return -1;
  auto q = sqlite::SqliteStmt::Prepare(**d, ("SELECT count(*) FROM " + table + " WHERE " + where).c_str());
  if (!q.ok() || !q->Step().ok()) return -1;
  return q->Int(0);
}

// JSONL session logs whose header names folder as their cwd.
int SessionLogsOf(const fs::path& sepp_home, const fs::path& folder) {
  int n = 0;
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(sepp_home / "sessions", ec)) {
    if (e.path().extension() != ".jsonl") continue;
    std::ifstream in(e.path());
    std::string header;
    std::getline(in, header);
    Json h = Json::parse(header, nullptr, false);
    n += h.is_object() && h.value("cwd", "") == folder.string();
  }
  return n;
}

// `sepp remove` takes what only the session had in SEPP_HOME: its stored
// outputs (a new session of the same name, in the same folder, finds none
// of them), its saved grants and prompt history; other sessions' outputs
// stay. The session log stays unless --purge, which takes it and its
// session memories, never the project's.
TEST_F(WorkspaceE2E, RemoveDeletesTheSessionsStoredOutputsAndOnlyThose) {
  fs::path home = root_ / "home" / ".sepp";
  auto call = [](const std::string& id, const std::string& name, Json args) {
    return Json{{"tool_calls", {{{"id", id}, {"name", name}, {"arguments", std::move(args)}}}}};
  };
  // 2,000 lines: over the sidecar's threshold, stored whole.
  auto big = [](const std::string& word) {
    return "for i in $(seq 1 2000); do echo \"line $i of the build log " + word + "\"; done";
  };
  const std::string gone_word = "PURGEDWORDq7x", kept_word = "KEPTWORDz3k";
  auto search = [&](const std::string& id, const std::string& word) {
    return call(id, "context_search", {{"query", word}, {"global", true}});
  };
  ASSERT_TRUE(fp_.Start().ok());
  fp_.SetScript({{"responses",
                  {call("out", "bash", {{"command", big(gone_word)}}), search("found", gone_word),
                   call("smem", "memory_add", {{"text", "session memo SMEMOk2"}, {"scope", "session"}}),
                   call("pmem", "memory_add", {{"text", "project memo PMEMOk2"}, {"scope", "project"}}),
                   Json{{"text", "done"}}}}});
  auto r = Sepp({"new", "--name", "big", "--", "-p", "build"}, repo_);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_NE(ResultFor("out").find("[context-sidecar]"), std::string::npos) << ResultFor("out");
  ASSERT_NE(ResultFor("found").find(gone_word), std::string::npos) << ResultFor("found");
  fp_.SetScript({{"responses", {call("out2", "bash", {{"command", big(kept_word)}}), Json{{"text", "done"}}}}});
  ASSERT_EQ(Sepp({"new", "--name", "keep", "--", "-p", "build"}, repo_).exit_code, 0);
  const fs::path context = home / "context.db", memory = home / "memory.db";
  ASSERT_EQ(Rows(context, "context_sources", "1"), 2);

  // What the session's folder keyed in SEPP_HOME: a grant, the prompt history.
  fs::path wt = List()[0]["worktree"].get<std::string>();
  std::string key;
  for (char c : wt.string()) key += c == '/' ? '-' : c;
  fs::create_directories(home / "grants");
  ASSERT_TRUE(WriteFileAtomic(home / "grants" / (key + ".toml"), "allow_domains = [\"x.example\"]\n").ok());
  fs::create_directories(home / "history");
  ASSERT_TRUE(WriteFileAtomic(home / "history" / (key + ".jsonl"), "{\"text\":\"build\"}\n").ok());

  // (--delete-branch: a session of the same name, below, needs the name free)
  auto removed = Sepp({"remove", "--force", "--delete-branch", "big"}, repo_);
  ASSERT_EQ(removed.exit_code, 0) << removed.err;
  EXPECT_NE(removed.out.find("deleted 1 stored output(s)"), std::string::npos) << removed.out;
  EXPECT_NE(removed.out.find("kept its 1 session log(s)"), std::string::npos) << removed.out;
  EXPECT_EQ(Rows(context, "context_sources", "1"), 1);
  EXPECT_EQ(Rows(context, "context_chunks", "content LIKE '%" + gone_word + "%'"), 0);
  EXPECT_EQ(Rows(context, "context_chunks_fts", "context_chunks_fts MATCH '" + gone_word + "'"), 0);
  EXPECT_GT(Rows(context, "context_chunks", "content LIKE '%" + kept_word + "%'"), 0);
  EXPECT_FALSE(fs::exists(home / "grants" / (key + ".toml")));
  EXPECT_FALSE(fs::exists(home / "history" / (key + ".jsonl")));
  EXPECT_EQ(Rows(memory, "memories", "level = 'session'"), 1);  // with the kept log
  EXPECT_EQ(SessionLogsOf(home, wt), 1);

  // A new session in the same folder finds none of it; the other session
  // still finds its own.
  fp_.SetScript({{"responses", {search("after", gone_word), Json{{"text", "done"}}}}});
  auto again = Sepp({"new", "--name", "big", "--", "-p", "look"}, repo_);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(ResultFor("after").find("No indexed context matched"), std::string::npos) << ResultFor("after");
  EXPECT_EQ(ResultFor("after").find(gone_word), std::string::npos) << ResultFor("after");
  fp_.SetScript({{"responses", {search("other", kept_word), Json{{"text", "done"}}}}});
  ASSERT_EQ(Sepp({"attach", "keep", "--", "-p", "look"}, repo_).exit_code, 0);
  EXPECT_NE(ResultFor("other").find(kept_word), std::string::npos) << ResultFor("other");

  // --purge: every session log of the folder (the one kept above too) and
  // its session memories go; the project's memory and the other
  // workspace's outputs stay.
  auto purged = Sepp({"remove", "--force", "--purge", "big"}, repo_);
  ASSERT_EQ(purged.exit_code, 0) << purged.err;
  EXPECT_NE(purged.out.find("deleted 0 stored output(s), 2 session log(s) and 1 session memory(ies)"),
            std::string::npos) << purged.out;
  EXPECT_EQ(Rows(memory, "memories", "level = 'session'"), 0);
  EXPECT_EQ(Rows(memory, "memories", "level = 'project' AND text LIKE '%PMEMOk2%'"), 1);
  EXPECT_EQ(Rows(context, "context_sources", "1"), 1);
  EXPECT_EQ(SessionLogsOf(home, wt), 0);
  EXPECT_EQ(SessionLogsOf(home, wt.parent_path() / "keep"), 1);
}

// The agent in its worktree: commits work, writes its scratch folder; the
// shared git directory's control files and the rest of SEPP_HOME stay out
// of reach. Then `sepp attach` continues the same session.
TEST_F(WorkspaceE2E, TheAgentCommitsInItsWorktreeButCannotTouchGitControlOrSeppHome) {
  fs::path home = root_ / "home" / ".sepp";
  fs::create_directories(home);
  ASSERT_TRUE(WriteFileAtomic(home / "settings.toml", "# marker-in-sepp-home\n").ok());
  fs::path common = repo_ / ".git";
  std::string config_before = *ReadFile(common / "config");
  auto bash = [](const std::string& id, const std::string& cmd) {
    return Json{{"tool_calls", {{{"id", id}, {"name", "bash"}, {"arguments", {{"command", cmd}}}}}}};
  };
  Json script = {
      bash("work", "echo agent > agent.txt && git add agent.txt && git commit -qm agent-work && echo committed"),
      bash("config", "echo '[core]' >> '" + (common / "config").string() + "' && echo WROTE-CONFIG"),
      bash("hook", "echo 'touch /x' > '" + (common / "hooks" / "pre-commit").string() +
                       "' && echo WROTE-HOOK"),
      bash("home", "cat '" + (home / "settings.toml").string() + "' || echo NO-HOME"),
      Json{{"text", "done"}}};
  ASSERT_TRUE(fp_.Start().ok());
  fp_.SetScript({{"responses", script}});
  auto r = Sepp({"new", "--name", "agent", "--", "-p", "make agent.txt"}, repo_);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  fs::path wt = List()[0]["worktree"].get<std::string>();
  EXPECT_NE(ResultFor("work").find("committed"), std::string::npos) << ResultFor("work");
  EXPECT_EQ(Shell(repo_, "git show sepp/agent:agent.txt").out, "agent\n");
  EXPECT_EQ(ResultFor("config").find("WROTE-CONFIG"), std::string::npos) << ResultFor("config");
  EXPECT_EQ(ResultFor("hook").find("WROTE-HOOK"), std::string::npos) << ResultFor("hook");
  EXPECT_EQ(*ReadFile(common / "config"), config_before);
  EXPECT_FALSE(fs::exists(common / "hooks" / "pre-commit"));
  EXPECT_NE(ResultFor("home").find("NO-HOME"), std::string::npos) << ResultFor("home");
  EXPECT_EQ(ResultFor("home").find("marker-in-sepp-home"), std::string::npos);
  // The system prompt names the scratch folder, and the session is listed.
  std::string scratch = List()[0]["scratch"];
  std::string system = fp_.requests().at(0).body.dump();
  EXPECT_NE(system.find(scratch), std::string::npos);
  EXPECT_FALSE(List()[0]["session"].get<std::string>().empty());

  // Scratch is writable from inside; attach continues the session.
  fp_.SetScript({{"responses",
                  {bash("s2", "echo bulky > '" + scratch + "/big.txt' && echo SCRATCH-OK"),
                   Json{{"text", "again"}}}}});
  size_t before = fp_.requests().size();
  auto again = Sepp({"attach", "agent", "--", "-p", "write scratch"}, repo_);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(ResultFor("s2").find("SCRATCH-OK"), std::string::npos) << ResultFor("s2");
  EXPECT_EQ(*ReadFile(fs::path(scratch) / "big.txt"), "bulky\n");
  // Continued: the first request of the second run carries the first run's prompt.
  EXPECT_NE(fp_.requests().at(before).body.dump().find("make agent.txt"), std::string::npos);
}

// git inside a workspace session's sandbox, through the whole session
// (the agent's bash in the session's tool worker): SEPP_HTTP_ALLOWED_HOSTS
// opens the one remote it names, nothing else; a bad host list stops the
// session before it starts (tests/workspace has the attacks in detail).
TEST_F(WorkspaceE2E, GitInsideTheSessionReachesOnlyTheAllowedRemote) {
  ASSERT_EQ(testing_git::MakeDumbRemote(root_), 0);
  testing_git::DumbGitServer allowed(root_ / "srv"), other(root_ / "srv");
  const std::string a = std::to_string(allowed.port()), o = std::to_string(other.port());
  auto bash = [](const std::string& id, const std::string& cmd) {
    return Json{{"tool_calls", {{{"id", id}, {"name", "bash"}, {"arguments", {{"command", cmd}}}}}}};
  };
  ASSERT_TRUE(fp_.Start().ok());
  fp_.SetScript({{"responses",
                  {bash("allowed", "git clone -q http://localhost:" + a + "/remote.git c1 && git -C c1 log --format=%s"),
                   bash("other", "git clone -q http://localhost:" + o + "/remote.git c2; echo rc=$?"),
                   Json{{"text", "done"}}}}});
  RunOptions run;
  run.args = {"new", "--name", "egress", "--", "-p", "clone the remote"};
  run.env = Env();
  run.env["SEPP_HTTP_ALLOWED_HOSTS"] = "localhost:" + a;
  run.cwd = repo_.string();
  auto r = RunSepp(run);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(ResultFor("allowed").find("seed commit"), std::string::npos) << ResultFor("allowed");
  EXPECT_NE(ResultFor("other").find("rc=128"), std::string::npos) << ResultFor("other");
  EXPECT_GT(allowed.connections(), 0);
  EXPECT_EQ(other.connections(), 0);

  run.env["SEPP_SSH_HOSTS"] = "*";
  run.args = {"attach", "egress", "--", "-p", "again"};
  auto bad = RunSepp(run);
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("SEPP_SSH_HOSTS"), std::string::npos) << bad.err;
}

// The same over SSH, against a real sshd (tests/workspace/private_sshd.h):
// the agent's git clones and fetches through the session's tunnel with a
// deploy key in the worktree and the host key given; another port is
// refused. Skips only where sshd is not installed.
TEST_F(WorkspaceE2E, GitInsideTheSessionClonesAndFetchesOverSsh) {
  std::string sshd = testing_git::PrivateSshd::Find();
  if (sshd.empty()) GTEST_SKIP() << "sshd is not installed (apt-get install openssh-server; scripts/setup does)";
  ASSERT_EQ(testing_git::MakeDumbRemote(root_), 0);
  testing_git::PrivateSshd server(sshd, root_ / "sshd");
  ASSERT_EQ(server.error(), "");
  fs::path wt = NewWorkspace("ssh")["worktree"].get<std::string>();
  fs::copy_file(server.client_key(), wt / "deploy_key");
  fs::permissions(wt / "deploy_key", fs::perms::owner_read | fs::perms::owner_write);
  const std::string port = std::to_string(server.port());
  const std::string url = "ssh://" + server.user() + "@localhost:" + port + (root_ / "srv/remote.git").string();
  const std::string prelude = "printf '%s\\n' '[localhost]:" + port + " " + server.host_public_key() +
                              "' > /tmp/sepp-ssh-known_hosts; export GIT_SSH_COMMAND=\"$GIT_SSH_COMMAND -i " +
                              (wt / "deploy_key").string() + "\"; ";
  auto bash = [](const std::string& id, const std::string& cmd) {
    return Json{{"tool_calls", {{{"id", id}, {"name", "bash"}, {"arguments", {{"command", cmd}}}}}}};
  };
  ASSERT_TRUE(fp_.Start().ok());
  fp_.SetScript({{"responses",
                  {bash("clone", prelude + "git clone -q '" + url + "' c && git -C c log --format=%s"),
                   Json{{"text", "done"}}}}});
  RunOptions run;
  run.args = {"attach", "ssh", "--", "-p", "clone over ssh"};
  run.env = Env();
  run.env["SEPP_SSH_HOSTS"] = "localhost:" + port;
  run.cwd = repo_.string();
  auto r = RunSepp(run);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(ResultFor("clone").find("seed commit"), std::string::npos) << ResultFor("clone") << server.log();
  EXPECT_TRUE(server.WaitFor("Accepted publickey", 1)) << server.log();

  // The remote moves on; the next run of the session fetches it, and
  // another port of the same host is refused by the proxy.
  ASSERT_EQ(Shell(root_ / "seed", "echo more >> f && git -c user.name=t -c user.email=t@t commit -qam 'second commit' && "
                                  "git push -q '" + (root_ / "srv/remote.git").string() + "' HEAD:refs/heads/main")
                .code,
            0);
  fp_.SetScript({{"responses",
                  {bash("fetch", prelude + "git -C c fetch -q origin && git -C c log --format=%s origin/main"),
                   bash("other", prelude + "git ls-remote 'ssh://" + server.user() + "@localhost:1/x.git'; echo rc=$?"),
                   Json{{"text", "done"}}}}});
  run.args = {"attach", "ssh", "--", "-p", "fetch"};
  auto again = RunSepp(run);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(ResultFor("fetch").find("second commit"), std::string::npos) << ResultFor("fetch") << server.log();
  EXPECT_NE(ResultFor("other").find("egress proxy refused localhost:1"), std::string::npos) << ResultFor("other");
  EXPECT_TRUE(server.WaitFor("Accepted publickey", 2)) << server.log();
}

}  // namespace
}  // namespace sepp::e2e
