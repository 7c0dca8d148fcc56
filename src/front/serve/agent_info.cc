#include "front/serve/agent_info.h"

#include <cstdlib>

#include "base/clock.h"

namespace sepp::front::serve {

namespace {

bool Set(const std::string& name) {
  const char* v = std::getenv(name.c_str());
  return v && *v;
}

}  // namespace

Json ExternalAgentInfo(const AgentCatalog& catalog, const AgentSpec& spec, const Json& running) {
  AgentLocation loc = catalog.Locate(spec);
  Json creds = Json::array();
  bool all = true;
  for (const auto& name : spec.credentials) {
    bool set = Set(name);
    creds.push_back({{"name", name}, {"available", set}});
    if (!set) all = false;
  }
  bool any = false;
  for (const auto& c : creds) any = any || c["available"].get<bool>();
  // pi takes either key; the others need each of theirs.
  bool available = spec.id == "pi" ? any : (all || spec.credentials.empty());

  Json seen = catalog.Remembered(spec.id);
  Json init = seen.is_object() && seen.contains("initialize") ? seen["initialize"] : Json();
  Json session = seen.is_object() && seen.contains("sessionNew") ? seen["sessionNew"] : Json();
  Json agent_caps = init.is_object() ? init.value("agentCapabilities", Json::object()) : Json::object();
  Json prompt = agent_caps.value("promptCapabilities", Json::object());
  Json mcp = agent_caps.value("mcpCapabilities", Json::object());
  auto flag = [](const Json& j, const char* k) { return j.is_object() && j.value(k, false) == true; };
  Json caps = {{"planMode", false},         {"permissions", true},
               {"questions", false},        {"toolCalls", true},
               {"toolResults", true},       {"textMessages", true},
               {"images", flag(prompt, "image")},
               {"fileAttachments", flag(prompt, "embeddedContext")},
               {"sessionLifecycle", true},  {"errorEvents", true},
               {"reasoning", true},         {"status", true},
               {"commandExecution", true},  {"fileChanges", true},
               {"mcpTools", flag(mcp, "http") || flag(mcp, "sse")},
               {"streamingDeltas", true},   {"itemStarted", false},
               {"sharedProcess", false}};

  int64_t oldest = 0;
  int count = 0;
  if (running.is_object() && running.contains("servers"))
    for (const auto& s : running["servers"])
      if (s.value("agent", "") == spec.id) {
        ++count;
        int64_t at = s.value("createdAtMs", int64_t{0});
        if (!oldest || at < oldest) oldest = at;
      }
  Json info = {{"id", spec.id},
               {"installed", loc.installed},
               {"credentialsAvailable", available},
               {"credentials", creds},
               {"capabilities", caps},
               {"serverStatus", count ? Json{{"status", "running"}, {"uptimeMs", NowMs() - oldest}, {"connections", count}}
                                      : Json{{"status", "stopped"}}},
               {"source", spec.source},
               {"command", spec.command}};
  // Absent when unknown (sandbox-agent's clients take a version string or none).
  if (!loc.version.empty()) info["version"] = loc.version;
  if (loc.installed) info["path"] = loc.program.string();
  if (!loc.found_in.empty()) info["foundIn"] = loc.found_in;
  if (!spec.package.empty()) info["package"] = {{"name", spec.package}, {"version", spec.version}};
  info["modes"] = session.is_object() && session.contains("modes") ? session["modes"] : Json();
  info["models"] = session.is_object() && session.contains("models") ? session["models"] : Json();
  info["acp"] = seen.is_object()
                    ? Json{{"agentCapabilities", agent_caps},
                           {"agentInfo", init.is_object() ? init.value("agentInfo", Json()) : Json()},
                           {"authMethods", init.is_object() ? init.value("authMethods", Json()) : Json()},
                           {"cachedAtMs", seen["atMs"]}}
                    : Json();
  return info;
}

}  // namespace sepp::front::serve
