// The WASI preview 1 subset (wasi.h). Every pointer the guest passes is
// bounds-checked by Memory::Read/Write (a bad one traps the call); every
// path goes through CheckPath, the check of sepp:fs_*, before a host file
// is touched, and is opened as resolved with O_NOFOLLOW, so a symlink swapped
// in after the check is not followed either.
#include "ext/plugins/wasi.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <ctime>

#include "ext/plugins/abi.h"

namespace sepp::ext::plugins {
namespace {
namespace fs = std::filesystem;
using wasm::FuncType;
using wasm::HostCall;
using wasm::HostFunc;
using wasm::ValType;

// errno values of wasi_snapshot_preview1 (wasi/api.h).
enum : int32_t {
  kSuccess = 0, kAcces = 2, kBadf = 8, kExist = 20, kInval = 28, kIo = 29, kIsdir = 31,
  kMfile = 33, kNametoolong = 37, kNoent = 44, kNosys = 52, kNotdir = 54, kNotempty = 55,
  kNotsup = 58, kPerm = 63, kSpipe = 70, kNotcapable = 76,
};
enum : uint8_t { kTypeUnknown = 0, kTypeCharDevice = 2, kTypeDirectory = 3, kTypeRegular = 4, kTypeSymlink = 7 };
constexpr uint64_t kRightRead = 1ull << 1, kRightSeek = 1ull << 2, kRightTell = 1ull << 5,
                   kRightWrite = 1ull << 6;
constexpr int32_t kMaxFds = 64;
constexpr uint32_t kMaxIo = 16u << 20;  // bytes per fd_read / fd_write call

int32_t FromErrno(int e) {
  switch (e) {
    case EACCES: return kAcces;
    case EBADF: return kBadf;
    case EEXIST: return kExist;
    case EINVAL: return kInval;
    case EISDIR: return kIsdir;
    case ENAMETOOLONG: return kNametoolong;
    case ENOENT: return kNoent;
    case ENOTDIR: return kNotdir;
    case ENOTEMPTY: return kNotempty;
    case EPERM: return kPerm;
    case ESPIPE: return kSpipe;
    case ELOOP: return kNotcapable;  // a symlink at the end of a resolved path
    default: return kIo;
  }
}

FuncType T(std::vector<ValType> params) {
  FuncType t;
  t.params = std::move(params);
  t.results = {ValType::kI32};
  return t;
}

Error Trap(std::string m) { return Error::Make(std::move(m), "trap"); }

// Little-endian stores into guest memory; a bad address traps.
Status Put(HostCall& c, uint32_t at, const void* bytes, size_t n) {
  if (!c.memory) return Trap("wasi: the plugin has no memory");
  return c.memory->Write(at, std::span(static_cast<const uint8_t*>(bytes), n));
}
template <class T> Status PutInt(HostCall& c, uint32_t at, T v) { return Put(c, at, &v, sizeof v); }

Result<std::string> GetBytes(HostCall& c, uint32_t at, uint32_t n) {
  if (!c.memory) return Trap("wasi: the plugin has no memory");
  return c.memory->ReadString(at, n);
}
Result<uint32_t> GetU32(HostCall& c, uint32_t at) {
  auto b = GetBytes(c, at, 4);
  if (!b.ok()) return b.error();
  uint32_t v;
  std::memcpy(&v, b->data(), 4);
  return v;
}

// The iovec list at iovs as (pointer, length) pairs.
Result<std::vector<std::pair<uint32_t, uint32_t>>> Iovecs(HostCall& c, uint32_t iovs, uint32_t count) {
  if (count > 1024) return Trap("wasi: more than 1024 iovecs");
  std::vector<std::pair<uint32_t, uint32_t>> out;
  for (uint32_t i = 0; i < count; ++i) {
    auto p = GetU32(c, iovs + 8 * i), n = GetU32(c, iovs + 8 * i + 4);
    if (!p.ok()) return p.error();
    if (!n.ok()) return n.error();
    out.emplace_back(*p, *n);
  }
  return out;
}

// The name a preopen of grant entry `g` has inside the guest.
std::string PreopenName(const std::string& g) {
  if (g.rfind("~", 0) == 0 || fs::path(g).is_absolute()) return g;
  std::string n = fs::path(g).lexically_normal().string();
  while (n.size() > 1 && n.back() == '/') n.pop_back();
  return n.empty() ? "." : n;
}

// Resolves path (relative to the folder fd) for reading or writing; on
// refusal the reason goes to the log and ENOTCAPABLE back to the guest.
int32_t Resolve(HostEnv& env, HostCall& c, int32_t dirfd, uint32_t ptr, uint32_t len, bool write,
                fs::path* out, Status* trap) {
  WasiFiles::Fd* dir = env.wasi->Get(dirfd);
  if (!dir) return kBadf;
  if (!dir->dir) return kNotdir;
  auto raw = GetBytes(c, ptr, len);
  if (!raw.ok()) {
    *trap = raw.error();
    return kInval;
  }
  if (raw->find('\0') != std::string::npos) return kInval;
  if (!raw->empty() && raw->front() == '/') {
    AppendLog(*env.io, 2, "wasi: refused the absolute path " + *raw + ": paths are relative to a preopened folder");
    return kNotcapable;
  }
  fs::path joined = raw->empty() ? dir->path : dir->path / *raw;
  if (std::string why = CheckPath(env, joined.string(), write, out); !why.empty()) {
    AppendLog(*env.io, 2, "wasi: refused " + *raw + ": " + why);
    return kNotcapable;
  }
  return kSuccess;
}

uint8_t FileType(mode_t m) {
  if (S_ISDIR(m)) return kTypeDirectory;
  if (S_ISREG(m)) return kTypeRegular;
  if (S_ISLNK(m)) return kTypeSymlink;
  if (S_ISCHR(m)) return kTypeCharDevice;
  return kTypeUnknown;
}

Status PutFilestat(HostCall& c, uint32_t at, const struct stat& st) {
  uint8_t b[64] = {};
  auto put64 = [&](size_t off, uint64_t v) { std::memcpy(b + off, &v, 8); };
  put64(0, st.st_dev);
  put64(8, st.st_ino);
  b[16] = FileType(st.st_mode);
  put64(24, st.st_nlink);
  put64(32, static_cast<uint64_t>(st.st_size));
  auto ns = [](const timespec& t) { return static_cast<uint64_t>(t.tv_sec) * 1000000000ull + t.tv_nsec; };
  put64(40, ns(st.st_atim));
  put64(48, ns(st.st_mtim));
  put64(56, ns(st.st_ctim));
  return Put(c, at, b, sizeof b);
}

void Log(HostEnv& env, int32_t fd, const std::string& bytes) {
  std::string& pending = env.wasi->pending[fd];
  pending += bytes;
  size_t start = 0;
  for (size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1)
    AppendLog(*env.io, fd == 1 ? 1 : 2, pending.substr(start, nl - start));
  pending.erase(0, start);
  if (pending.size() > kMaxLogBytes) {  // a line without end: log what there is
    AppendLog(*env.io, fd == 1 ? 1 : 2, pending);
    pending.clear();
  }
}

}  // namespace

const std::vector<WasiFunc>& WasiTable() {
  constexpr ValType I = ValType::kI32, L = ValType::kI64;
  static const std::vector<WasiFunc> table = {
      {"args_get", "core", T({I, I})},
      {"args_sizes_get", "core", T({I, I})},
      {"environ_get", "core", T({I, I})},
      {"environ_sizes_get", "core", T({I, I})},
      {"clock_res_get", "core", T({I, I})},
      {"clock_time_get", "core", T({I, L, I})},
      {"random_get", "core", T({I, I})},
      {"sched_yield", "core", T({})},
      {"proc_exit", "core", [] { FuncType t; t.params = {ValType::kI32}; return t; }()},
      {"fd_write", "core", T({I, I, I, I})},
      {"fd_read", "core", T({I, I, I, I})},
      {"fd_close", "core", T({I})},
      {"fd_seek", "core", T({I, L, I, I})},
      {"fd_tell", "core", T({I, I})},
      {"fd_sync", "core", T({I})},
      {"fd_datasync", "core", T({I})},
      {"fd_advise", "core", T({I, L, L, I})},
      {"fd_fdstat_get", "core", T({I, I})},
      {"fd_fdstat_set_flags", "core", T({I, I})},
      {"fd_filestat_get", "core", T({I, I})},
      {"fd_prestat_get", "core", T({I, I})},
      {"fd_prestat_dir_name", "core", T({I, I, I})},
      {"fd_readdir", "core", T({I, I, I, L, I})},
      {"path_open", "fs_read", T({I, I, I, I, I, L, L, I, I})},
      {"path_filestat_get", "fs_read", T({I, I, I, I, I})},
      {"path_create_directory", "fs_write", T({I, I, I})},
      {"path_unlink_file", "fs_write", T({I, I, I})},
      {"path_remove_directory", "fs_write", T({I, I, I})},
      {"path_rename", "fs_write", T({I, I, I, I, I, I})},
  };
  return table;
}

std::string WasiRefusal(const std::string& name) {
  if (name.rfind("sock_", 0) == 0)
    return "plugins get no sockets (WASI sock_* is never linked; ask for the network with the "
           "net capability and sepp:net, docs/plugins.md)";
  return "this function is outside the WASI preview 1 subset sepp links (docs/plugins.md, \"WASI\")";
}

WasiFiles::WasiFiles(const HostEnv& env) {
  std::vector<std::string> roots = env.granted.fs_write;
  for (const auto& g : env.granted.fs_read)
    if (std::find(roots.begin(), roots.end(), g) == roots.end()) roots.push_back(g);
  for (const auto& g : roots) {
    Fd fd;
    fd.dir = true;
    fd.path = ResolveGrant(g, env.workspace);
    fd.preopen_name = PreopenName(g);
    Add(std::move(fd));
  }
}

WasiFiles::~WasiFiles() {
  for (auto& [n, fd] : fds_)
    if (fd.host >= 0) ::close(fd.host);
}

WasiFiles::Fd* WasiFiles::Get(int32_t fd) {
  auto it = fds_.find(fd);
  return it == fds_.end() ? nullptr : &it->second;
}

int32_t WasiFiles::Add(Fd fd) {
  if (fds_.size() >= kMaxFds) return -1;
  while (fds_.count(next_)) ++next_;
  int32_t n = next_++;
  fds_.emplace(n, std::move(fd));
  return n;
}

bool WasiFiles::Close(int32_t fd) {
  auto it = fds_.find(fd);
  if (it == fds_.end() || !it->second.preopen_name.empty()) return false;
  if (it->second.host >= 0) ::close(it->second.host);
  fds_.erase(it);
  if (fd < next_) next_ = fd;
  return true;
}

void FlushWasiLog(WasiFiles& files, CallIo& io) {
  for (int fd : {1, 2})
    if (!files.pending[fd].empty()) {
      AppendLog(io, fd == 1 ? 1 : 2, files.pending[fd]);
      files.pending[fd].clear();
    }
}

void DefineWasi(wasm::Linker& linker, HostEnv* env) {
  auto def = [&](const char* name, auto fn) { linker.DefineFunc(kWasiModule, name, HostFunc::Make(fn)); };
  auto environ = [env] {
    std::vector<std::string> out;
    for (const auto& name : env->granted.env)
      if (const char* v = std::getenv(name.c_str()); v && !IsProviderKey(name)) out.push_back(name + "=" + v);
    return out;
  };

  def("args_sizes_get", [](HostCall& c, int32_t argc, int32_t size) -> Result<int32_t> {
    if (auto st = PutInt<uint32_t>(c, argc, 0); !st.ok()) return st.error();
    if (auto st = PutInt<uint32_t>(c, size, 0); !st.ok()) return st.error();
    return kSuccess;
  });
  def("args_get", [](HostCall&, int32_t, int32_t) -> int32_t { return kSuccess; });
  def("environ_sizes_get", [environ](HostCall& c, int32_t count, int32_t size) -> Result<int32_t> {
    auto vars = environ();
    uint32_t bytes = 0;
    for (const auto& v : vars) bytes += v.size() + 1;
    if (auto st = PutInt<uint32_t>(c, count, vars.size()); !st.ok()) return st.error();
    if (auto st = PutInt<uint32_t>(c, size, bytes); !st.ok()) return st.error();
    return kSuccess;
  });
  def("environ_get", [environ](HostCall& c, int32_t ptrs, int32_t buf) -> Result<int32_t> {
    uint32_t at = buf;
    auto vars = environ();
    for (size_t i = 0; i < vars.size(); ++i) {
      if (auto st = PutInt<uint32_t>(c, ptrs + 4 * i, at); !st.ok()) return st.error();
      if (auto st = Put(c, at, vars[i].c_str(), vars[i].size() + 1); !st.ok()) return st.error();
      at += vars[i].size() + 1;
    }
    return kSuccess;
  });
  def("clock_res_get", [](HostCall& c, int32_t id, int32_t out) -> Result<int32_t> {
    if (id < 0 || id > 3) return kInval;
    if (auto st = PutInt<uint64_t>(c, out, 1000); !st.ok()) return st.error();
    return kSuccess;
  });
  def("clock_time_get", [](HostCall& c, int32_t id, int64_t, int32_t out) -> Result<int32_t> {
    static const clockid_t kClocks[] = {CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_PROCESS_CPUTIME_ID,
                                        CLOCK_THREAD_CPUTIME_ID};
    if (id < 0 || id > 3) return kInval;
    timespec ts{};
    clock_gettime(kClocks[id], &ts);
    uint64_t ns = static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + ts.tv_nsec;
    if (auto st = PutInt<uint64_t>(c, out, ns); !st.ok()) return st.error();
    return kSuccess;
  });
  def("random_get", [](HostCall& c, int32_t buf, int32_t len) -> Result<int32_t> {
    if (len < 0 || len > (1 << 16)) return kInval;
    std::string bytes(static_cast<size_t>(len), '\0');
    if (getrandom(bytes.data(), bytes.size(), 0) != static_cast<ssize_t>(bytes.size())) return kIo;
    if (auto st = Put(c, buf, bytes.data(), bytes.size()); !st.ok()) return st.error();
    return kSuccess;
  });
  def("sched_yield", [](HostCall&) -> int32_t { return kSuccess; });
  // proc_exit ends the call: the trap unwinds the guest, and Plugin::Run
  // reads exit_code and makes a fresh instance for the next call.
  def("proc_exit", [env](HostCall&, int32_t code) -> Status {
    env->wasi->exit_code = code;
    return Trap("wasi proc_exit(" + std::to_string(code) + ")");
  });

  def("fd_write", [env](HostCall& c, int32_t fd, int32_t iovs, int32_t n, int32_t written) -> Result<int32_t> {
    auto v = Iovecs(c, iovs, n);
    if (!v.ok()) return v.error();
    std::string bytes;
    for (auto [p, len] : *v) {
      if (bytes.size() + len > kMaxIo) return kInval;
      auto b = GetBytes(c, p, len);
      if (!b.ok()) return b.error();
      bytes += *b;
    }
    if (fd == 1 || fd == 2) {
      Log(*env, fd, bytes);
    } else {
      WasiFiles::Fd* f = env->wasi->Get(fd);
      if (!f) return kBadf;
      if (f->dir) return kIsdir;
      if (!f->write) return kBadf;
      ssize_t w = ::write(f->host, bytes.data(), bytes.size());
      if (w < 0) return FromErrno(errno);
      bytes.resize(static_cast<size_t>(w));
    }
    if (auto st = PutInt<uint32_t>(c, written, bytes.size()); !st.ok()) return st.error();
    return kSuccess;
  });
  def("fd_read", [env](HostCall& c, int32_t fd, int32_t iovs, int32_t n, int32_t nread) -> Result<int32_t> {
    auto v = Iovecs(c, iovs, n);
    if (!v.ok()) return v.error();
    uint32_t total = 0;
    if (fd != 0) {  // stdin is empty
      WasiFiles::Fd* f = env->wasi->Get(fd);
      if (!f) return kBadf;
      if (f->dir) return kIsdir;
      if (!f->read) return kBadf;
      for (auto [p, len] : *v) {
        std::string buf(std::min(len, kMaxIo), '\0');
        ssize_t r = ::read(f->host, buf.data(), buf.size());
        if (r < 0) return FromErrno(errno);
        if (auto st = Put(c, p, buf.data(), static_cast<size_t>(r)); !st.ok()) return st.error();
        total += r;
        if (static_cast<size_t>(r) < buf.size()) break;
      }
    }
    if (auto st = PutInt<uint32_t>(c, nread, total); !st.ok()) return st.error();
    return kSuccess;
  });
  def("fd_close", [env](HostCall&, int32_t fd) -> int32_t { return env->wasi->Close(fd) ? kSuccess : kBadf; });
  def("fd_seek", [env](HostCall& c, int32_t fd, int64_t off, int32_t whence, int32_t out) -> Result<int32_t> {
    if (fd >= 0 && fd <= 2) return kSpipe;
    WasiFiles::Fd* f = env->wasi->Get(fd);
    if (!f) return kBadf;
    if (f->dir) return kIsdir;
    if (whence < 0 || whence > 2) return kInval;
    static const int kWhence[] = {SEEK_SET, SEEK_CUR, SEEK_END};
    off_t at = ::lseek(f->host, off, kWhence[whence]);
    if (at < 0) return FromErrno(errno);
    if (auto st = PutInt<uint64_t>(c, out, at); !st.ok()) return st.error();
    return kSuccess;
  });
  def("fd_tell", [env](HostCall& c, int32_t fd, int32_t out) -> Result<int32_t> {
    if (fd >= 0 && fd <= 2) return kSpipe;
    WasiFiles::Fd* f = env->wasi->Get(fd);
    if (!f || f->dir) return kBadf;
    off_t at = ::lseek(f->host, 0, SEEK_CUR);
    if (at < 0) return FromErrno(errno);
    if (auto st = PutInt<uint64_t>(c, out, at); !st.ok()) return st.error();
    return kSuccess;
  });
  auto known = [env](HostCall&, int32_t fd) -> int32_t {
    return (fd >= 0 && fd <= 2) || env->wasi->Get(fd) ? kSuccess : kBadf;
  };
  def("fd_sync", known);
  def("fd_datasync", known);
  def("fd_advise", [known](HostCall& c, int32_t fd, int64_t, int64_t, int32_t) -> int32_t { return known(c, fd); });
  def("fd_fdstat_get", [env](HostCall& c, int32_t fd, int32_t out) -> Result<int32_t> {
    uint8_t b[24] = {};
    uint64_t rights = 0;
    uint16_t flags = 0;
    if (fd >= 0 && fd <= 2) {
      b[0] = kTypeCharDevice;
      rights = fd == 0 ? kRightRead : kRightWrite;
    } else {
      WasiFiles::Fd* f = env->wasi->Get(fd);
      if (!f) return kBadf;
      b[0] = f->dir ? kTypeDirectory : kTypeRegular;
      // A folder passes on the rights of its grant; libc asks for them.
      rights = f->dir ? ~0ull : (f->read ? kRightRead : 0) | (f->write ? kRightWrite : 0) | kRightSeek | kRightTell;
      flags = f->append ? 1 : 0;
    }
    std::memcpy(b + 2, &flags, 2);
    std::memcpy(b + 8, &rights, 8);
    std::memcpy(b + 16, &rights, 8);
    if (auto st = Put(c, out, b, sizeof b); !st.ok()) return st.error();
    return kSuccess;
  });
  def("fd_fdstat_set_flags", [env](HostCall&, int32_t fd, int32_t flags) -> int32_t {
    if (!(fd >= 0 && fd <= 2) && !env->wasi->Get(fd)) return kBadf;
    return flags == 0 ? kSuccess : kNotsup;
  });
  def("fd_filestat_get", [env](HostCall& c, int32_t fd, int32_t out) -> Result<int32_t> {
    struct stat st{};
    if (fd >= 0 && fd <= 2) {
      st.st_mode = S_IFCHR;
    } else {
      WasiFiles::Fd* f = env->wasi->Get(fd);
      if (!f) return kBadf;
      if ((f->host >= 0 ? ::fstat(f->host, &st) : ::stat(f->path.c_str(), &st)) != 0) return FromErrno(errno);
    }
    if (auto s = PutFilestat(c, out, st); !s.ok()) return s.error();
    return kSuccess;
  });
  def("fd_prestat_get", [env](HostCall& c, int32_t fd, int32_t out) -> Result<int32_t> {
    WasiFiles::Fd* f = env->wasi->Get(fd);
    if (!f || f->preopen_name.empty()) return kBadf;
    uint8_t b[8] = {};
    uint32_t n = f->preopen_name.size();
    std::memcpy(b + 4, &n, 4);
    if (auto st = Put(c, out, b, sizeof b); !st.ok()) return st.error();
    return kSuccess;
  });
  def("fd_prestat_dir_name", [env](HostCall& c, int32_t fd, int32_t p, int32_t len) -> Result<int32_t> {
    WasiFiles::Fd* f = env->wasi->Get(fd);
    if (!f || f->preopen_name.empty()) return kBadf;
    if (static_cast<uint32_t>(len) < f->preopen_name.size()) return kNametoolong;
    if (auto st = Put(c, p, f->preopen_name.data(), f->preopen_name.size()); !st.ok()) return st.error();
    return kSuccess;
  });
  // Entries of a folder, names sorted; the cookie is the index of the next.
  // Entries CheckPath refuses (secret locations) are left out, as list_dir does.
  def("fd_readdir", [env](HostCall& c, int32_t fd, int32_t buf, int32_t len, int64_t cookie, int32_t used) -> Result<int32_t> {
    WasiFiles::Fd* f = env->wasi->Get(fd);
    if (!f) return kBadf;
    if (!f->dir) return kNotdir;
    std::vector<std::pair<std::string, uint8_t>> entries;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(f->path, ec)) {
      fs::path ignored;
      if (!e.is_symlink() && !CheckPath(*env, e.path().string(), false, &ignored).empty()) continue;
      entries.emplace_back(e.path().filename().string(),
                           e.is_symlink() ? kTypeSymlink : e.is_directory() ? kTypeDirectory : kTypeRegular);
      if (entries.size() >= 10000) break;
    }
    if (ec) return FromErrno(ec.value());
    std::sort(entries.begin(), entries.end());
    std::string out;
    for (size_t i = static_cast<size_t>(std::max<int64_t>(cookie, 0)); i < entries.size() && out.size() < static_cast<uint32_t>(len); ++i) {
      uint8_t d[24] = {};
      uint64_t next = i + 1, ino = 0;
      uint32_t namlen = entries[i].first.size();
      std::memcpy(d, &next, 8);
      std::memcpy(d + 8, &ino, 8);
      std::memcpy(d + 16, &namlen, 4);
      d[20] = entries[i].second;
      out.append(reinterpret_cast<char*>(d), sizeof d);
      out += entries[i].first;
    }
    out.resize(std::min<size_t>(out.size(), static_cast<uint32_t>(len)));  // a full buffer tells libc to ask again
    if (auto st = Put(c, buf, out.data(), out.size()); !st.ok()) return st.error();
    if (auto st = PutInt<uint32_t>(c, used, out.size()); !st.ok()) return st.error();
    return kSuccess;
  });

  bool readable = !env->granted.fs_read.empty() || !env->granted.fs_write.empty();
  if (readable) {
    def("path_open", [env](HostCall& c, int32_t dirfd, int32_t, int32_t p, int32_t n, int32_t oflags,
                           int64_t rights, int64_t, int32_t fdflags, int32_t out) -> Result<int32_t> {
      constexpr int32_t kCreat = 1, kDirectory = 2, kExcl = 4, kTrunc = 8, kAppend = 1;
      uint64_t r = static_cast<uint64_t>(rights);
      bool want_dir = oflags & kDirectory;
      bool write = !want_dir && ((r & kRightWrite) || (oflags & (kCreat | kTrunc)) || (fdflags & kAppend));
      bool read = want_dir || (r & kRightRead) || !write;
      fs::path path;
      Status trap = Ok();
      if (int32_t e = Resolve(*env, c, dirfd, p, n, write, &path, &trap); e != kSuccess) {
        if (!trap.ok()) return trap.error();
        return e;
      }
      WasiFiles::Fd fd;
      fd.path = path;
      struct stat st{};
      bool exists = ::lstat(path.c_str(), &st) == 0;
      if (want_dir || (exists && S_ISDIR(st.st_mode) && !write)) {
        if (!exists) return kNoent;
        if (!S_ISDIR(st.st_mode)) return kNotdir;
        fd.dir = true;
      } else {
        int flags = O_CLOEXEC | O_NOFOLLOW | (read && write ? O_RDWR : write ? O_WRONLY : O_RDONLY);
        if (oflags & kCreat) flags |= O_CREAT;
        if (oflags & kExcl) flags |= O_EXCL;
        if (oflags & kTrunc) flags |= O_TRUNC;
        if (fdflags & kAppend) flags |= O_APPEND;
        int h = ::open(path.c_str(), flags, 0644);
        if (h < 0) return FromErrno(errno);
        fd.host = h;
        fd.read = read;
        fd.write = write;
        fd.append = fdflags & kAppend;
      }
      int host = fd.host;
      int32_t num = env->wasi->Add(std::move(fd));
      if (num < 0) {
        if (host >= 0) ::close(host);
        return kMfile;
      }
      if (auto s = PutInt<uint32_t>(c, out, num); !s.ok()) return s.error();
      return kSuccess;
    });
    def("path_filestat_get", [env](HostCall& c, int32_t dirfd, int32_t, int32_t p, int32_t n, int32_t out) -> Result<int32_t> {
      fs::path path;
      Status trap = Ok();
      if (int32_t e = Resolve(*env, c, dirfd, p, n, false, &path, &trap); e != kSuccess) {
        if (!trap.ok()) return trap.error();
        return e;
      }
      struct stat st{};
      if (::stat(path.c_str(), &st) != 0) return FromErrno(errno);
      if (auto s = PutFilestat(c, out, st); !s.ok()) return s.error();
      return kSuccess;
    });
  }
  if (!env->granted.fs_write.empty()) {
    // The three that change one path: resolved for writing, then the call.
    auto one = [env](int (*op)(const char*)) {
      return [env, op](HostCall& c, int32_t dirfd, int32_t p, int32_t n) -> Result<int32_t> {
        fs::path path;
        Status trap = Ok();
        if (int32_t e = Resolve(*env, c, dirfd, p, n, true, &path, &trap); e != kSuccess) {
          if (!trap.ok()) return trap.error();
          return e;
        }
        return op(path.c_str()) == 0 ? kSuccess : FromErrno(errno);
      };
    };
    def("path_create_directory", one([](const char* p) { return ::mkdir(p, 0755); }));
    def("path_unlink_file", one([](const char* p) { return ::unlink(p); }));
    def("path_remove_directory", one([](const char* p) { return ::rmdir(p); }));
    def("path_rename", [env](HostCall& c, int32_t from_fd, int32_t fp, int32_t fn, int32_t to_fd, int32_t tp,
                             int32_t tn) -> Result<int32_t> {
      fs::path from, to;
      Status trap = Ok();
      if (int32_t e = Resolve(*env, c, from_fd, fp, fn, true, &from, &trap); e != kSuccess) {
        if (!trap.ok()) return trap.error();
        return e;
      }
      if (int32_t e = Resolve(*env, c, to_fd, tp, tn, true, &to, &trap); e != kSuccess) {
        if (!trap.ok()) return trap.error();
        return e;
      }
      return ::rename(from.c_str(), to.c_str()) == 0 ? kSuccess : FromErrno(errno);
    });
  }
}

}  // namespace sepp::ext::plugins
