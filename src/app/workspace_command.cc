// The workspace commands: a session in its own git worktree.
//
//   sepp new [--base REF] [--name N] [--no-attach] [-- agent options]
//   sepp list [--json]
//   sepp attach|resume [T] [-- agent options]
//   sepp status [T]      sepp diff [--stat] [--base REF] [T]
//   sepp merge [--remove] [--squash | --ff-only] [-m MSG] [T]
//   sepp push [T] [REMOTE]
//   sepp remove|rm [--delete-branch] [--force] [--purge] T
//
// T: a list index, name, branch or worktree path; by default the session
// the caller is inside, else the newest. The git side is workspace/; here
// are the arguments, the output, and starting the agent in a worktree (the
// same agent command as plain `sepp`, run with the worktree as its folder).
// docs/workspaces.md. Exit status: 0 done, 1 error or refusal, 2 usage.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "app/commands.h"
#include "app/session_stores.h"
#include "app/workspace_purge.h"
#include "base/clock.h"
#include "base/terminal_text.h"
#include "workspace/git.h"
#include "workspace/workspaces.h"

namespace sepp::app {
namespace {

namespace fs = std::filesystem;
using workspace::Repo;
using workspace::Workspace;

constexpr int kOk = 0, kError = 1, kUsage = 2;

int Fail(const std::string& command, const std::string& message) {
  std::fprintf(stderr, "sepp %s: %s\n", command.c_str(), VisibleControls(message).c_str());
  return kError;
}

// argv split at "--": what is after it goes to the agent.
struct SplitArgs {
  std::vector<std::string> own;
  std::vector<std::string> agent;
};

SplitArgs Split(int argc, char** argv) {
  SplitArgs s;
  bool after = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (!after && a == "--") {
      after = true;
      continue;
    }
    (after ? s.agent : s.own).push_back(a);
  }
  return s;
}

// Parses `own` (the arguments after the command's name) with cli; a usage error or
// --help returns its exit status.
std::optional<int> Parse(CLI::App& cli, std::vector<std::string> own) {
  std::reverse(own.begin(), own.end());  // CLI11 takes them back to front
  try {
    cli.parse(own);
  } catch (const CLI::ParseError& e) {
    int code = cli.exit(e);
    return code == 0 ? kOk : kUsage;
  }
  return std::nullopt;
}

// The newest session in the worktree: its first prompt names the commit
// that takes the pending work, and its time is the last activity.
struct SessionFacts {
  std::string id;
  std::string first_prompt;
  int64_t modified_ms = 0;
};

// stores: opened once by a caller that asks for many workspaces; null
// opens them here.
SessionFacts FactsOf(const Workspace& w, Stores* stores = nullptr) {
  SessionFacts f;
  Result<Stores> own = Error{"unused", "other"};
  if (!stores) {
    own = OpenStores("");
    if (!own.ok()) return f;
    stores = &*own;
  }
  for (auto& store : stores->open) {
    auto list = store->List(w.slot.worktree.string());
    if (!list.ok()) continue;
    for (const auto& s : *list)
      if (s.modified_ms > f.modified_ms) f = {s.id, s.first_prompt, s.modified_ms};
  }
  return f;
}

std::string PendingMessage(const Workspace& w) {
  SessionFacts f = FactsOf(w);
  std::string first = f.first_prompt.substr(0, f.first_prompt.find('\n'));
  if (first.size() > 60) first = first.substr(0, 57) + "...";
  std::string m = first.empty() ? "Apply sepp session " + w.slot.name : "sepp: " + first;
  m += "\n\nChanges made in sepp session " + w.slot.name + " (branch " + w.branch + ")";
  if (!f.id.empty()) m += ", session " + f.id;
  return m + ".\n";
}

std::string Ago(int64_t ms) {
  if (ms <= 0) return "-";
  int64_t s = (NowMs() - ms) / 1000;
  if (s < 60) return std::to_string(std::max<int64_t>(s, 0)) + "s ago";
  if (s < 3600) return std::to_string(s / 60) + "m ago";
  if (s < 86400) return std::to_string(s / 3600) + "h ago";
  return std::to_string(s / 86400) + "d ago";
}

Result<Repo> RepoHere() { return workspace::FindRepo(fs::current_path()); }

// Runs the agent in the worktree, holding the live lock, as plain `sepp`
// would run there (TUI, -p, --rpc: whatever the options say). `resume`
// continues the worktree's latest session unless the options name one.
int RunAgentIn(const Workspace& w, std::vector<std::string> agent_args, bool resume,
               const std::string& command) {
  auto lock = workspace::LiveLock::Take(w);
  if (!lock.ok()) return Fail(command, lock.error().message);
  std::error_code ec;
  if (!fs::exists(w.slot.worktree, ec))
    return Fail(command, "the worktree " + w.slot.worktree.string() +
                             " is gone (sepp remove " + w.slot.name + " forgets the session)");
  fs::current_path(w.slot.worktree, ec);
  if (ec) return Fail(command, "cannot enter " + w.slot.worktree.string() + ": " + ec.message());
  bool names_session = false;
  for (const auto& a : agent_args)
    for (const char* f : {"-c", "--continue", "-r", "--resume", "--session", "--fork", "--branch",
                          "--no-session"})
      names_session = names_session || a == f || a.rfind(std::string(f) + "=", 0) == 0;
  if (resume && !names_session && !FactsOf(w).id.empty()) agent_args.insert(agent_args.begin(), "-c");
  std::vector<std::string> storage = {"sepp"};
  storage.insert(storage.end(), agent_args.begin(), agent_args.end());
  std::vector<char*> argv;
  for (auto& s : storage) argv.push_back(s.data());
  argv.push_back(nullptr);
  int code = RunAgentCommand(static_cast<int>(storage.size()), argv.data());
  std::fprintf(stderr, "sepp: session %s on %s (sepp diff %s, sepp merge %s)\n", w.slot.name.c_str(),
               w.branch.c_str(), w.slot.name.c_str(), w.slot.name.c_str());
  return code;
}

int New(int argc, char** argv) {
  SplitArgs args = Split(argc, argv);
  CLI::App cli{"Starts a session in a new git worktree on its own branch (docs/workspaces.md)", "sepp new"};
  workspace::CreateOptions o;
  bool no_attach = false, json = false;
  cli.add_option("--base", o.base, "branch from this ref (default: $SEPP_BASE_REF, else the current branch)");
  cli.add_option("--name", o.name, "the session's name; its branch is sepp/NAME (default: time + random)");
  cli.add_flag("--no-attach", no_attach, "make the worktree and print it; start the agent later (sepp attach)");
  cli.add_flag("--json", json, "with --no-attach: print the workspace as JSON");
  if (auto code = Parse(cli, args.own)) return *code;
  auto repo = RepoHere();
  if (!repo.ok()) return Fail("new", repo.error().message);
  auto w = workspace::Create(*repo, o);
  if (!w.ok()) return Fail("new", w.error().message);
  if (no_attach) {
    if (json) {
      std::printf("%s\n", workspace::WorkspaceToJson(*w).dump().c_str());
    } else {
      std::printf("created %s at %s (scratch %s)\nattach with: sepp attach %s\n", w->branch.c_str(),
                  w->slot.worktree.c_str(), w->slot.scratch.c_str(), w->slot.name.c_str());
    }
    return kOk;
  }
  std::fprintf(stderr, "sepp: session %s on %s in %s\n", w->slot.name.c_str(), w->branch.c_str(),
               w->slot.worktree.c_str());
  return RunAgentIn(*w, args.agent, /*resume=*/false, "new");
}

int ListCommand(int argc, char** argv) {
  SplitArgs args = Split(argc, argv);
  CLI::App cli{"Lists this repository's sepp sessions", "sepp list"};
  bool json = false;
  std::string base;
  cli.add_flag("--json", json, "one JSON array");
  cli.add_option("--base", base, "compare with this ref (default: each session's base)");
  if (auto code = Parse(cli, args.own)) return *code;
  auto repo = RepoHere();
  if (!repo.ok()) return Fail("list", repo.error().message);
  auto all = workspace::List(*repo);
  if (!all.ok()) return Fail("list", all.error().message);
  Json rows = Json::array();
  auto stores = OpenStores("");
  for (const auto& w : *all) {
    workspace::State st = workspace::StateOf(w, base);
    SessionFacts f = stores.ok() ? FactsOf(w, &*stores) : SessionFacts{};
    Json j = workspace::WorkspaceToJson(w);
    j["state"] = !st.worktree_exists ? "missing" : st.live ? "live" : "stopped";
    j["ahead"] = st.ahead;
    j["behind"] = st.behind;
    j["changed_files"] = st.changed_files;
    j["compared_with"] = st.base;
    j["session"] = f.id;
    j["last_active_ms"] = std::max(f.modified_ms, w.created_ms);
    j["current"] = repo->inside && repo->inside->name == w.slot.name;
    rows.push_back(std::move(j));
  }
  if (json) {
    std::printf("%s\n", rows.dump().c_str());
    return kOk;
  }
  if (rows.empty()) {
    std::printf("No sepp sessions for this repository (start one with: sepp new).\n");
    return kOk;
  }
  std::printf("%-3s %-8s %-28s %-12s %-8s %-10s %s\n", "#", "STATE", "NAME", "AHEAD/BEHIND", "CHANGED",
              "ACTIVE", "WORKTREE");
  int i = 0;
  for (const auto& r : rows) {
    std::string ab = std::to_string(r["ahead"].get<int>()) + "/" + std::to_string(r["behind"].get<int>());
    std::string name = (r["current"].get<bool>() ? "*" : "") + r["name"].get<std::string>();
    std::printf("%-3d %-8s %-28s %-12s %-8d %-10s %s\n", ++i, r["state"].get<std::string>().c_str(),
                VisibleControls(name).c_str(), ab.c_str(), r["changed_files"].get<int>(),
                Ago(r["last_active_ms"].get<int64_t>()).c_str(),
                VisibleControls(r["worktree"].get<std::string>()).c_str());
  }
  return kOk;
}

// The commands that act on one workspace: parse, find the target, act.
struct Target {
  Repo repo;
  Workspace w;
};

Result<Target> FindTarget(const std::string& t) {
  auto repo = RepoHere();
  if (!repo.ok()) return repo.error();
  auto w = workspace::Find(*repo, t);
  if (!w.ok()) return w.error();
  return Target{*repo, *w};
}

int Attach(int argc, char** argv, const std::string& name) {
  SplitArgs args = Split(argc, argv);
  CLI::App cli{"Starts the agent again in a session's worktree, continuing its latest session",
               "sepp " + name};
  std::string target;
  cli.add_option("target", target, "list index, name, branch or worktree path (default: newest)");
  if (auto code = Parse(cli, args.own)) return *code;
  auto t = FindTarget(target);
  if (!t.ok()) return Fail(name, t.error().message);
  return RunAgentIn(t->w, args.agent, /*resume=*/true, name);
}

int StatusCommand(int argc, char** argv) {
  SplitArgs args = Split(argc, argv);
  CLI::App cli{"Shows a session's branch, base, state and changes", "sepp status"};
  std::string target, base;
  cli.add_option("target", target, "list index, name, branch or worktree path");
  cli.add_option("--base", base, "compare with this ref");
  if (auto code = Parse(cli, args.own)) return *code;
  auto t = FindTarget(target);
  if (!t.ok()) return Fail("status", t.error().message);
  workspace::State st = workspace::StateOf(t->w, base);
  std::printf("%s: branch %s, base %s, %d ahead, %d behind\n%s\n%s\n",
              VisibleControls(t->w.slot.name).c_str(), t->w.branch.c_str(),
              VisibleControls(st.base).c_str(), st.ahead, st.behind,
              VisibleControls(t->w.slot.worktree.string()).c_str(),
              !st.worktree_exists ? "worktree missing" : st.live ? "agent live" : "agent stopped");
  if (!st.worktree_exists) return kOk;
  auto s = workspace::StatusText(t->w, base);
  if (!s.ok()) return Fail("status", s.error().message);
  std::fwrite(s->data(), 1, s->size(), stdout);
  return kOk;
}

int DiffCommand(int argc, char** argv) {
  SplitArgs args = Split(argc, argv);
  CLI::App cli{"What a session changed, against the merge base with its base", "sepp diff"};
  std::string target, base;
  bool stat = false;
  cli.add_option("target", target, "list index, name, branch or worktree path");
  cli.add_option("--base", base, "compare with this ref (default: $SEPP_BASE_REF, else the session's base)");
  cli.add_flag("--stat", stat, "a summary per file");
  if (auto code = Parse(cli, args.own)) return *code;
  auto t = FindTarget(target);
  if (!t.ok()) return Fail("diff", t.error().message);
  auto d = workspace::Diff(t->w, base, stat);
  if (!d.ok()) return Fail("diff", d.error().message);
  std::fwrite(d->data(), 1, d->size(), stdout);
  return kOk;
}

// The worktree, scratch and record (workspace::Remove), then what the
// session left in $SEPP_HOME (workspace_purge.h); purge: its logs too.
int RemoveWorkspace(const Target& t, bool delete_branch, bool force, bool purge, const std::string& command) {
  auto st = workspace::Remove(t.repo, t.w, delete_branch, force);
  if (!st.ok()) return Fail(command, st.error().message);
  // The memory project key of a session in a worktree of this repository
  // (runtime/recall.cc names it so).
  PurgeReport p = PurgeWorkspaceData(t.w.slot.worktree, "git:" + t.repo.key, purge);
  std::string kept = delete_branch ? " and its branch" : "; the branch " + t.w.branch + " stays";
  std::printf("removed %s (%s)%s\n", t.w.slot.name.c_str(), t.w.slot.worktree.c_str(), kept.c_str());
  std::printf("deleted %lld stored output(s)", static_cast<long long>(p.outputs));
  if (purge)
    std::printf(", %lld session log(s) and %lld session memory(ies)", static_cast<long long>(p.sessions),
                static_cast<long long>(p.memories));
  std::printf("\n");
  if (p.sessions_kept > 0)
    std::printf("kept its %lld session log(s): sepp sessions list --all shows them, sepp sessions rm ID "
                "deletes one (remove --purge deletes them with the worktree)\n",
                static_cast<long long>(p.sessions_kept));
  for (const auto& problem : p.problems) Fail(command, problem);
  return p.problems.empty() ? kOk : kError;
}

int MergeCommand(int argc, char** argv) {
  SplitArgs args = Split(argc, argv);
  CLI::App cli{"Merges a session's branch into the branch checked out here", "sepp merge"};
  std::string target, message;
  bool remove = false, squash = false, ff_only = false;
  cli.add_option("target", target, "list index, name, branch or worktree path");
  cli.add_flag("--remove", remove, "remove the worktree afterwards (the branch stays)");
  auto* sq = cli.add_flag("--squash", squash, "one commit with all of the session's changes");
  cli.add_flag("--ff-only", ff_only, "only a fast-forward")->excludes(sq);
  cli.add_option("-m,--message", message, "the merge commit's message");
  if (auto code = Parse(cli, args.own)) return *code;
  auto t = FindTarget(target);
  if (!t.ok()) return Fail("merge", t.error().message);
  auto top = workspace::Git(fs::current_path(), {"rev-parse", "--show-toplevel"});
  if (!top.ok() || !top->ok()) return Fail("merge", "run sepp merge from a checkout of the repository");
  workspace::MergeOptions mo;
  mo.mode = squash    ? workspace::MergeMode::kSquash
            : ff_only ? workspace::MergeMode::kFastForwardOnly
                      : workspace::MergeMode::kNoFastForward;
  mo.message = message;
  mo.pending_message = PendingMessage(t->w);
  auto m = workspace::Merge(t->w, workspace::Trimmed(top->out), mo);
  if (!m.ok()) return Fail("merge", m.error().message);
  std::fwrite(m->report.data(), 1, m->report.size(), stdout);
  if (!m->merged) {
    std::printf("conflicting files:\n");
    for (const auto& f : m->conflicts) std::printf("  %s\n", VisibleControls(f).c_str());
    return kError;
  }
  return remove ? RemoveWorkspace(*t, false, false, false, "merge") : kOk;
}

int PushCommand(int argc, char** argv) {
  SplitArgs args = Split(argc, argv);
  CLI::App cli{"Commits a session's pending work and pushes its branch", "sepp push"};
  std::vector<std::string> positional;
  cli.add_option("target_and_remote", positional, "[T] [REMOTE] (remote: $SEPP_GIT_REMOTE, else origin)")
      ->expected(0, 2);
  if (auto code = Parse(cli, args.own)) return *code;
  std::string target, remote;
  if (positional.size() == 2) {
    target = positional[0];
    remote = positional[1];
  } else if (positional.size() == 1) {
    // One word: a remote if the repository has one by that name.
    auto remotes = workspace::Git(fs::current_path(), {"remote"});
    bool is_remote = remotes.ok() && remotes->ok() &&
                     ("\n" + remotes->out).find("\n" + positional[0] + "\n") != std::string::npos;
    (is_remote ? remote : target) = positional[0];
  }
  if (remote.empty()) {
    const char* e = std::getenv("SEPP_GIT_REMOTE");
    remote = e && *e ? e : "origin";
  }
  auto t = FindTarget(target);
  if (!t.ok()) return Fail("push", t.error().message);
  auto code = workspace::Push(t->w, remote, PendingMessage(t->w));
  if (!code.ok()) return Fail("push", code.error().message);
  return *code == 0 ? kOk : kError;
}

int RemoveCommand(int argc, char** argv, const std::string& name) {
  SplitArgs args = Split(argc, argv);
  CLI::App cli{"Removes a session's worktree, scratch folder and stored outputs; the branch and the "
               "session logs stay", "sepp " + name};
  std::string target;
  bool delete_branch = false, force = false, purge = false;
  cli.add_option("target", target, "list index, name, branch or worktree path");
  cli.add_flag("--delete-branch", delete_branch, "delete the branch sepp/NAME too");
  cli.add_flag("--force", force, "remove even with uncommitted changes (they are lost)");
  cli.add_flag("--purge", purge, "delete the session logs and their session memories too");
  if (auto code = Parse(cli, args.own)) return *code;
  if (target.empty()) return Fail(name, "name the session to remove (see: sepp list)");
  auto t = FindTarget(target);
  if (!t.ok()) return Fail(name, t.error().message);
  return RemoveWorkspace(*t, delete_branch, force, purge, name);
}

}  // namespace

int RunWorkspaceCommand(int argc, char** argv) {
  std::string name = argv[0];
  if (name == "new") return New(argc, argv);
  if (name == "list") return ListCommand(argc, argv);
  if (name == "attach" || name == "resume") return Attach(argc, argv, name);
  if (name == "status") return StatusCommand(argc, argv);
  if (name == "diff") return DiffCommand(argc, argv);
  if (name == "merge") return MergeCommand(argc, argv);
  if (name == "push") return PushCommand(argc, argv);
  if (name == "remove" || name == "rm") return RemoveCommand(argc, argv, name);
  return Fail(name, "not a workspace command");
}

}  // namespace sepp::app
