#include "ext/lua/lua_sandbox.h"

#include <cstdlib>
#include <cstring>

// Linked as C++ (liblua5.4-c++.a): the plain headers, not lua.hpp's extern "C".
#include "lauxlib.h"
#include "lua.h"
#include "lualib.h"

namespace sepp::ext {

namespace {

constexpr int kStep = 1000;  // instructions between two budget checks

// Lives in the registry: the owning sandbox, for the count hook.
const char kSelfKey = 0;

// load(chunk, name, mode, env) with mode forced to "t": no bytecode, ever
// (a crafted bytecode chunk can break out of the VM).
int SafeLoad(lua_State* L) {
  int n = lua_gettop(L);
  if (n >= 3) {
    lua_pushliteral(L, "t");
    lua_replace(L, 3);
  } else {
    lua_settop(L, 2);
    lua_pushliteral(L, "t");
  }
  lua_pushvalue(L, lua_upvalueindex(1));  // the original load
  lua_insert(L, 1);
  int args = lua_gettop(L) - 1;
  lua_call(L, args, LUA_MULTRET);
  return lua_gettop(L);
}

}  // namespace

LuaSandbox::LuaSandbox(LuaLimits limits) : limits_(limits) {
  L_ = lua_newstate(&LuaSandbox::Alloc, this);
  if (!L_) return;  // the cap is below Lua's own minimum: Run reports it
  lua_pushlightuserdata(L_, const_cast<char*>(&kSelfKey));
  lua_pushlightuserdata(L_, this);
  lua_rawset(L_, LUA_REGISTRYINDEX);
  OpenSafeLibraries();
}

LuaSandbox::~LuaSandbox() {
  if (L_) lua_close(L_);
}

void* LuaSandbox::Alloc(void* ud, void* ptr, size_t old_size, size_t new_size) {
  auto* self = static_cast<LuaSandbox*>(ud);
  if (!ptr) old_size = 0;  // then old_size is a type tag, not a size
  if (new_size == 0) {
    std::free(ptr);
    self->used_ -= old_size;
    return nullptr;
  }
  if (new_size > old_size && self->used_ - old_size + new_size > self->limits_.memory_bytes)
    return nullptr;  // Lua raises "not enough memory"
  void* p = std::realloc(ptr, new_size);
  if (p) self->used_ = self->used_ - old_size + new_size;
  return p;
}

void LuaSandbox::CountHook(lua_State* L, lua_Debug*) {
  lua_pushlightuserdata(L, const_cast<char*>(&kSelfKey));
  lua_rawget(L, LUA_REGISTRYINDEX);
  auto* self = static_cast<LuaSandbox*>(lua_touserdata(L, -1));
  lua_pop(L, 1);
  if (!self || !self->in_call_) return;
  self->steps_left_ -= lua_gethookcount(L);
  bool spent = self->steps_left_ < 0;
  if (!spent && std::chrono::steady_clock::now() <= self->deadline_) return;
  // From now on every instruction of this call raises: code that catches
  // the error with pcall (or a coroutine) cannot go on, because its very
  // next instruction raises again, until the error leaves the hook.
  lua_sethook(L, &LuaSandbox::CountHook, LUA_MASKCOUNT, 1);
  if (spent)
    luaL_error(L, "stopped: the instruction budget (%d) is spent",
               static_cast<int>(self->limits_.instructions));
  luaL_error(L, "stopped: the deadline (%d ms) has passed",
             static_cast<int>(self->limits_.deadline.count()));
}

void LuaSandbox::OpenSafeLibraries() {
  static const luaL_Reg kLibs[] = {{LUA_GNAME, luaopen_base},        {LUA_STRLIBNAME, luaopen_string},
                                   {LUA_TABLIBNAME, luaopen_table},  {LUA_MATHLIBNAME, luaopen_math},
                                   {LUA_UTF8LIBNAME, luaopen_utf8},  {LUA_COLIBNAME, luaopen_coroutine},
                                   {LUA_OSLIBNAME, luaopen_os}};
  for (const auto& lib : kLibs) {
    luaL_requiref(L_, lib.name, lib.func, 1);
    lua_pop(L_, 1);
  }
  // base: no file access, no bytecode.
  for (const char* name : {"dofile", "loadfile", "require", "collectgarbage"}) {
    lua_pushnil(L_);
    lua_setglobal(L_, name);
  }
  lua_getglobal(L_, "load");
  lua_pushcclosure(L_, SafeLoad, 1);
  lua_setglobal(L_, "load");
  // string.dump makes bytecode; the string metatable keeps the rest.
  lua_getglobal(L_, LUA_STRLIBNAME);
  lua_pushnil(L_);
  lua_setfield(L_, -2, "dump");
  lua_pop(L_, 1);
  // os: only the clock and dates.
  lua_newtable(L_);
  lua_getglobal(L_, LUA_OSLIBNAME);
  for (const char* name : {"time", "clock", "date", "difftime"}) {
    lua_getfield(L_, -1, name);
    lua_setfield(L_, -3, name);
  }
  lua_pop(L_, 1);
  lua_setglobal(L_, LUA_OSLIBNAME);
  // luaL_requiref left the full os in package.loaded; no package either.
  lua_pushnil(L_);
  lua_setfield(L_, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  lua_sethook(L_, &LuaSandbox::CountHook, LUA_MASKCOUNT, kStep);
}

int LuaSandbox::Trampoline(lua_State* L) {
  auto* body = static_cast<const std::function<void(lua_State*)>*>(lua_touserdata(L, 1));
  lua_settop(L, 0);
  (*body)(L);
  return 0;
}

Status LuaSandbox::Run(const std::string& source, const std::string& chunk_name) {
  return Protected([&](lua_State* L) {
    if (luaL_loadbufferx(L, source.data(), source.size(), ("@" + chunk_name).c_str(), "t") !=
        LUA_OK)
      lua_error(L);
    lua_call(L, 0, 0);
  });
}

Status LuaSandbox::Protected(const std::function<void(lua_State*)>& body) {
  if (!L_) return Error::Make("the Lua memory cap is too small to start a state", "lua");
  int top = lua_gettop(L_);
  bool outer = !in_call_;
  if (outer) {
    steps_left_ = limits_.instructions;
    deadline_ = std::chrono::steady_clock::now() + limits_.deadline;
    in_call_ = true;
    lua_sethook(L_, &LuaSandbox::CountHook, LUA_MASKCOUNT, kStep);  // after a stop: relaxed again
  }
  // Pushing a C function and a light userdata allocates nothing new.
  lua_pushcfunction(L_, &LuaSandbox::Trampoline);
  lua_pushlightuserdata(L_, const_cast<std::function<void(lua_State*)>*>(&body));
  int rc = lua_pcall(L_, 1, 0, 0);
  if (outer) in_call_ = false;
  if (rc == LUA_OK) {
    lua_settop(L_, top);
    return Ok();
  }
  std::string msg;
  if (rc == LUA_ERRMEM) {
    msg = "stopped: not enough memory (the cap is " + std::to_string(limits_.memory_bytes >> 20) +
          " MiB)";
  } else {
    const char* s = lua_tostring(L_, -1);
    msg = s ? s : "an error that is not a string";
  }
  lua_settop(L_, top);
  // A memory bomb leaves garbage behind: collect it now.
  lua_gc(L_, LUA_GCCOLLECT);
  return Error::Make(msg, "lua");
}

}  // namespace sepp::ext
