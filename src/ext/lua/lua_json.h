// Moving values between Lua and JSON, for hook events (in) and hook answers
// (out), and for sepp.json. Objects become tables with string keys, arrays
// sequences (1-based); null becomes nil, so it is lost inside tables. A Lua
// table is an array when its keys are exactly 1..n (an empty table is an
// empty object). Bounded: cycles and nesting beyond 100 levels are errors.
#pragma once
#include <string>

#include "base/json.h"
#include "base/result.h"

struct lua_State;

namespace sepp::ext {

// Pushes j onto L's stack. Raises a Lua error when out of memory.
void PushJson(lua_State* L, const Json& j);

// The value at index idx as JSON. Functions, userdata and threads, cycles,
// non-string non-integer keys, NaN and infinities are errors naming the path.
Result<Json> ToJson(lua_State* L, int idx);

// sepp.json = {encode = ..., decode = ...} on the table at the stack's top.
void AddJsonFunctions(lua_State* L);

}  // namespace sepp::ext
