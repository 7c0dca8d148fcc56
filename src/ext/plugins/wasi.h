// The WASI preview 1 subset a plugin may import (docs/plugins.md, "WASI"),
// so that modules built with wasi-libc or Rust's std run as plugins.
//
// Always linked: args (empty), environ (only the granted env names that are
// set, never a provider key), clocks, random_get, sched_yield, proc_exit (a
// clean end of the call), and the fd_* functions. Without a file grant the
// only descriptors are 0 (empty stdin), 1 and 2 (lines go to the call's log,
// info and warn), so fd_* reaches no file. With fs_read / fs_write, each
// granted root is a preopened directory, named as the grant is written
// ("." for "./", "notes" for "./notes", "~/x" as is), and path_* opens only
// below one: every path is resolved with symlinks and checked by the same
// CheckPath as sepp:fs_*, so `..`, a symlink leading out, an absolute path or
// a secret location is refused (ENOTCAPABLE, the reason in the log). The
// functions outside the subset — sock_* above all — are not defined: the
// verifier refuses a module that imports one, naming it.
#pragma once
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "wasm/module.h"
#include "wasm/runtime.h"

namespace sepp::ext::plugins {

struct HostEnv;
struct CallIo;

inline constexpr char kWasiModule[] = "wasi_snapshot_preview1";

// One WASI function of the subset, with the capability it needs ("core":
// always linked, "fs_read": a read or write grant, "fs_write").
struct WasiFunc {
  const char* name;
  const char* capability;
  wasm::FuncType type;
};
const std::vector<WasiFunc>& WasiTable();

// Why an import of wasi_snapshot_preview1.NAME outside the subset is
// refused, in words (sock_*: no sockets; the rest: not in the subset).
std::string WasiRefusal(const std::string& name);

// The descriptor table of one instance: the preopened roots and the files
// and folders the guest opened. Made anew with each instance, so a call that
// trapped or exited leaves no descriptor behind.
class WasiFiles {
 public:
  struct Fd {
    int host = -1;                   // the host descriptor (files), -1 for folders
    std::filesystem::path path;      // resolved host path
    std::string preopen_name;        // non-empty for a preopened root
    bool dir = false, read = false, write = false, append = false;
  };
  WasiFiles(const HostEnv& env);
  ~WasiFiles();
  WasiFiles(const WasiFiles&) = delete;
  WasiFiles& operator=(const WasiFiles&) = delete;

  Fd* Get(int32_t fd);
  // The new descriptor's number, or -1 when the table is full.
  int32_t Add(Fd fd);
  bool Close(int32_t fd);  // false for a preopen, stdio or an unknown fd

  // Partial stdout/stderr lines, flushed into the log at the end of a call.
  std::string pending[3];
  std::optional<int32_t> exit_code;  // set by proc_exit

 private:
  std::map<int32_t, Fd> fds_;
  int32_t next_ = 3;
};

// Defines wasi_snapshot_preview1 in linker for env (env->wasi must be set
// before each instantiation; the functions read it at call time).
void DefineWasi(wasm::Linker& linker, HostEnv* env);

// Moves the partial stdout/stderr lines into io's log.
void FlushWasiLog(WasiFiles& files, CallIo& io);

}  // namespace sepp::ext::plugins
