#include "front/serve/fs_worker_main.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <string>
#include <vector>

#include "base/base64.h"
#include "base/clock.h"
#include "base/fd.h"
#include "base/json.h"
#include "tools/worker_protocol.h"

namespace sepp::front::serve {
namespace {

// Bytes one read or write carries (base64 in a frame stays under the frame limit).
constexpr off_t kMaxFileBytes = 32 << 20;

struct Root {
  std::string path;  // canonical, no trailing '/'
  UniqueFd fd;       // O_PATH | O_DIRECTORY
};

struct Failure {
  int err;
  std::string what;
};

Json Fail(const Failure& f) {
  return {{"ok", false}, {"errno", f.err}, {"message", f.what + ": " + ErrnoText(f.err)}};
}

// One name in dirfd, never followed if it is a symlink.
int OpenHere(int dirfd, const std::string& name, int flags, mode_t mode = 0) {
  for (;;) {
    int fd = openat(dirfd, name.c_str(), flags | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd < 0 && errno == EINTR) continue;
    return fd;
  }
}

std::vector<std::string> Parts(std::string_view path) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    if (end > start) out.emplace_back(path.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// Opens rel beneath root as openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)
// would (the sandbox's seccomp filter answers openat2 with ENOSYS): one
// component at a time with O_NOFOLLOW on a folder we hold open; ".." pops
// our own stack and never goes above the root; a symlink is read and its
// target resolved the same way, relative to where it is, or from the root
// when absolute, and refused (EXDEV) when it leaves the root (/proc's magic
// links included). A symlink swapped in between two steps is found by the
// next step's O_NOFOLLOW, so no race leads outside.
int OpenBeneath(const Root& root, const std::string& rel, int flags, mode_t mode = 0) {
  std::vector<UniqueFd> stack;
  stack.emplace_back(OpenHere(root.fd.get(), ".", O_PATH | O_DIRECTORY));
  if (!stack.back().valid()) return -1;
  std::vector<std::string> todo = Parts(rel);
  std::reverse(todo.begin(), todo.end());  // a stack: the next part at the back
  int hops = 0;
  if (todo.empty()) return OpenHere(root.fd.get(), ".", flags, mode);
  while (!todo.empty()) {
    std::string part = std::move(todo.back());
    todo.pop_back();
    if (part == ".") {
      if (todo.empty()) return OpenHere(stack.back().get(), ".", flags, mode);
      continue;
    }
    if (part == "..") {
      if (stack.size() == 1) {
        errno = EXDEV;
        return -1;
      }
      stack.pop_back();
      if (todo.empty()) return OpenHere(stack.back().get(), ".", flags, mode);
      continue;
    }
    int dir = stack.back().get();
    bool last = todo.empty();
    int fd = last ? OpenHere(dir, part, flags, mode) : OpenHere(dir, part, O_PATH | O_DIRECTORY);
    struct stat st;
    bool is_link = false;
    if (fd >= 0) {
      // O_PATH | O_NOFOLLOW opens a symlink itself.
      if ((flags & O_PATH) && last && fstat(fd, &st) == 0 && S_ISLNK(st.st_mode)) {
        close(fd);
        is_link = true;
      } else if (last) {
        return fd;
      } else {
        stack.emplace_back(fd);
        continue;
      }
    } else {
      int err = errno;
      if ((err == ELOOP || err == ENOTDIR || err == EMLINK) &&
          fstatat(dir, part.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
        is_link = true;
      if (!is_link) {
        errno = err;
        return -1;
      }
    }
    if (++hops > 40) {
      errno = ELOOP;
      return -1;
    }
    char target[4096];
    ssize_t n = readlinkat(dir, part.c_str(), target, sizeof target);
    if (n < 0 || n == static_cast<ssize_t>(sizeof target)) {
      if (n >= 0) errno = ENAMETOOLONG;
      return -1;
    }
    std::string t(target, static_cast<size_t>(n));
    if (!t.empty() && t.front() == '/') {
      bool inside = t == root.path || (t.size() > root.path.size() && t.compare(0, root.path.size(), root.path) == 0 &&
                                       t[root.path.size()] == '/');
      if (!inside) {
        errno = EXDEV;  // leaves the workspace
        return -1;
      }
      t = t.substr(root.path.size());
      stack.resize(1);
    }
    std::vector<std::string> more = Parts(t);
    for (auto it = more.rbegin(); it != more.rend(); ++it) todo.push_back(*it);
    if (more.empty() && todo.empty()) return OpenHere(stack.back().get(), ".", flags, mode);
  }
  return OpenHere(stack.back().get(), ".", flags, mode);
}

class Worker {
 public:
  explicit Worker(std::vector<Root> roots) : roots_(std::move(roots)) {}

  Json Handle(const Json& req) {
    std::string op = req.value("op", "");
    std::string path = req.value("path", "");
    if (op == "move") return Move(req.value("from", ""), req.value("to", ""), req.value("overwrite", false));
    if (op == "copy") return Copy(req.value("from", ""), req.value("to", ""));
    const Root* root = nullptr;
    std::string rel;
    if (!Locate(path, &root, &rel)) return Fail({EXDEV, path + " is outside the workspaces"});
    if (op == "entries") return Entries(*root, rel, path);
    if (op == "stat") return Stat(*root, rel, path);
    if (op == "read") return Read(*root, rel, path);
    if (op == "write") return Write(*root, rel, path, req.value("data", ""));
    if (op == "mkdir") return Mkdir(*root, rel, path);
    if (op == "delete") return Delete(*root, rel, path, req.value("recursive", false));
    return Fail({EINVAL, "unknown operation \"" + op + "\""});
  }

 private:
  // The workspace holding path (lexically; the kernel checks the rest) and
  // the path below it.
  bool Locate(const std::string& path, const Root** root, std::string* rel) const {
    const Root* best = nullptr;
    for (const auto& r : roots_) {
      bool inside = path == r.path ||
                    (path.size() > r.path.size() && path.compare(0, r.path.size(), r.path) == 0 &&
                     (r.path == "/" || path[r.path.size()] == '/'));
      if (inside && (!best || r.path.size() > best->path.size())) best = &r;
    }
    if (!best) return false;
    *root = best;
    *rel = path.size() > best->path.size() ? path.substr(best->path.size() + (best->path == "/" ? 0 : 1)) : "";
    return true;
  }

  static Json Info(const struct stat& st, const std::string& path) {
    return {{"path", path},
            {"entryType", S_ISDIR(st.st_mode) ? "directory" : "file"},
            {"size", static_cast<int64_t>(st.st_size)},
            {"modified", Iso8601(static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000)}};
  }

  // The folder holding rel's last component, opened beneath root, and that
  // component (never "", "." or "..").
  static int OpenParent(const Root& root, const std::string& rel, std::string* leaf, Failure* f) {
    size_t slash = rel.rfind('/');
    std::string dir = slash == std::string::npos ? "" : rel.substr(0, slash);
    *leaf = slash == std::string::npos ? rel : rel.substr(slash + 1);
    if (leaf->empty() || *leaf == "." || *leaf == "..") {
      *f = {EINVAL, "a workspace root itself cannot be changed"};
      return -1;
    }
    int fd = OpenBeneath(root, dir, O_PATH | O_DIRECTORY);
    if (fd < 0) *f = {errno, "cannot open the folder " + (dir.empty() ? root.path : root.path + "/" + dir)};
    return fd;
  }

  static Json Entries(const Root& root, const std::string& rel, const std::string& path) {
    UniqueFd dfd(OpenBeneath(root, rel, O_RDONLY | O_DIRECTORY));
    if (!dfd.valid()) return Fail({errno, "cannot list " + path});
    DIR* dir = fdopendir(dup(dfd.get()));
    if (!dir) return Fail({errno, "cannot list " + path});
    Json out = Json::array();
    std::vector<std::string> names;
    while (dirent* e = readdir(dir)) {
      std::string name = e->d_name;
      if (name != "." && name != "..") names.push_back(name);
    }
    closedir(dir);
    std::sort(names.begin(), names.end());
    for (const auto& name : names) {
      struct stat st;
      // A symlink is described by what it points to when that lies beneath
      // the workspace, else as itself.
      UniqueFd t(OpenBeneath(root, rel.empty() ? name : rel + "/" + name, O_PATH));
      if (!(t.valid() && fstat(t.get(), &st) == 0) && fstatat(dfd.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
        continue;  // gone meanwhile
      Json info = Info(st, path == "/" ? "/" + name : path + "/" + name);
      info["name"] = name;
      out.push_back(std::move(info));
    }
    return {{"ok", true}, {"entries", std::move(out)}};
  }

  static Json Stat(const Root& root, const std::string& rel, const std::string& path) {
    UniqueFd fd(OpenBeneath(root, rel, O_PATH));
    struct stat st;
    if (!fd.valid() || fstat(fd.get(), &st) != 0) return Fail({errno, "cannot stat " + path});
    Json j = Info(st, path);
    j["ok"] = true;
    return j;
  }

  static Json Read(const Root& root, const std::string& rel, const std::string& path) {
    // O_NONBLOCK: a FIFO planted in the workspace must not hang the worker.
    UniqueFd fd(OpenBeneath(root, rel, O_RDONLY | O_NONBLOCK | O_NOCTTY));
    if (!fd.valid()) return Fail({errno, "cannot open " + path});
    struct stat st;
    if (fstat(fd.get(), &st) != 0) return Fail({errno, "cannot stat " + path});
    if (S_ISDIR(st.st_mode)) return Fail({EISDIR, path + " is a folder (list it with /v1/fs/entries)"});
    if (!S_ISREG(st.st_mode)) return Fail({EINVAL, path + " is not a regular file"});
    if (st.st_size > kMaxFileBytes)
      return Fail({EFBIG, path + " has " + std::to_string(st.st_size) + " bytes, over the limit of " +
                              std::to_string(kMaxFileBytes)});
    std::string data(static_cast<size_t>(st.st_size), '\0');
    size_t got = 0;
    while (got < data.size()) {
      ssize_t r = pread(fd.get(), data.data() + got, data.size() - got, static_cast<off_t>(got));
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) return Fail({errno, "cannot read " + path});
      if (r == 0) break;
      got += static_cast<size_t>(r);
    }
    data.resize(got);
    return {{"ok", true}, {"data", Base64Encode(data)}};
  }

  // Creates every missing folder of rel (like mkdir -p) beneath root,
  // following no symlink; the last one is returned open.
  static int MakeFolders(const Root& root, const std::string& rel, Failure* f) {
    UniqueFd cur(OpenBeneath(root, "", O_PATH | O_DIRECTORY));
    std::string prefix;
    std::string done = root.path;
    size_t start = 0;
    while (cur.valid() && start < rel.size()) {
      size_t end = rel.find('/', start);
      std::string part = rel.substr(start, end == std::string::npos ? std::string::npos : end - start);
      start = end == std::string::npos ? rel.size() : end + 1;
      if (part.empty() || part == ".") continue;
      done += "/" + part;
      if (part == "..") {
        *f = {EXDEV, done + " leaves the workspace"};
        return -1;
      }
      if (mkdirat(cur.get(), part.c_str(), 0755) != 0 && errno != EEXIST) {
        *f = {errno, "cannot make the folder " + done};
        return -1;
      }
      // Resolved from the root again: a folder that is a symlink inside the
      // workspace is followed, one that leads out is refused.
      prefix += (prefix.empty() ? "" : "/") + part;
      UniqueFd next(OpenBeneath(root, prefix, O_PATH | O_DIRECTORY));
      if (!next.valid()) {
        *f = {errno, "cannot open the folder " + done};
        return -1;
      }
      cur = std::move(next);
    }
    if (!cur.valid()) *f = {errno, "cannot open " + root.path};
    return cur.release();
  }

  static Json Write(const Root& root, const std::string& rel, const std::string& path,
                    const std::string& b64) {
    auto data = Base64Decode(b64);
    if (!data) return Fail({EINVAL, "the file's bytes are not valid base64"});
    size_t slash = rel.rfind('/');
    Failure f;
    UniqueFd dir(MakeFolders(root, slash == std::string::npos ? "" : rel.substr(0, slash), &f));
    if (!dir.valid()) return Fail(f);
    std::string leaf = slash == std::string::npos ? rel : rel.substr(slash + 1);
    if (leaf.empty() || leaf == "." || leaf == "..") return Fail({EISDIR, path + " names a folder"});
    UniqueFd fd(OpenHere(dir.get(), leaf, O_WRONLY | O_CREAT | O_NONBLOCK | O_NOCTTY, 0644));
    if (!fd.valid() && errno == ELOOP)  // a symlink: to an existing file beneath the root
      fd = UniqueFd(OpenBeneath(root, rel, O_WRONLY | O_NONBLOCK | O_NOCTTY));
    if (!fd.valid()) return Fail({errno, "cannot write " + path});
    struct stat st;
    if (fstat(fd.get(), &st) != 0) return Fail({errno, "cannot stat " + path});
    if (!S_ISREG(st.st_mode)) return Fail({EINVAL, path + " is not a regular file"});
    if (ftruncate(fd.get(), 0) != 0) return Fail({errno, "cannot truncate " + path});
    if (Status s = WriteAll(fd.get(), *data); !s.ok()) return Fail({EIO, "cannot write " + path + " (" + s.error().message + ")"});
    return {{"ok", true}, {"bytesWritten", static_cast<int64_t>(data->size())}};
  }

  static Json Mkdir(const Root& root, const std::string& rel, const std::string&) {
    Failure f;
    UniqueFd dir(MakeFolders(root, rel, &f));
    if (!dir.valid()) return Fail(f);
    return {{"ok", true}};
  }

  // Removes name in dirfd and, for a folder, everything in it, following no
  // symlink (a symlink is removed, not its target).
  static bool RemoveTree(int dirfd, const std::string& name, Failure* f, const std::string& shown) {
    if (unlinkat(dirfd, name.c_str(), 0) == 0) return true;
    if (errno != EISDIR && errno != EPERM) {
      *f = {errno, "cannot remove " + shown};
      return false;
    }
    UniqueFd sub(OpenHere(dirfd, name, O_RDONLY | O_DIRECTORY));
    if (!sub.valid()) {
      *f = {errno, "cannot open " + shown};
      return false;
    }
    DIR* d = fdopendir(dup(sub.get()));
    if (!d) {
      *f = {errno, "cannot list " + shown};
      return false;
    }
    std::vector<std::string> names;
    while (dirent* e = readdir(d)) {
      std::string n = e->d_name;
      if (n != "." && n != "..") names.push_back(n);
    }
    closedir(d);
    for (const auto& n : names)
      if (!RemoveTree(sub.get(), n, f, shown + "/" + n)) return false;
    if (unlinkat(dirfd, name.c_str(), AT_REMOVEDIR) != 0) {
      *f = {errno, "cannot remove " + shown};
      return false;
    }
    return true;
  }

  static Json Delete(const Root& root, const std::string& rel, const std::string& path, bool recursive) {
    std::string leaf;
    Failure f;
    UniqueFd dir(OpenParent(root, rel, &leaf, &f));
    if (!dir.valid()) return Fail(f);
    struct stat st;
    if (fstatat(dir.get(), leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return Fail({errno, "cannot remove " + path});
    if (S_ISDIR(st.st_mode)) {
      if (!recursive) {
        if (unlinkat(dir.get(), leaf.c_str(), AT_REMOVEDIR) != 0)
          return Fail({errno, errno == ENOTEMPTY ? path + " is a folder that is not empty (pass recursive=true)"
                                                 : "cannot remove " + path});
        return {{"ok", true}};
      }
      if (!RemoveTree(dir.get(), leaf, &f, path)) return Fail(f);
      return {{"ok", true}};
    }
    if (unlinkat(dir.get(), leaf.c_str(), 0) != 0) return Fail({errno, "cannot remove " + path});
    return {{"ok", true}};
  }

  Json Move(const std::string& from, const std::string& to, bool overwrite) const {
    const Root *rf = nullptr, *rt = nullptr;
    std::string relf, relt;
    if (!Locate(from, &rf, &relf)) return Fail({EXDEV, from + " is outside the workspaces"});
    if (!Locate(to, &rt, &relt)) return Fail({EXDEV, to + " is outside the workspaces"});
    std::string leaf_from, leaf_to;
    Failure f;
    UniqueFd df(OpenParent(*rf, relf, &leaf_from, &f));
    if (!df.valid()) return Fail(f);
    UniqueFd dt(OpenParent(*rt, relt, &leaf_to, &f));
    if (!dt.valid()) return Fail(f);
    unsigned flags = overwrite ? 0 : RENAME_NOREPLACE;
    if (renameat2(df.get(), leaf_from.c_str(), dt.get(), leaf_to.c_str(), flags) != 0)
      return Fail({errno, errno == EEXIST ? to + " exists (pass overwrite: true to replace it)"
                                          : "cannot move " + from + " to " + to});
    return {{"ok", true}};
  }

  // Copies the folder `from` to `to` (which must not exist): its files and
  // folders, not its symlinks or special files (counted as skipped).
  Json Copy(const std::string& from, const std::string& to) const {
    const Root *rf = nullptr, *rt = nullptr;
    std::string relf, relt;
    if (!Locate(from, &rf, &relf)) return Fail({EXDEV, from + " is outside the workspaces"});
    if (!Locate(to, &rt, &relt)) return Fail({EXDEV, to + " is outside the workspaces"});
    UniqueFd src(OpenBeneath(*rf, relf, O_RDONLY | O_DIRECTORY));
    if (!src.valid()) return Fail({errno, "cannot open the folder " + from});
    std::string leaf;
    Failure f;
    size_t slash = relt.rfind('/');
    UniqueFd parent(MakeFolders(*rt, slash == std::string::npos ? "" : relt.substr(0, slash), &f));
    if (!parent.valid()) return Fail(f);
    leaf = slash == std::string::npos ? relt : relt.substr(slash + 1);
    if (leaf.empty() || leaf == "." || leaf == "..") return Fail({EINVAL, to + " names no folder"});
    if (mkdirat(parent.get(), leaf.c_str(), 0755) != 0) return Fail({errno, "cannot make the folder " + to});
    UniqueFd dst(OpenHere(parent.get(), leaf, O_PATH | O_DIRECTORY));
    if (!dst.valid()) return Fail({errno, "cannot open the folder " + to});
    int64_t files = 0, skipped = 0, depth = 0;
    if (!CopyTree(src.get(), dst.get(), from, &files, &skipped, depth, &f)) return Fail(f);
    return {{"ok", true}, {"files", files}, {"skipped", skipped}};
  }

  static bool CopyTree(int src, int dst, const std::string& shown, int64_t* files, int64_t* skipped,
                       int depth, Failure* f) {
    if (depth > 64) {
      *f = {ELOOP, shown + " is nested too deep to copy"};
      return false;
    }
    DIR* d = fdopendir(dup(src));
    if (!d) {
      *f = {errno, "cannot list " + shown};
      return false;
    }
    std::vector<std::string> names;
    while (dirent* e = readdir(d)) {
      std::string n = e->d_name;
      if (n != "." && n != "..") names.push_back(n);
    }
    closedir(d);
    for (const auto& n : names) {
      struct stat st;
      if (fstatat(src, n.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
      std::string sub = shown + "/" + n;
      if (S_ISDIR(st.st_mode)) {
        UniqueFd s(OpenHere(src, n, O_RDONLY | O_DIRECTORY));
        if (!s.valid() || (mkdirat(dst, n.c_str(), 0755) != 0 && errno != EEXIST)) {
          *f = {errno, "cannot copy the folder " + sub};
          return false;
        }
        UniqueFd t(OpenHere(dst, n, O_PATH | O_DIRECTORY));
        if (!t.valid() || !CopyTree(s.get(), t.get(), sub, files, skipped, depth + 1, f)) {
          if (!t.valid()) *f = {errno, "cannot open the copy of " + sub};
          return false;
        }
      } else if (S_ISREG(st.st_mode)) {
        UniqueFd in(OpenHere(src, n, O_RDONLY | O_NONBLOCK));
        UniqueFd out(OpenHere(dst, n, O_WRONLY | O_CREAT | O_EXCL, st.st_mode & 0755));
        if (!in.valid() || !out.valid()) {
          *f = {errno, "cannot copy " + sub};
          return false;
        }
        auto data = ReadAll(in.get());
        if (!data.ok() || !WriteAll(out.get(), *data).ok()) {
          *f = {EIO, "cannot copy " + sub};
          return false;
        }
        ++*files;
      } else {
        ++*skipped;
      }
    }
    return true;
  }

  std::vector<Root> roots_;
};

}  // namespace

int FsWorkerMain(int argc, char** argv) {
  std::vector<Root> roots;
  for (int i = 1; i < argc; ++i) {
    Root r;
    r.path = argv[i];
    while (r.path.size() > 1 && r.path.back() == '/') r.path.pop_back();
    r.fd = UniqueFd(open(r.path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!r.fd.valid()) {
      std::fprintf(stderr, "sepp fs worker: cannot open the workspace %s: %s\n", r.path.c_str(),
                   ErrnoText(errno).c_str());
      return 1;
    }
    roots.push_back(std::move(r));
  }
  Worker worker(std::move(roots));
  for (;;) {
    auto req = tools::ReadFrame(0);
    if (!req.ok()) return req.error().kind == "eof" ? 0 : 1;
    if (!tools::WriteFrame(1, worker.Handle(*req)).ok()) return 1;
  }
}

}  // namespace sepp::front::serve
