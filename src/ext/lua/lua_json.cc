#include "ext/lua/lua_json.h"

#include <cmath>

#include "lauxlib.h"
#include "lua.h"

namespace sepp::ext {

namespace {

constexpr int kMaxDepth = 100;

void Push(lua_State* L, const Json& j, int depth) {
  if (depth > kMaxDepth) luaL_error(L, "JSON nested deeper than %d levels", kMaxDepth);
  luaL_checkstack(L, 3, "JSON too deep");
  switch (j.type()) {
    case Json::value_t::null:
    case Json::value_t::discarded: lua_pushnil(L); return;
    case Json::value_t::boolean: lua_pushboolean(L, j.get<bool>()); return;
    case Json::value_t::number_integer: lua_pushinteger(L, j.get<int64_t>()); return;
    case Json::value_t::number_unsigned: {
      uint64_t u = j.get<uint64_t>();
      if (u <= static_cast<uint64_t>(INT64_MAX)) lua_pushinteger(L, static_cast<int64_t>(u));
      else lua_pushnumber(L, static_cast<double>(u));
      return;
    }
    case Json::value_t::number_float: lua_pushnumber(L, j.get<double>()); return;
    case Json::value_t::string: {
      const auto& s = j.get_ref<const std::string&>();
      lua_pushlstring(L, s.data(), s.size());
      return;
    }
    case Json::value_t::binary: lua_pushnil(L); return;
    case Json::value_t::array: {
      lua_createtable(L, static_cast<int>(j.size()), 0);
      lua_Integer i = 1;
      for (const auto& v : j) {
        Push(L, v, depth + 1);
        lua_rawseti(L, -2, i++);
      }
      return;
    }
    case Json::value_t::object: {
      lua_createtable(L, 0, static_cast<int>(j.size()));
      for (const auto& [k, v] : j.items()) {
        lua_pushlstring(L, k.data(), k.size());
        Push(L, v, depth + 1);
        lua_rawset(L, -3);
      }
      return;
    }
  }
  lua_pushnil(L);
}

Result<Json> Convert(lua_State* L, int idx, int depth, const std::string& path) {
  idx = lua_absindex(L, idx);
  switch (lua_type(L, idx)) {
    case LUA_TNIL: return Json(nullptr);
    case LUA_TBOOLEAN: return Json(lua_toboolean(L, idx) != 0);
    case LUA_TNUMBER: {
      if (lua_isinteger(L, idx)) return Json(static_cast<int64_t>(lua_tointeger(L, idx)));
      double d = lua_tonumber(L, idx);
      if (!std::isfinite(d)) return Error::Make(path + ": NaN or infinity is not JSON", "lua");
      return Json(d);
    }
    case LUA_TSTRING: {
      size_t n = 0;
      const char* s = lua_tolstring(L, idx, &n);
      return Json(std::string(s, n));
    }
    case LUA_TTABLE: {
      if (depth > kMaxDepth)
        return Error::Make(path + ": nested deeper than 100 levels (a cycle?)", "lua");
      luaL_checkstack(L, 4, "table too deep");
      // An array when the keys are exactly 1..n.
      lua_Integer n = static_cast<lua_Integer>(lua_rawlen(L, idx));
      size_t count = 0;
      bool only_ints = true;
      lua_pushnil(L);
      while (lua_next(L, idx)) {
        ++count;
        if (!lua_isinteger(L, -2)) only_ints = false;
        lua_pop(L, 1);
      }
      if (count > 0 && only_ints && static_cast<lua_Integer>(count) == n) {
        Json arr = Json::array();
        for (lua_Integer i = 1; i <= n; ++i) {
          lua_rawgeti(L, idx, i);
          auto v = Convert(L, -1, depth + 1, path + "[" + std::to_string(i) + "]");
          lua_pop(L, 1);
          if (!v.ok()) return v;
          arr.push_back(std::move(*v));
        }
        return arr;
      }
      Json obj = Json::object();
      lua_pushnil(L);
      while (lua_next(L, idx)) {
        std::string key;
        if (lua_type(L, -2) == LUA_TSTRING) {
          size_t len = 0;
          const char* k = lua_tolstring(L, -2, &len);
          key.assign(k, len);
        } else if (lua_isinteger(L, -2)) {
          key = std::to_string(lua_tointeger(L, -2));
        } else {
          lua_pop(L, 2);
          return Error::Make(path + ": a table key must be a string or an integer", "lua");
        }
        auto v = Convert(L, -1, depth + 1, path + "." + key);
        lua_pop(L, 1);
        if (!v.ok()) {
          lua_pop(L, 1);
          return v;
        }
        obj[key] = std::move(*v);
      }
      return obj;
    }
    default:
      return Error::Make(path + ": a " + std::string(luaL_typename(L, idx)) +
                             " cannot become JSON",
                         "lua");
  }
}

int Encode(lua_State* L) {
  luaL_checkany(L, 1);
  auto j = Convert(L, 1, 0, "value");
  if (!j.ok()) return luaL_error(L, "sepp.json.encode: %s", j.error().message.c_str());
  std::string s = DumpJson(*j);
  lua_pushlstring(L, s.data(), s.size());
  return 1;
}

int Decode(lua_State* L) {
  size_t n = 0;
  const char* s = luaL_checklstring(L, 1, &n);
  auto j = ParseJson(std::string_view(s, n));
  if (!j.ok()) {
    lua_pushnil(L);
    lua_pushstring(L, j.error().message.c_str());
    return 2;
  }
  Push(L, *j, 0);
  return 1;
}

}  // namespace

void PushJson(lua_State* L, const Json& j) { Push(L, j, 0); }

Result<Json> ToJson(lua_State* L, int idx) { return Convert(L, idx, 0, "value"); }

void AddJsonFunctions(lua_State* L) {
  lua_newtable(L);
  lua_pushcfunction(L, Encode);
  lua_setfield(L, -2, "encode");
  lua_pushcfunction(L, Decode);
  lua_setfield(L, -2, "decode");
  lua_setfield(L, -2, "json");
}

}  // namespace sepp::ext
