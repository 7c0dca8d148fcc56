#include "workspace/workspaces.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <sstream>
#include <thread>

#include "base/clock.h"
#include "base/file.h"
#include "base/ids.h"
#include "base/sha256.h"
#include "workspace/git.h"

namespace sepp::workspace {

namespace fs = std::filesystem;

namespace {

Error GitError(const std::string& what, const GitOutput& g) {
  std::string detail = Trimmed(g.err.empty() ? g.out : g.err);
  return Error{what + (detail.empty() ? "" : ": " + detail), "git"};
}

// One line of output of a git command that must succeed.
Result<std::string> GitLine(const fs::path& cwd, const std::vector<std::string>& args,
                            const std::string& what) {
  auto g = Git(cwd, args);
  if (!g.ok()) return g.error();
  if (!g->ok()) return GitError(what, *g);
  return Trimmed(g->out);
}

bool Resolves(const fs::path& cwd, const std::string& ref) {
  auto g = Git(cwd, {"rev-parse", "--verify", "--quiet", ref + "^{commit}"});
  return g.ok() && g->ok();
}

// Names become folder names and branch names: a conservative alphabet.
Status CheckName(const std::string& name) {
  bool ok = !name.empty() && name.size() <= 64 && std::isalnum(static_cast<unsigned char>(name[0]));
  for (char c : name)
    ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.');
  ok = ok && name.find("..") == std::string::npos && !name.ends_with(".json") &&
       !name.ends_with(".lock") && !name.ends_with(".");
  if (!ok)
    return Error{"invalid session name '" + name +
                     "': use 1-64 letters, digits, '-', '_' or '.', starting with a letter or digit",
                 "usage"};
  return Ok();
}

std::string GeneratedName() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", &tm);
  return std::string(buf) + "-" + ShortId().substr(0, 4);
}

Result<Workspace> ReadRecord(const fs::path& path) {
  auto text = ReadFile(path);
  if (!text.ok()) return text.error();
  Json j = Json::parse(*text, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return Error{path.string() + ": not a workspace record (invalid JSON); remove it by hand", "corrupt"};
  auto slot = SlotOf(path.parent_path() / path.stem());
  if (!slot) return Error{path.string() + ": not under " + WorktreesRoot().string(), "corrupt"};
  Workspace w;
  w.slot = *slot;
  w.branch = j.value("branch", "sepp/" + w.slot.name);
  w.base_ref = j.value("base_ref", "");
  w.base_commit = j.value("base_commit", "");
  w.checkout = j.value("checkout", "");
  w.created_ms = j.value("created_ms", int64_t{0});
  return w;
}

int CountLines(const std::string& s) {
  return static_cast<int>(std::count(s.begin(), s.end(), '\n'));
}

bool Dirty(const fs::path& dir, std::string* porcelain = nullptr) {
  auto g = Git(dir, {"status", "--porcelain"});
  if (porcelain && g.ok()) *porcelain = g->out;
  return !g.ok() || !g->ok() || !g->out.empty();
}

// Untracked (not ignored) files of the worktree, one per line.
std::vector<std::string> Untracked(const fs::path& dir) {
  std::vector<std::string> files;
  auto g = Git(dir, {"ls-files", "--others", "--exclude-standard", "-z"});
  if (!g.ok() || !g->ok()) return files;
  std::string_view rest = g->out;
  while (!rest.empty()) {
    size_t end = rest.find('\0');
    files.emplace_back(rest.substr(0, end));
    if (end == std::string_view::npos) break;
    rest.remove_prefix(end + 1);
  }
  return files;
}

}  // namespace

Result<Repo> FindRepo(const fs::path& dir) {
  // One git for the three facts (every command starts here; `sepp new`'s
  // time beyond `git worktree add` is mostly the git processes it starts).
  // --show-toplevel fails outside a work tree (a bare repository, or inside
  // .git) after the first two are printed.
  auto g = Git(dir, {"rev-parse", "--path-format=absolute", "--git-common-dir", "--is-bare-repository",
                     "--show-toplevel"});
  if (!g.ok()) return g.error();
  std::vector<std::string> lines;
  std::istringstream in(g->out);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  if (lines.size() < 2 || lines[0].empty())
    return Error{dir.string() + " is not in a git repository (sepp new needs one: git init, or cd into it)",
                 "not_a_repository"};
  Repo r;
  std::error_code ec;
  r.common_dir = fs::weakly_canonical(lines[0], ec);
  bool is_bare = lines[1] == "true";
  if (!is_bare) r.checkout = r.common_dir.parent_path();
  std::string stem = (is_bare ? r.common_dir : r.checkout).filename().string();
  if (stem.ends_with(".git")) stem.resize(stem.size() - 4);
  if (stem.empty() || CheckName(stem).ok() == false) stem = "repo";
  r.key = stem + "-" + Sha256Hex(r.common_dir.string()).substr(0, 8);
  if (g->ok() && lines.size() >= 3) {
    fs::path t = fs::weakly_canonical(lines[2], ec);
    if (auto slot = SlotOf(t); slot && slot->repo_key == r.key && slot->worktree == t) r.inside = slot;
  }
  return r;
}

Json WorkspaceToJson(const Workspace& w) {
  return Json{{"name", w.slot.name},
              {"branch", w.branch},
              {"base_ref", w.base_ref},
              {"base_commit", w.base_commit},
              {"checkout", w.checkout},
              {"created_ms", w.created_ms},
              {"worktree", w.slot.worktree.string()},
              {"scratch", w.slot.scratch.string()}};
}

namespace {

// What `sepp new` must know before `git worktree add`, from one git: the
// commit each name resolves to, "" when it names none (missing, ambiguous,
// or not a commit). Names with a line break are refused before this.
Result<std::vector<std::string>> CommitsOf(const fs::path& from, const std::vector<std::string>& names) {
  std::string input;
  for (const auto& n : names) input += n + "^{commit}\n";
  auto g = Git(from, {"cat-file", "--batch-check=%(objectname) %(objecttype)"}, input);
  if (!g.ok()) return g.error();
  if (!g->ok()) return GitError("git cat-file failed", *g);
  std::vector<std::string> out;
  std::istringstream in(g->out);
  for (std::string line; out.size() < names.size() && std::getline(in, line);) {
    size_t sp = line.find(' ');
    bool commit = sp != std::string::npos && line.substr(sp + 1) == "commit" &&
                  std::all_of(line.begin(), line.begin() + static_cast<long>(sp), ::isxdigit);
    out.push_back(commit ? line.substr(0, sp) : "");
  }
  if (out.size() != names.size()) return Error{"git cat-file answered " + std::to_string(out.size()) +
                                                   " of " + std::to_string(names.size()) + " names", "git"};
  return out;
}

}  // namespace

Result<Workspace> Create(const Repo& repo, const CreateOptions& options) {
  fs::path from = repo.checkout.empty() ? repo.common_dir : repo.checkout;
  if (!options.name.empty())
    if (auto st = CheckName(options.name); !st.ok()) return st.error();
  // The base: what the caller works on, so the session starts where they are.
  std::string base = options.base;
  bool given = !base.empty();
  if (base.empty())
    if (const char* e = std::getenv("SEPP_BASE_REF"); e && *e) base = e, given = true;
  if (std::any_of(base.begin(), base.end(), [](char c) { return c == '\n' || c == '\r' || c == '\0'; }))
    return Error{"base '" + base + "' holds a line break: give a branch, tag or commit", "usage"};
  if (base.empty()) {
    auto b = Git(from, {"symbolic-ref", "--quiet", "--short", "HEAD"});
    if (b.ok() && b->ok()) base = Trimmed(b->out);
  }

  for (int attempt = 0;; ++attempt) {
    std::string name = options.name.empty() ? GeneratedName() : options.name;
    WorktreeSlot slot = SlotFor(repo.key, name);
    std::string branch = "sepp/" + name;
    // The base's commit (or HEAD's, for a detached or unborn HEAD) and
    // whether the branch is taken, in one git.
    std::vector<std::string> names = {base.empty() ? "HEAD" : base, "refs/heads/" + branch};
    if (!given && !base.empty()) names.push_back("HEAD");
    auto commits = CommitsOf(from, names);
    if (!commits.ok()) return commits.error();
    std::string commit = (*commits)[0];
    std::string base_ref = base;
    if (commit.empty() && given)
      return Error{"base '" + base + "' does not name a commit in " + from.string() +
                       " (give --base REF or set SEPP_BASE_REF to a branch, tag or commit)",
                   "usage"};
    if (commit.empty() || base.empty()) {
      // No branch checked out (detached), or one without a commit yet: HEAD's commit.
      commit = names.size() > 2 ? (*commits)[2] : commit;
      base_ref = commit;
    }
    if (commit.empty())
      return Error{"the repository has no commit yet: make one first (sepp new branches from it)", "usage"};
    std::error_code ec;
    bool taken = fs::exists(slot.worktree, ec) || fs::exists(slot.record, ec) || !(*commits)[1].empty();
    if (taken) {
      if (!options.name.empty())
        return Error{"a session named '" + name + "' exists already (branch " + branch +
                         " or " + slot.worktree.string() + "): choose another --name",
                     "exists"};
      if (attempt < 8) continue;
      return Error{"could not find a free session name", "exists"};
    }
    fs::create_directories(slot.worktree.parent_path(), ec);
    auto add = Git(from, {"worktree", "add", "--quiet", "-b", branch, slot.worktree.string(), commit});
    if (!add.ok()) return add.error();
    if (!add->ok()) return GitError("git worktree add failed", *add);
    fs::create_directories(slot.scratch, ec);
    if (ec) return Error{"cannot make the scratch folder " + slot.scratch.string() + ": " + ec.message(), "io"};
    Workspace w;
    w.slot = slot;
    w.branch = branch;
    w.base_ref = base_ref;
    w.base_commit = commit;
    w.checkout = from.string();
    w.created_ms = NowMs();
    Json j = WorkspaceToJson(w);
    j.erase("worktree");
    j.erase("scratch");
    j.erase("name");
    if (auto st = WriteFileAtomic(slot.record, j.dump(2) + "\n", 0600); !st.ok()) return st.error();
    return w;
  }
}

Result<std::vector<Workspace>> List(const Repo& repo) {
  std::vector<Workspace> out;
  fs::path dir = WorktreesRoot() / repo.key;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() != ".json") continue;
    auto w = ReadRecord(e.path());
    if (!w.ok()) return w.error();
    out.push_back(std::move(*w));
  }
  std::sort(out.begin(), out.end(), [](const Workspace& a, const Workspace& b) {
    return a.created_ms != b.created_ms ? a.created_ms < b.created_ms : a.slot.name < b.slot.name;
  });
  return out;
}

Result<Workspace> Find(const Repo& repo, const std::string& target) {
  auto all = List(repo);
  if (!all.ok()) return all.error();
  if (all->empty())
    return Error{"no sepp sessions for this repository (start one with: sepp new)", "not_found"};
  if (target.empty() || target == "latest") {
    if (repo.inside && target.empty())
      for (const auto& w : *all)
        if (w.slot.name == repo.inside->name) return w;
    return all->back();
  }
  if (std::all_of(target.begin(), target.end(), ::isdigit) && target.size() < 6) {
    size_t i = std::stoul(target);
    if (i >= 1 && i <= all->size()) return (*all)[i - 1];
  }
  std::error_code ec;
  fs::path as_path = fs::weakly_canonical(fs::absolute(target, ec), ec);
  for (const auto& w : *all)
    if (w.slot.name == target || w.branch == target || w.slot.worktree == as_path) return w;
  return Error{"no sepp session '" + target + "' in this repository (see: sepp list)", "not_found"};
}

LiveLock::LiveLock(LiveLock&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
LiveLock::~LiveLock() {
  if (fd_ >= 0) close(fd_);
}

namespace {
fs::path LockPath(const Workspace& w) {
  fs::path p = w.slot.record;
  p.replace_extension(".lock");
  return p;
}
}  // namespace

Result<LiveLock> LiveLock::Take(const Workspace& w) {
  int fd = open(LockPath(w).c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return Error{"cannot open " + LockPath(w).string() + ": " + std::strerror(errno), "io"};
  // A lister (IsLive) holds a shared lock for a moment: try for a while
  // before calling the workspace taken.
  bool got = false;
  for (int i = 0; i < 20 && !got; ++i) {
    got = flock(fd, LOCK_EX | LOCK_NB) == 0;
    if (!got) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (!got) {
    close(fd);
    return Error{"session '" + w.slot.name + "' is running already in another sepp (" +
                     w.slot.worktree.string() + ")",
                 "live"};
  }
  return LiveLock(fd);
}

bool IsLive(const Workspace& w) {
  int fd = open(LockPath(w).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  // A shared lock taken and dropped at once: it fails only while a holder
  // has the exclusive one (Take retries past a lister's moment).
  bool live = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  close(fd);
  return live;
}

std::string BaseFor(const Workspace& w, const std::string& base_override) {
  if (!base_override.empty()) return base_override;
  if (const char* e = std::getenv("SEPP_BASE_REF"); e && *e) return e;
  if (!w.base_ref.empty() && Resolves(w.slot.worktree, w.base_ref)) return w.base_ref;
  return w.base_commit;
}

State StateOf(const Workspace& w, const std::string& base_override) {
  State s;
  std::error_code ec;
  s.worktree_exists = fs::exists(w.slot.worktree / ".git", ec);
  s.live = IsLive(w);
  if (!s.worktree_exists) return s;
  s.base = BaseFor(w, base_override);
  auto counts = Git(w.slot.worktree, {"rev-list", "--left-right", "--count", s.base + "...HEAD"});
  if (counts.ok() && counts->ok()) {
    std::istringstream in(counts->out);
    in >> s.behind >> s.ahead;
  }
  auto st = Git(w.slot.worktree, {"status", "--porcelain"});
  if (st.ok() && st->ok()) s.changed_files = CountLines(st->out);
  return s;
}

Result<std::string> Diff(const Workspace& w, const std::string& base_override, bool stat) {
  std::string base = BaseFor(w, base_override);
  if (!Resolves(w.slot.worktree, base))
    return Error{"base '" + base + "' does not resolve in " + w.slot.worktree.string() +
                     " (give --base REF or set SEPP_BASE_REF)",
                 "usage"};
  auto mb = GitLine(w.slot.worktree, {"merge-base", base, "HEAD"}, "finding the merge base");
  if (!mb.ok()) return mb.error();
  std::vector<std::string> args = {"diff", "--no-color"};
  if (stat) args.push_back("--stat");
  args.push_back(*mb);
  auto d = Git(w.slot.worktree, args);
  if (!d.ok()) return d.error();
  if (!d->ok()) return GitError("git diff failed", *d);
  std::string out = d->out;
  // Untracked files are part of what the session did: shown as added.
  for (const auto& f : Untracked(w.slot.worktree)) {
    std::vector<std::string> a = {"diff", "--no-color", "--no-index"};
    if (stat) a.push_back("--stat");
    a.insert(a.end(), {"--", "/dev/null", f});
    auto u = Git(w.slot.worktree, a);
    if (!u.ok()) return u.error();
    if (u->exit_code > 1) return GitError("git diff of " + f + " failed", *u);
    out += u->out;
  }
  return out;
}

Result<std::string> StatusText(const Workspace& w, const std::string& base_override) {
  auto s = Git(w.slot.worktree, {"status", "--short", "--branch"});
  if (!s.ok()) return s.error();
  if (!s->ok()) return GitError("git status failed", *s);
  std::string out = s->out;
  auto d = Diff(w, base_override, /*stat=*/true);
  if (d.ok() && !d->empty()) out += "\n" + *d;
  return out;
}

Result<bool> CommitPending(const Workspace& w, const std::string& message) {
  if (!Dirty(w.slot.worktree)) return false;
  auto add = Git(w.slot.worktree, {"add", "-A"});
  if (!add.ok()) return add.error();
  if (!add->ok()) return GitError("git add failed in " + w.slot.worktree.string(), *add);
  auto c = Git(w.slot.worktree, {"commit", "--quiet", "--no-verify", "-m", message});
  if (!c.ok()) return c.error();
  if (!c->ok()) return GitError("committing the session's pending changes failed", *c);
  return true;
}

Result<MergeOutcome> Merge(const Workspace& w, const fs::path& into, const MergeOptions& options) {
  auto head = Git(into, {"symbolic-ref", "--quiet", "--short", "HEAD"});
  if (!head.ok()) return head.error();
  if (!head->ok())
    return Error{"refusing to merge: " + into.string() +
                     " has a detached HEAD (check out the branch to merge into)",
                 "refused"};
  std::string target = Trimmed(head->out);
  if (target == w.branch)
    return Error{"refusing to merge: " + into.string() + " has the session's own branch " + w.branch +
                     " checked out (run sepp merge from the checkout to merge into)",
                 "refused"};
  std::string porcelain;
  if (Dirty(into, &porcelain))
    return Error{"refusing to merge: " + into.string() +
                     " has uncommitted or untracked changes (commit or stash them first):\n" +
                     porcelain,
                 "refused"};
  MergeOutcome outcome;
  std::string pending = options.pending_message.empty()
                            ? "Apply sepp session " + w.slot.name
                            : options.pending_message;
  auto committed = CommitPending(w, pending);
  if (!committed.ok()) return committed.error();
  if (*committed) outcome.report += "committed the session's pending changes on " + w.branch + "\n";
  std::string message =
      options.message.empty() ? "Merge sepp session " + w.slot.name : options.message;

  std::vector<std::string> args = {"merge", "--no-edit"};
  switch (options.mode) {
    case MergeMode::kNoFastForward: args.insert(args.end(), {"--no-ff", "-m", message}); break;
    case MergeMode::kSquash: args.push_back("--squash"); break;
    case MergeMode::kFastForwardOnly: args.push_back("--ff-only"); break;
  }
  args.push_back(w.branch);
  auto m = Git(into, args);
  if (!m.ok()) return m.error();
  if (m->ok() && options.mode == MergeMode::kSquash) {
    auto c = Git(into, {"commit", "--quiet", "-m", message});
    if (!c.ok()) return c.error();
    if (!c->ok()) {
      // Nothing to commit: the branch adds nothing the target lacks.
      if (!Dirty(into)) {
        outcome.merged = true;
        outcome.report += "nothing to merge: " + target + " has everything on " + w.branch + "\n";
        return outcome;
      }
      (void)Git(into, {"reset", "--merge"});
      return GitError("committing the squashed merge failed (nothing was changed)", *c);
    }
  }
  if (m->ok()) {
    outcome.merged = true;
    outcome.report += "merged " + w.branch + " into " + target + "\n" + m->out;
    return outcome;
  }
  // Failed: list conflicts, then put the checkout back as it was.
  auto u = Git(into, {"diff", "--name-only", "--diff-filter=U"});
  if (u.ok() && u->ok()) {
    std::istringstream in(u->out);
    for (std::string line; std::getline(in, line);)
      if (!line.empty()) outcome.conflicts.push_back(line);
  }
  auto abort = Git(into, {"merge", "--abort"});
  if (!abort.ok() || !abort->ok()) (void)Git(into, {"reset", "--merge"});
  if (outcome.conflicts.empty()) return GitError("git merge failed (nothing was changed)", *m);
  outcome.report += "merge of " + w.branch + " into " + target +
                    " stopped on conflicts and was aborted; nothing was changed\n";
  return outcome;
}

Result<int> Push(const Workspace& w, const std::string& remote, const std::string& pending_message) {
  auto committed = CommitPending(w, pending_message.empty() ? "Apply sepp session " + w.slot.name
                                                            : pending_message);
  if (!committed.ok()) return committed.error();
  return GitInteractive(w.slot.worktree, {"push", "-u", remote, w.branch});
}

Status Remove(const Repo& repo, const Workspace& w, bool delete_branch, bool force) {
  if (IsLive(w))
    return Error{"session '" + w.slot.name + "' is running in another sepp; end it first", "live"};
  std::error_code ec;
  fs::path from = repo.checkout.empty() ? repo.common_dir : repo.checkout;
  if (fs::exists(w.slot.worktree, ec)) {
    std::string porcelain;
    if (!force && Dirty(w.slot.worktree, &porcelain))
      return Error{"session '" + w.slot.name + "' has uncommitted changes that removing would lose:\n" +
                       porcelain + "commit them (sepp merge / sepp push do), or remove with --force",
                   "refused"};
    auto g = Git(from, {"worktree", "remove", "--force", w.slot.worktree.string()});
    if (!g.ok()) return g.error();
    if (!g->ok()) return GitError("git worktree remove failed", *g);
  }
  (void)Git(from, {"worktree", "prune"});
  fs::remove_all(w.slot.scratch, ec);
  fs::remove(w.slot.record, ec);
  fs::remove(LockPath(w), ec);
  if (delete_branch) {
    auto b = Git(from, {"branch", "-D", w.branch});
    if (!b.ok()) return b.error();
    if (!b->ok()) return GitError("deleting branch " + w.branch + " failed", *b);
  }
  return Ok();
}

}  // namespace sepp::workspace
