#include "app/mcp_sessions.h"

#include <algorithm>
#include <memory>

#include "app/extension_confirmations.h"
#include "ext/mcp/elicitation.h"
#include "ext/mcp/prompt_commands.h"
#include "ext/mcp/servers.h"
#include "ext/plugins/plugins.h"

namespace sepp::app {
namespace {

using ToolList = std::vector<std::unique_ptr<tools::Tool>>;

// make's tools beside those the options make already, so that the order in
// which MCP servers and plugins are added does not matter.
void AppendExtraTools(runtime::SessionOptions* so, std::function<ToolList()> make) {
  so->extra_tools = [make = std::move(make), before = so->extra_tools] {
    ToolList all = before ? before() : ToolList();
    for (auto& t : make()) all.push_back(std::move(t));
    return all;
  };
}

}  // namespace

Status AddMcpServers(runtime::SessionOptions* so, std::vector<ext::mcp::ServerConfig> given,
                     const std::function<void(const std::string&)>& warn) {
  auto config = ext::mcp::LoadMcpConfig(so->cwd);
  if (!config.ok()) return Error::Make(config.error().message, "usage");
  for (const auto& w : config->warnings) warn(w);
  ext::mcp::StartOptions opts;
  opts.workspace = so->cwd;
  opts.sandbox = so->policy.enabled;
  opts.on_warning = warn;
  // A server's elicitation/create is asked on the session's question path
  // (the session attaches itself to the relay when it opens).
  if (!so->question_relay) so->question_relay = std::make_shared<agent::QuestionRelay>();
  opts.on_elicitation = [relay = so->question_relay, warn](const std::string& server, const Json& params) {
    std::string why;
    Json r = ext::mcp::Elicit(*relay, server, params, &why);
    if (!why.empty()) warn("declined MCP server " + server + "'s elicitation: " + why);
    return r;
  };
  // The configured servers not confirmed as they are now are asked about at
  // the first prompt when a front end answers (app/extension_confirmations.h);
  // a client's own servers are not: they run with the defaults.
  for (auto& x : McpServersToConfirm(*config, opts)) {
    bool replaced = std::any_of(given.begin(), given.end(),
                                [&](const ext::mcp::ServerConfig& g) { return g.name == x.name; });
    if (!replaced) so->extensions_to_confirm.push_back(std::move(x));
  }
  for (auto& g : given) {
    std::erase_if(config->servers, [&](const ext::mcp::ServerConfig& c) { return c.name == g.name; });
    config->servers.push_back(std::move(g));
  }
  if (config->servers.empty()) return Ok();
  std::shared_ptr<ext::mcp::McpServers> servers = ext::mcp::McpServers::Start(*config, opts);
  for (const auto& info : servers->infos())
    if (!info.loaded && !info.errors.empty() && info.trust != "confirmed" &&
        info.errors[0].rfind("disabled", 0) != 0)
      warn("MCP server " + info.name + " " + info.errors[0]);
  AppendExtraTools(so, [servers] { return servers->MakeTools(); });
  so->extra_tools_version = [servers] { return servers->Version(); };
  so->extra_commands = ext::mcp::MakePromptCommands(servers);
  return Ok();
}

void AddPlugins(runtime::SessionOptions* so, const std::function<void(const std::string&)>& warn) {
  std::vector<std::string> warnings;
  std::shared_ptr<ext::plugins::Plugins> plugins = ext::plugins::Plugins::Load(so->cwd, &warnings);
  for (const auto& w : warnings) warn(w);
  for (const auto& info : plugins->infos())
    if (!info.loaded && !info.errors.empty()) warn("plugin " + info.name + " " + info.errors[0]);
  for (auto& x : PluginsToConfirm(so->cwd)) so->extensions_to_confirm.push_back(std::move(x));
  if (plugins->loaded().empty()) return;
  AppendExtraTools(so, [plugins] { return plugins->MakeTools(); });
}

}  // namespace sepp::app
