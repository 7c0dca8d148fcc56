#include "ext/lua/lua_hook_file.h"

#include <algorithm>
#include <set>

#include "base/file.h"
#include "base/log.h"
#include "base/strings.h"
#include "ext/lua/lua_json.h"
#include "ext/lua/lua_tool.h"
#include "lauxlib.h"
#include "lua.h"

namespace sepp::ext {

namespace {

// The events a file may handle, and the answers each accepts.
struct EventSpec {
  const char* name;
  const char* answers;
};
constexpr EventSpec kEvents[] = {
    {"input", "continue | transform{text} | handled | block{reason}, context"},
    {"provider_request", "{system}: text added to this request's system prompt"},
    {"tool_call", "allow | deny{reason} | ask{reason}, input, context"},
    {"tool_result", "{content, is_error, context}, stop{reason}"},
    {"tool_batch_end", "stop{reason}, context"},
    {"stop", "continue{reason}"},
    {"before_compact", "cancel | {summary}"},
    {"subagent_start", "nothing (observe)"},
    {"subagent_stop", "nothing (observe)"},
    {"session_start", "{context}"},
    {"session_end", "nothing (observe)"},
    {"before_agent_start", "{system, context}"},
    {"context", "{messages}: the messages sent instead, this request only"},
    {"message_end", "nothing (observe)"},
    {"permission_request", "allow | deny{reason}"},
    {"model_select", "nothing (observe)"},
    {"error", "nothing (observe)"},
    {"interrupt", "nothing (observe)"},
    {"notification", "nothing (observe)"},
};

bool KnownEvent(const std::string& e) {
  return std::any_of(std::begin(kEvents), std::end(kEvents),
                     [&](const EventSpec& s) { return e == s.name; });
}

std::string EventList() {
  std::string out;
  for (const auto& s : kEvents) out += (out.empty() ? "" : ", ") + std::string(s.name);
  return out;
}

std::string Str(const Json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

LuaHookFile* Self(lua_State* L) {
  return static_cast<LuaHookFile*>(lua_touserdata(L, lua_upvalueindex(1)));
}

void PushClosure(lua_State* L, LuaHookFile* self, lua_CFunction f) {
  lua_pushlightuserdata(L, self);
  lua_pushcclosure(L, f, 1);
}

std::string ArgString(lua_State* L, int idx) {
  size_t n = 0;
  const char* s = luaL_tolstring(L, idx, &n);
  std::string out(s, n);
  lua_pop(L, 1);
  return out;
}

}  // namespace

// The C functions behind the sepp module; friends of LuaHookFile.
struct LuaApi {
  static int On(lua_State* L) {
    LuaHookFile* self = Self(L);
    std::string event = luaL_checkstring(L, 1);
    if (!KnownEvent(event))
      return luaL_error(L, "sepp.on: unknown event \"%s\"; the events are: %s", event.c_str(),
                        EventList().c_str());
    LuaHookFile::Handler h;
    h.event = event;
    int fn = 2;
    if (lua_gettop(L) >= 3) {
      fn = 3;
      std::string tools;
      if (lua_type(L, 2) == LUA_TSTRING) {
        tools = lua_tostring(L, 2);
      } else if (lua_type(L, 2) == LUA_TTABLE) {
        lua_getfield(L, 2, "tool");
        if (lua_type(L, -1) == LUA_TSTRING) tools = lua_tostring(L, -1);
        lua_pop(L, 1);
        lua_getfield(L, 2, "on_error");
        if (lua_type(L, -1) == LUA_TSTRING) {
          std::string mode = lua_tostring(L, -1);
          if (mode != "deny" && mode != "allow")
            return luaL_error(L, "sepp.on: on_error must be \"deny\" or \"allow\", not \"%s\"",
                              mode.c_str());
          if (mode == "deny" && event != "tool_call")
            return luaL_error(L, "sepp.on: on_error = \"deny\" is for tool_call handlers only");
          h.fail_closed = mode == "deny";
        }
        lua_pop(L, 1);
      } else if (!lua_isnil(L, 2)) {
        return luaL_error(L, "sepp.on: the filter must be a tool name or a table");
      }
      if (!tools.empty() && tools != "*")
        for (auto& t : Split(tools, '|'))
          if (!t.empty()) h.tools.push_back(t);
    }
    luaL_checktype(L, fn, LUA_TFUNCTION);
    lua_pushvalue(L, fn);
    h.ref = luaL_ref(L, LUA_REGISTRYINDEX);
    self->handlers_.push_back(std::move(h));
    return 0;
  }

  static int RegisterTool(lua_State* L) {
    LuaHookFile* self = Self(L);
    luaL_checktype(L, 1, LUA_TTABLE);
    LuaHookFile::ToolDef t;
    lua_getfield(L, 1, "name");
    if (lua_type(L, -1) != LUA_TSTRING)
      return luaL_error(L, "sepp.register_tool: name (a string) is missing");
    t.name = lua_tostring(L, -1);
    lua_getfield(L, 1, "description");
    t.description = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "";
    lua_pop(L, 2);
    if (t.name.empty() || t.name.size() > 64 ||
        !std::all_of(t.name.begin(), t.name.end(),
                     [](char c) { return isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; }))
      return luaL_error(L, "sepp.register_tool: the name \"%s\" must be 1-64 letters, digits, _ or -",
                        t.name.c_str());
    lua_getfield(L, 1, "parameters");
    if (lua_isnil(L, -1)) {
      lua_pop(L, 1);
      lua_getfield(L, 1, "schema");
    }
    if (lua_isnil(L, -1)) {
      t.parameters = {{"type", "object"}, {"properties", Json::object()}};
    } else {
      auto j = ToJson(L, -1);
      if (!j.ok() || !j->is_object())
        return luaL_error(L, "sepp.register_tool: parameters must be a JSON Schema table");
      t.parameters = *j;
    }
    lua_pop(L, 1);
    lua_getfield(L, 1, "run");
    if (lua_type(L, -1) != LUA_TFUNCTION)
      return luaL_error(L, "sepp.register_tool: run (a function) is missing");
    t.ref = luaL_ref(L, LUA_REGISTRYINDEX);
    for (const auto& other : self->tools_)
      if (other.name == t.name)
        return luaL_error(L, "sepp.register_tool: \"%s\" is registered twice", t.name.c_str());
    self->tools_.push_back(std::move(t));
    return 0;
  }

  static int RegisterCommand(lua_State* L) {
    LuaHookFile* self = Self(L);
    luaL_checktype(L, 1, LUA_TTABLE);
    LuaHookFile::CommandDef c;
    lua_getfield(L, 1, "name");
    if (lua_type(L, -1) != LUA_TSTRING || !*lua_tostring(L, -1))
      return luaL_error(L, "sepp.register_command: name (a string) is missing");
    c.info.name = lua_tostring(L, -1);
    lua_getfield(L, 1, "description");
    c.info.description = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "";
    lua_pop(L, 2);
    lua_getfield(L, 1, "run");
    if (lua_type(L, -1) != LUA_TFUNCTION)
      return luaL_error(L, "sepp.register_command: run (a function) is missing");
    c.ref = luaL_ref(L, LUA_REGISTRYINDEX);
    self->commands_.push_back(std::move(c));
    return 0;
  }

  static int SendMessage(lua_State* L) {
    LuaHookFile* self = Self(L);
    std::string text = luaL_checkstring(L, 1);
    std::string deliver = "follow_up";
    if (lua_type(L, 2) == LUA_TTABLE) {
      lua_getfield(L, 2, "deliver");
      if (lua_type(L, -1) == LUA_TSTRING) deliver = lua_tostring(L, -1);
      lua_pop(L, 1);
    }
    if (deliver != "steer" && deliver != "follow_up" && deliver != "next_turn")
      return luaL_error(L, "sepp.send_message: deliver must be steer, follow_up or next_turn, not \"%s\"",
                        deliver.c_str());
    if (self->host_.send_message) self->host_.send_message(text, deliver);
    return 0;
  }

  static int Notify(lua_State* L) {
    LuaHookFile* self = Self(L);
    std::string text = luaL_checkstring(L, 1);
    std::string level = luaL_optstring(L, 2, "info");
    if (level != "info" && level != "warning" && level != "error")
      return luaL_error(L, "sepp.notify: level must be info, warning or error");
    if (self->host_.notify) self->host_.notify(level, text);
    return 0;
  }

  static int Log(lua_State* L) {
    LuaHookFile* self = Self(L);
    std::string level = luaL_checkstring(L, 1);
    std::string text;
    for (int i = 2; i <= lua_gettop(L); ++i) text += (i > 2 ? " " : "") + ArgString(L, i);
    std::string line = self->path_.filename().string() + ": " + text;
    if (level == "error") log::Error(line);
    else if (level == "warn" || level == "warning") log::Warn(line);
    else if (level == "debug") log::Debug(line);
    else log::Info(line);
    return 0;
  }

  static int StateGet(lua_State* L) {
    LuaHookFile* self = Self(L);
    std::string key = luaL_checkstring(L, 1);
    auto it = self->state_.find(key);
    if (it == self->state_.end()) lua_pushnil(L);
    else PushJson(L, *it);
    return 1;
  }

  static int StateSet(lua_State* L) {
    LuaHookFile* self = Self(L);
    std::string key = luaL_checkstring(L, 1);
    auto v = ToJson(L, 2);
    if (!v.ok()) return luaL_error(L, "ctx.state.set: %s", v.error().message.c_str());
    if (v->is_null()) self->state_.erase(key);
    else self->state_[key] = std::move(*v);
    if (DumpJson(self->state_).size() > (1u << 20))
      return luaL_error(L, "ctx.state.set: the state would exceed 1 MiB");
    if (self->host_.save_state) self->host_.save_state(self->path_, self->state_);
    return 0;
  }

  // require("sepp") is the only module.
  static int Require(lua_State* L) {
    std::string name = luaL_checkstring(L, 1);
    if (name != "sepp")
      return luaL_error(L, "require: only \"sepp\" can be required in a hook (not \"%s\")",
                        name.c_str());
    lua_getglobal(L, "sepp");
    return 1;
  }
};

LuaHookFile::LuaHookFile(std::filesystem::path path, LuaHost host, LuaLimits limits)
    : path_(std::move(path)), host_(std::move(host)), lua_(limits) {}

LuaHookFile::~LuaHookFile() = default;

Result<std::shared_ptr<LuaHookFile>> LuaHookFile::Load(const std::filesystem::path& file,
                                                       LuaHost host, LuaLimits limits) {
  auto text = ReadFile(file);
  if (!text.ok()) return Error::Make(file.string() + ": " + text.error().message, "lua");
  return LoadSource(*text, file, std::move(host), limits);
}

Result<std::shared_ptr<LuaHookFile>> LuaHookFile::LoadSource(const std::string& source,
                                                             const std::filesystem::path& name,
                                                             LuaHost host, LuaLimits limits) {
  std::shared_ptr<LuaHookFile> f(new LuaHookFile(name, std::move(host), limits));
  if (auto st = f->Init(source); !st.ok()) return st.error();
  return f;
}

void LuaHookFile::InstallApi() {
  lua_State* L = lua_.L();
  lua_newtable(L);
  const std::pair<const char*, lua_CFunction> fns[] = {
      {"on", LuaApi::On},           {"register_tool", LuaApi::RegisterTool},
      {"register_command", LuaApi::RegisterCommand},
      {"send_message", LuaApi::SendMessage}, {"notify", LuaApi::Notify},
      {"log", LuaApi::Log}};
  for (const auto& [name, f] : fns) {
    PushClosure(L, this, f);
    lua_setfield(L, -2, name);
  }
  AddJsonFunctions(L);
  lua_setglobal(L, "sepp");
  PushClosure(L, this, LuaApi::Require);
  lua_setglobal(L, "require");
  // ctx: one table, its per-call fields refreshed before each call.
  lua_newtable(L);
  std::string cwd = host_.cwd.string();
  lua_pushlstring(L, cwd.data(), cwd.size());
  lua_setfield(L, -2, "cwd");
  lua_newtable(L);
  PushClosure(L, this, LuaApi::StateGet);
  lua_setfield(L, -2, "get");
  PushClosure(L, this, LuaApi::StateSet);
  lua_setfield(L, -2, "set");
  lua_setfield(L, -2, "state");
  ctx_ref_ = luaL_ref(L, LUA_REGISTRYINDEX);
}

Status LuaHookFile::Init(const std::string& source) {
  std::lock_guard<std::mutex> lock(mu_);
  Status api = lua_.Protected([this](lua_State*) { InstallApi(); });
  if (!api.ok()) return Error::Make(path_.string() + ": " + api.error().message, "lua");
  Status st = lua_.Run(source, path_.string());
  if (!st.ok()) return Error::Make(st.error().message, "lua");
  return Ok();
}

std::vector<std::string> LuaHookFile::events() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> out;
  for (const auto& h : handlers_)
    if (std::find(out.begin(), out.end(), h.event) == out.end()) out.push_back(h.event);
  return out;
}

std::vector<LuaCommand> LuaHookFile::commands() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<LuaCommand> out;
  for (const auto& c : commands_) out.push_back(c.info);
  return out;
}

std::vector<std::unique_ptr<tools::Tool>> LuaHookFile::TakeTools() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::unique_ptr<tools::Tool>> out;
  if (tools_taken_) return out;
  tools_taken_ = true;
  for (const auto& t : tools_)
    out.push_back(MakeLuaTool(shared_from_this(), t.name, t.description, t.parameters, t.ref));
  return out;
}

void LuaHookFile::RestoreState(const Json& state) {
  std::lock_guard<std::mutex> lock(mu_);
  state_ = state.is_object() ? state : Json::object();
}

Json LuaHookFile::state() const {
  std::lock_guard<std::mutex> lock(mu_);
  return state_;
}

bool LuaHookFile::Handles(const char* event) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& h : handlers_)
    if (h.event == event) return true;
  return false;
}

void LuaHookFile::Report(const std::string& what) {
  std::string line = path_.filename().string() + ": " + what;
  if (host_.report) host_.report(line);
  else log::Warn(line);
}

Status LuaHookFile::RunCommand(const std::string& name, const std::string& args) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = std::find_if(commands_.begin(), commands_.end(),
                         [&](const CommandDef& c) { return c.info.name == name; });
  if (it == commands_.end()) return Error::Make("no command \"" + name + "\" in " + path_.string(), "not_found");
  int ref = it->ref;
  Status st = lua_.Protected([&](lua_State* L) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
    lua_pushlstring(L, args.data(), args.size());
    lua_rawgeti(L, LUA_REGISTRYINDEX, ctx_ref_);
    lua_call(L, 2, 0);
  });
  if (!st.ok()) return Error::Make(path_.filename().string() + " /" + name + ": " + st.error().message, "lua");
  return Ok();
}

tools::ToolResult LuaHookFile::RunTool(int ref, const std::string& tool, const Json& args) {
  std::lock_guard<std::mutex> lock(mu_);
  tools::ToolResult r;
  Status st = lua_.Protected([&](lua_State* L) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
    PushJson(L, args);
    lua_rawgeti(L, LUA_REGISTRYINDEX, ctx_ref_);
    lua_call(L, 2, 1);
    if (lua_type(L, -1) == LUA_TSTRING) {
      r.text = lua_tostring(L, -1);
      return;
    }
    auto j = ToJson(L, -1);
    if (!j.ok()) luaL_error(L, "the result: %s", j.error().message.c_str());
    if (j->is_null()) return;
    if (!j->is_object()) luaL_error(L, "the result must be a string or a table");
    const Json& content = (*j)["content"];
    if (content.is_string()) {
      r.text = content.get<std::string>();
    } else if (content.is_array()) {
      for (const auto& block : content)
        if (block.is_object() && block.value("type", "") == "text")
          r.text += (r.text.empty() ? "" : "\n") + block.value("text", "");
    }
    r.is_error = j->value("is_error", false);
  });
  if (!st.ok()) {
    Report("tool " + tool + " failed: " + st.error().message);
    return {"the tool " + tool + " (a Lua hook) failed: " + st.error().message, true};
  }
  return r;
}

void LuaHookFile::Dispatch(
    const std::string& event, const std::string& tool, const Json& ev, int turn, bool subagent,
    const std::function<bool(const Json&, bool, const Handler&)>& fold) {
  std::lock_guard<std::mutex> lock(mu_);
  // By index and by copy: a handler may call sepp.on, which grows the list.
  for (size_t i = 0; i < handlers_.size(); ++i) {
    const Handler h = handlers_[i];
    if (h.event != event) continue;
    if (!h.tools.empty() && std::find(h.tools.begin(), h.tools.end(), tool) == h.tools.end())
      continue;
    Json answer;
    Status st = lua_.Protected([&](lua_State* L) {
      lua_rawgeti(L, LUA_REGISTRYINDEX, h.ref);
      PushJson(L, ev);
      lua_rawgeti(L, LUA_REGISTRYINDEX, ctx_ref_);
      lua_pushinteger(L, turn);
      lua_setfield(L, -2, "turn");
      lua_pushboolean(L, subagent);
      lua_setfield(L, -2, "is_subagent");
      lua_pushlstring(L, event.data(), event.size());
      lua_setfield(L, -2, "event");
      lua_call(L, 2, 1);
      auto j = ToJson(L, -1);
      if (!j.ok()) luaL_error(L, "its answer: %s", j.error().message.c_str());
      if (!j->is_null() && !j->is_object())
        luaL_error(L, "its answer must be a table {action = ...} or nil");
      answer = std::move(*j);
    });
    bool failed = !st.ok();
    if (failed)
      Report(event + " handler failed" + (h.fail_closed ? " (the call is denied)" : "") + ": " +
             st.error().message);
    if (!fold(answer, failed, h)) break;
  }
}

namespace {

// An answer's action, checked against what the event accepts.
bool Action(const Json& a, std::initializer_list<const char*> valid, std::string* out,
            std::string* problem) {
  *out = Str(a, "action");
  if (out->empty()) return true;
  for (const char* v : valid)
    if (*out == v) return true;
  std::string list;
  for (const char* v : valid) list += (list.empty() ? "" : ", ") + std::string(v);
  *problem = "returned action \"" + *out + "\"; expected one of " + list;
  return false;
}

}  // namespace

agent::InputVerdict LuaHookFile::OnInput(const agent::InputInfo& in) {
  agent::InputVerdict out;
  if (!Handles("input")) return out;  // no event built for nobody
  Json ev = {{"text", in.text}};
  Dispatch("input", "", ev, 0, false, [&](const Json& a, bool failed, const Handler&) {
    if (failed || a.is_null()) return true;
    std::string action, problem;
    if (!Action(a, {"continue", "transform", "handled", "block"}, &action, &problem)) {
      Report("input handler " + problem);
      return true;
    }
    agent::InputVerdict v;
    v.context = Str(a, "context");
    if (action == "transform") {
      v.action = agent::InputVerdict::Action::kTransform;
      v.text = Str(a, "text");
      ev["text"] = v.text;
    } else if (action == "handled") {
      v.action = agent::InputVerdict::Action::kHandled;
    } else if (action == "block") {
      v.action = agent::InputVerdict::Action::kBlock;
      v.reason = Str(a, "reason");
    }
    return agent::Merge(out, std::move(v));
  });
  return out;
}

agent::ModelRequestPatch LuaHookFile::BeforeModelRequest(const agent::ModelRequestInfo& in) {
  agent::ModelRequestPatch out;
  if (!Handles("provider_request")) return out;  // no event built for nobody
  Json ev = {{"turn", in.turn}, {"model", in.model}, {"messages", in.messages}};
  Dispatch("provider_request", "", ev, in.turn, false, [&](const Json& a, bool failed, const Handler&) {
    if (!failed && !a.is_null()) agent::Merge(out, {Str(a, "system")});
    return true;
  });
  return out;
}

agent::ToolCallVerdict LuaHookFile::BeforeToolCall(const agent::ToolCallInfo& in) {
  agent::ToolCallVerdict out;
  if (!Handles("tool_call")) return out;  // no event built for nobody
  Json ev = {{"tool", in.tool}, {"call_id", in.call_id}, {"input", in.input}, {"turn", in.turn}};
  Dispatch("tool_call", in.tool, ev, in.turn, in.subagent,
           [&](const Json& a, bool failed, const Handler& h) {
             agent::ToolCallVerdict v;
             if (failed) {
               if (!h.fail_closed) return true;
               v.decision = agent::ToolCallVerdict::Decision::kDeny;
               v.reason = "a tool_call hook (" + path_.filename().string() +
                          ") failed, and it is set to deny when it fails";
               return agent::Merge(out, std::move(v));
             }
             if (a.is_null()) return true;
             std::string action, problem;
             if (!Action(a, {"allow", "deny", "ask", "continue"}, &action, &problem)) {
               Report("tool_call handler " + problem);
               if (!h.fail_closed) return true;
               action = "deny";
             }
             if (action == "allow") v.decision = agent::ToolCallVerdict::Decision::kAllow;
             if (action == "ask") v.decision = agent::ToolCallVerdict::Decision::kAsk;
             if (action == "deny") v.decision = agent::ToolCallVerdict::Decision::kDeny;
             v.reason = Str(a, "reason");
             v.context = Str(a, "context");
             if (a.contains("input")) {
               if (!a["input"].is_object()) {
                 Report("tool_call handler returned an input that is not a table: ignored");
               } else {
                 v.input = a["input"];
                 ev["input"] = v.input;
               }
             }
             return agent::Merge(out, std::move(v));
           });
  return out;
}

agent::ToolResultPatch LuaHookFile::AfterToolResult(const agent::ToolResultInfo& in) {
  agent::ToolResultPatch out;
  if (!Handles("tool_result")) return out;  // no event built for nobody
  Json ev = {{"tool", in.tool},         {"call_id", in.call_id},
             {"input", in.input},       {"content", in.text},
             {"is_error", in.is_error}, {"duration_ms", in.duration_ms},
             {"turn", in.turn}};
  Dispatch("tool_result", in.tool, ev, in.turn, in.subagent,
           [&](const Json& a, bool failed, const Handler&) {
             if (failed || a.is_null()) return true;
             std::string action, problem;
             if (!Action(a, {"continue", "stop"}, &action, &problem)) {
               Report("tool_result handler " + problem);
               return true;
             }
             agent::ToolResultPatch p;
             if (a.contains("content") && a["content"].is_string()) {
               p.text = a["content"].get<std::string>();
               ev["content"] = *p.text;
             }
             if (a.contains("is_error") && a["is_error"].is_boolean()) {
               p.is_error = a["is_error"].get<bool>();
               ev["is_error"] = *p.is_error;
             }
             p.context = Str(a, "context");
             p.stop = action == "stop";
             p.stop_reason = Str(a, "reason");
             agent::Merge(out, std::move(p));
             return true;
           });
  return out;
}

agent::BatchEndVerdict LuaHookFile::OnToolBatchEnd(const agent::BatchEndInfo& in) {
  agent::BatchEndVerdict out;
  if (!Handles("tool_batch_end")) return out;  // no event built for nobody
  Json calls = Json::array();
  for (const auto& c : in.calls)
    calls.push_back({{"tool", c.tool}, {"call_id", c.call_id}, {"input", c.input},
                     {"is_error", c.is_error}});
  Json ev = {{"turn", in.turn}, {"calls", calls}};
  Dispatch("tool_batch_end", "", ev, in.turn, in.subagent,
           [&](const Json& a, bool failed, const Handler&) {
             if (failed || a.is_null()) return true;
             std::string action, problem;
             if (!Action(a, {"continue", "stop"}, &action, &problem)) {
               Report("tool_batch_end handler " + problem);
               return true;
             }
             agent::Merge(out, {action == "stop", Str(a, "reason"), Str(a, "context")});
             return true;
           });
  return out;
}

agent::StopVerdict LuaHookFile::OnStop(const agent::StopInfo& in) {
  agent::StopVerdict out;
  if (!Handles("stop")) return out;  // no event built for nobody
  Json ev = {{"stop_hook_active", in.stop_hook_active},
             {"last_assistant_message", in.last_assistant_message},
             {"turn", in.turn}};
  Dispatch("stop", "", ev, in.turn, in.subagent, [&](const Json& a, bool failed, const Handler&) {
    if (failed || a.is_null()) return true;
    std::string action, problem;
    if (!Action(a, {"continue", "stop"}, &action, &problem)) {
      Report("stop handler " + problem);
      return true;
    }
    agent::Merge(out, {action == "continue", Str(a, "reason")});
    return true;
  });
  return out;
}

agent::CompactVerdict LuaHookFile::BeforeCompact(const agent::CompactInfo& in) {
  agent::CompactVerdict out;
  if (!Handles("before_compact")) return out;  // no event built for nobody
  Json ev = {{"trigger", in.trigger}, {"instructions", in.focus}, {"messages", in.messages}};
  Dispatch("before_compact", "", ev, 0, false, [&](const Json& a, bool failed, const Handler&) {
    if (failed || a.is_null()) return true;
    std::string action, problem;
    if (!Action(a, {"continue", "cancel"}, &action, &problem)) {
      Report("before_compact handler " + problem);
      return true;
    }
    agent::CompactVerdict v;
    v.cancel = action == "cancel";
    if (a.contains("summary") && a["summary"].is_string() && !a["summary"].get<std::string>().empty())
      v.summary = a["summary"].get<std::string>();
    agent::Merge(out, std::move(v));
    return true;
  });
  return out;
}

void LuaHookFile::OnSubagentStart(const agent::SubagentInfo& in) {
  if (!Handles("subagent_start")) return;  // no event built for nobody
  Json ev = {{"call_id", in.call_id}, {"agent_type", in.agent_type}, {"prompt", in.prompt}};
  Dispatch("subagent_start", "", ev, 0, false, [](const Json&, bool, const Handler&) { return true; });
}

void LuaHookFile::OnSubagentStop(const agent::SubagentInfo& in) {
  if (!Handles("subagent_stop")) return;  // no event built for nobody
  Json ev = {{"call_id", in.call_id},
             {"agent_type", in.agent_type},
             {"prompt", in.prompt},
             {"last_assistant_message", in.last_assistant_message},
             {"status", in.status}};
  Dispatch("subagent_stop", "", ev, 0, false, [](const Json&, bool, const Handler&) { return true; });
}

agent::SessionStartVerdict LuaHookFile::OnSessionStart(const agent::SessionInfo& in) {
  agent::SessionStartVerdict out;
  if (!Handles("session_start")) return out;
  Json ev = {{"source", in.source}, {"session_id", in.session_id}};
  Dispatch("session_start", "", ev, 0, false, [&](const Json& a, bool failed, const Handler&) {
    if (!failed && !a.is_null()) agent::Merge(out, {Str(a, "context")});
    return true;
  });
  return out;
}

void LuaHookFile::OnSessionEnd(const agent::SessionInfo& in) {
  if (!Handles("session_end")) return;
  Json ev = {{"reason", in.reason}, {"session_id", in.session_id}};
  Dispatch("session_end", "", ev, 0, false, [](const Json&, bool, const Handler&) { return true; });
}

agent::AgentStartPatch LuaHookFile::BeforeAgentStart(const agent::AgentStartInfo& in) {
  agent::AgentStartPatch out;
  if (!Handles("before_agent_start")) return out;
  Json ev = {{"prompt", in.prompt}, {"system_prompt", in.system_prompt}};
  Dispatch("before_agent_start", "", ev, 0, in.subagent,
           [&](const Json& a, bool failed, const Handler&) {
             if (!failed && !a.is_null()) agent::Merge(out, {Str(a, "system"), Str(a, "context")});
             return true;
           });
  return out;
}

agent::ContextPatch LuaHookFile::OnContext(const agent::ContextInfo& in) {
  agent::ContextPatch out;
  if (!Handles("context")) return out;  // the messages are not converted for nobody
  Json messages = Json::array();
  for (const llm::Message& m : *in.messages) messages.push_back(llm::ToJson(m));
  Json ev = {{"turn", in.turn}, {"messages", messages}};
  Dispatch("context", "", ev, in.turn, in.subagent, [&](const Json& a, bool failed, const Handler&) {
    if (failed || a.is_null() || !a.contains("messages")) return true;
    const Json& list = a["messages"];
    // An empty Lua table encodes as {}: no messages is not a request to send.
    if (!list.is_array() || list.empty()) {
      Report("context handler returned messages that are not a non-empty list: ignored");
      return true;
    }
    std::vector<llm::Message> replaced;
    for (size_t i = 0; i < list.size(); ++i) {
      auto m = llm::MessageFromJson(list[i]);
      if (!m.ok()) {
        Report("context handler returned a bad message " + std::to_string(i + 1) + ": " +
               m.error().message + "; ignored");
        return true;
      }
      replaced.push_back(std::move(*m));
    }
    ev["messages"] = list;  // the next handler sees this one's messages
    agent::Merge(out, {std::move(replaced)});
    return true;
  });
  return out;
}

void LuaHookFile::OnMessageEnd(const agent::MessageEndInfo& in) {
  if (!Handles("message_end")) return;
  const llm::Message& m = *in.message;
  Json ev = llm::ToJson(m);
  ev["text"] = m.Text();
  Dispatch("message_end", "", ev, 0, in.subagent, [](const Json&, bool, const Handler&) { return true; });
}

agent::PermissionVerdict LuaHookFile::OnPermissionRequest(const agent::PermissionHookInfo& in) {
  agent::PermissionVerdict out;
  if (!Handles("permission_request")) return out;
  Json ev = {{"tool", in.tool},
             {"call_id", in.call_id},
             {"input", in.input},
             {"reason", in.reason},
             {"widenings", in.widenings}};
  Dispatch("permission_request", in.tool, ev, 0, in.subagent,
           [&](const Json& a, bool failed, const Handler&) {
             if (failed || a.is_null()) return true;
             std::string action, problem;
             if (!Action(a, {"allow", "deny", "continue"}, &action, &problem)) {
               Report("permission_request handler " + problem);
               return true;
             }
             agent::PermissionVerdict v;
             if (action == "allow") v.decision = agent::PermissionVerdict::Decision::kAllow;
             if (action == "deny") v.decision = agent::PermissionVerdict::Decision::kDeny;
             v.reason = Str(a, "reason");
             return agent::Merge(out, std::move(v));
           });
  return out;
}

void LuaHookFile::OnModelSelect(const agent::ModelSelectInfo& in) {
  if (!Handles("model_select")) return;
  Json ev = {{"model", in.model}, {"previous", in.previous}};
  Dispatch("model_select", "", ev, 0, false, [](const Json&, bool, const Handler&) { return true; });
}

void LuaHookFile::OnError(const agent::PromptEndInfo& in) {
  if (!Handles("error")) return;
  Json ev = {{"kind", in.kind}, {"message", in.message}, {"turn", in.turn}};
  Dispatch("error", "", ev, in.turn, in.subagent, [](const Json&, bool, const Handler&) { return true; });
}

void LuaHookFile::OnInterrupt(const agent::PromptEndInfo& in) {
  if (!Handles("interrupt")) return;
  Json ev = {{"turn", in.turn}};
  Dispatch("interrupt", "", ev, in.turn, in.subagent, [](const Json&, bool, const Handler&) { return true; });
}

void LuaHookFile::OnNotification(const agent::NotificationInfo& in) {
  if (!Handles("notification")) return;
  Json ev = {{"type", in.type}, {"message", in.message}};
  Dispatch("notification", "", ev, 0, false, [](const Json&, bool, const Handler&) { return true; });
}

}  // namespace sepp::ext
