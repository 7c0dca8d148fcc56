// LuaSandbox: one Lua 5.4 state that runs code a user or a project wrote,
// with no way out and bounded cost.
//
// - Only the safe standard library: base (without dofile, loadfile, and
//   with load forced to text chunks), string (without string.dump), table,
//   math, utf8, coroutine, and os.time / os.clock / os.date. No io, no
//   os.execute / remove / getenv, no package / require, no debug, no
//   bytecode: a hook reaches the machine only through what sepp gives it.
// - A memory cap per state (a lua_Alloc that refuses past it): a memory bomb
//   gets "not enough memory", the process does not.
// - An instruction budget and a wall-clock deadline per call (a count hook):
//   an endless loop is stopped with an error naming the limit.
//
// Lua is linked as C++ (liblua5.4-c++.a), so its errors unwind C++ frames.
// Not thread-safe: the owner serialises calls (LuaHookFile holds a lock).
#pragma once
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "base/result.h"

struct lua_State;
struct lua_Debug;

namespace sepp::ext {

struct LuaLimits {
  size_t memory_bytes = 64u << 20;          // per state
  int64_t instructions = 50'000'000;        // per call (counted in steps of 1000)
  std::chrono::milliseconds deadline{2000};  // per call
};

class LuaSandbox {
 public:
  explicit LuaSandbox(LuaLimits limits = {});
  ~LuaSandbox();
  LuaSandbox(const LuaSandbox&) = delete;
  LuaSandbox& operator=(const LuaSandbox&) = delete;

  lua_State* L() const { return L_; }
  const LuaLimits& limits() const { return limits_; }
  size_t memory_in_use() const { return used_; }

  // Runs `source` (text only) as a chunk named chunk_name, within the limits.
  Status Run(const std::string& source, const std::string& chunk_name);
  // Runs body(L) as a protected call within the limits: everything it does
  // to the state (pushing an event, calling a handler with lua_call,
  // reading its answer) may raise a Lua error, which ends body and becomes
  // the error returned: the hook's own error, "instruction budget",
  // "deadline", "not enough memory". The stack is restored afterwards.
  Status Protected(const std::function<void(lua_State*)>& body);

 private:
  static void* Alloc(void* ud, void* ptr, size_t old_size, size_t new_size);
  static void CountHook(lua_State* L, lua_Debug* ar);
  static int Trampoline(lua_State* L);
  void OpenSafeLibraries();

  LuaLimits limits_;
  lua_State* L_ = nullptr;
  size_t used_ = 0;
  // The current call's budget.
  int64_t steps_left_ = 0;
  std::chrono::steady_clock::time_point deadline_;
  bool in_call_ = false;
};

}  // namespace sepp::ext
