// sepp mcp: the configured MCP servers (docs/mcp.md).
//
//   sepp mcp list                      every server, where it is configured,
//                                      what it may do, whether confirmed
//   sepp mcp add NAME [caps] -- CMD... add a stdio server to SeppHome()/mcp.toml
//   sepp mcp remove NAME               remove it (and its confirmation and
//                                      OAuth tokens)
//   sepp mcp trust NAME                confirm its capabilities as they are now
//   sepp mcp probe [--call TOOL --args JSON] (URL | -- CMD...)
//                                      connect to a Streamable HTTP server
//                                      (signing in with OAuth when it asks),
//                                      or start a stdio one confined (no
//                                      capabilities but --fs-read etc.);
//                                      list its tools, call one
#include <cstdio>
#include <filesystem>

#include <CLI/CLI.hpp>

#include "app/commands.h"
#include "base/json.h"
#include "ext/capabilities.h"
#include "ext/mcp/config.h"
#include "ext/mcp/elicitation.h"
#include "ext/mcp/oauth_store.h"
#include "ext/mcp/oauth_wire.h"
#include "ext/mcp/servers.h"

namespace sepp::app {
namespace {
namespace fs = std::filesystem;
using ext::mcp::ServerConfig;

struct CapFlags {
  ext::Capabilities caps;
  void Add(CLI::App* cmd) {
    cmd->add_option("--fs-read", caps.fs_read, "a path it may read (repeat)");
    cmd->add_option("--fs-write", caps.fs_write, "a path it may write (repeat)");
    cmd->add_option("--net", caps.net, "a domain it may reach (repeat; * = any)");
    cmd->add_option("--env", caps.env, "an environment variable it may receive (repeat)");
    cmd->add_option("--exec", caps.exec, "a program it may run (repeat)");
  }
};

const char* StateText(ext::ConfirmState s) {
  switch (s) {
    case ext::ConfirmState::kConfirmed: return "confirmed";
    case ext::ConfirmState::kChanged: return "CHANGED since confirmed: run `sepp mcp trust NAME`";
    case ext::ConfirmState::kUnconfirmed: return "unconfirmed: run `sepp mcp trust NAME`";
  }
  return "?";
}

std::string RunsText(const ServerConfig& s) {
  if (!s.url.empty()) return s.url;
  std::string out;
  for (const auto& a : s.command) out += (out.empty() ? "" : " ") + a;
  return out;
}

int List() {
  auto config = ext::mcp::LoadMcpConfig(fs::current_path());
  if (!config.ok()) {
    std::fprintf(stderr, "sepp: %s\n", config.error().message.c_str());
    return 2;
  }
  for (const auto& w : config->warnings) std::fprintf(stderr, "sepp: %s\n", w.c_str());
  if (config->servers.empty()) {
    std::printf("no MCP servers configured (add one with `sepp mcp add NAME -- CMD ...`)\n");
    return 0;
  }
  for (const auto& s : config->servers) {
    auto state = ext::ConfirmationOf(s.name, ext::CapabilityKey(s.name, s.Runs(), s.capabilities));
    std::printf("%s%s\n  runs: %s\n  from: %s%s (%s)\n  %s\n", s.name.c_str(),
                s.enabled ? "" : " (disabled)", RunsText(s).c_str(), s.source.c_str(),
                s.line ? (":" + std::to_string(s.line)).c_str() : "", s.origin.c_str(),
                StateText(state));
    for (const auto& m : ext::Describe(s.capabilities)) std::printf("  may: %s\n", m.c_str());
    if (s.UsesOAuth()) {
      auto record = ext::mcp::LoadOAuthRecord(ext::mcp::CanonicalResource(s.url));
      if (record)
        std::printf("  OAuth: signed in at %s%s\n", record->issuer.c_str(),
                    record->scope.empty() ? "" : (" (scope " + record->scope + ")").c_str());
      else
        std::printf("  OAuth: not signed in (sepp signs in when the server asks)\n");
    }
  }
  return 0;
}

int Trust(const std::string& name) {
  auto config = ext::mcp::LoadMcpConfig(fs::current_path());
  if (!config.ok()) {
    std::fprintf(stderr, "sepp: %s\n", config.error().message.c_str());
    return 2;
  }
  for (const auto& s : config->servers) {
    if (s.name != name) continue;
    std::printf("confirming MCP server %s\n  runs: %s\n", name.c_str(), RunsText(s).c_str());
    for (const auto& m : ext::Describe(s.capabilities)) std::printf("  may: %s\n", m.c_str());
    auto st = ext::Confirm(name, ext::CapabilityKey(s.name, s.Runs(), s.capabilities));
    if (!st.ok()) {
      std::fprintf(stderr, "sepp: %s\n", st.error().message.c_str());
      return 1;
    }
    std::printf("confirmed; a changed command or declaration asks again\n");
    return 0;
  }
  std::fprintf(stderr, "sepp: no MCP server named %s (see `sepp mcp list`)\n", name.c_str());
  return 2;
}

// probe has no user: --elicitation defaults answers every form as a user
// who accepts it unchanged would (each field's default; a required field
// without one declines it), through the same checks as a front end's answer.
class DefaultsAsker : public agent::QuestionAsker {
 public:
  agent::QuestionAnswer Ask(const agent::Question& q, CancelToken&) override {
    agent::QuestionAnswer a;
    a.source = "user";
    auto values = agent::CheckAnswer(q, Json::object());
    if (!values.ok()) {
      std::fprintf(stderr, "sepp: declined %s's question: %s\n", q.source.c_str(), values.error().message.c_str());
      return a;
    }
    a.status = agent::QuestionStatus::kAnswered;
    a.values = std::move(values).value();
    std::printf("elicitation from %s: \"%s\" accepted with %s\n", q.source.c_str(), q.prompt.c_str(),
                DumpJson(a.values).c_str());
    return a;
  }
};

int Probe(const ServerConfig& config, const std::string& call, const std::string& args_text,
          const std::string& elicitation) {
  ext::mcp::StartOptions opts;
  opts.workspace = fs::current_path();
  auto asker = std::make_shared<DefaultsAsker>();
  if (elicitation == "defaults")
    opts.on_elicitation = [asker](const std::string& server, const Json& params) {
      std::string why;
      Json r = ext::mcp::Elicit(*asker, server, params, &why);
      if (!why.empty()) std::fprintf(stderr, "sepp: declined %s's elicitation: %s\n", server.c_str(), why.c_str());
      return r;
    };
  auto server = ext::mcp::StartServer(config, opts);
  if (!server.ok()) {
    std::fprintf(stderr, "sepp: %s\n", server.error().message.c_str());
    return 1;
  }
  const auto& info = (*server)->client().server();
  std::printf("server %s %s, protocol %s\n", info.name.c_str(), info.version.c_str(),
              info.protocol_version.c_str());
  for (const auto& t : (*server)->Tools()) std::printf("  tool %s: %s\n", t.name.c_str(), t.description.c_str());
  if (call.empty()) return 0;
  auto args = ParseJson(args_text.empty() ? "{}" : args_text);
  if (!args.ok() || !args->is_object()) {
    std::fprintf(stderr, "sepp: --args must be a JSON object\n");
    return 2;
  }
  for (const auto& t : (*server)->Tools()) {
    if (t.name != call) continue;
    auto tool = ext::mcp::MakeMcpTool(*server, t);
    tools::ToolContext ctx;
    ctx.cwd = opts.workspace;
    auto r = tool->Run(*args, ctx);
    std::printf("%s\n", r.text.c_str());
    return r.is_error ? 1 : 0;
  }
  std::fprintf(stderr, "sepp: the server has no tool %s\n", call.c_str());
  return 2;
}

}  // namespace

int RunMcpCommand(int argc, char** argv) {
  CLI::App cli{"sepp mcp: MCP servers, confined by the sandbox (docs/mcp.md)", "sepp mcp"};
  cli.require_subcommand(1);
  auto* list = cli.add_subcommand("list", "the configured servers and what they may do");
  std::string name, url, call, call_args;
  std::vector<std::string> command, env_values;
  CapFlags add_caps, probe_caps;
  auto* add = cli.add_subcommand("add", "add a server to " + ext::mcp::UserMcpFile().string());
  add->add_option("name", name, "the server's name")->required();
  add->add_option("--url", url, "a Streamable HTTP server's URL");
  add->add_option("--set-env", env_values, "NAME=VALUE set for the server (repeat)");
  add_caps.Add(add);
  add->add_option("command", command, "-- CMD ARGS...");
  auto* remove = cli.add_subcommand("remove", "remove a server added with `sepp mcp add`");
  remove->add_option("name", name)->required();
  auto* trust = cli.add_subcommand("trust", "confirm a server's capabilities as they are now");
  trust->add_option("name", name)->required();
  auto* probe = cli.add_subcommand("probe", "connect to URL (or start -- CMD... confined), list its tools, call one");
  probe->add_option("--call", call, "a tool to call");
  probe->add_option("--args", call_args, "its arguments as a JSON object");
  std::string elicitation = "decline";
  probe->add_option("--elicitation", elicitation,
                    "answer the server's elicitation/create forms: decline (default) or defaults "
                    "(accept each with its fields' defaults)")
      ->check(CLI::IsMember({"decline", "defaults"}));
  probe_caps.Add(probe);
  std::string client_id, client_secret_env, client_metadata_url;
  for (auto* cmd : {add, probe}) {
    cmd->add_option("--oauth-client-id", client_id, "a remote server: sepp's pre-registered OAuth client id");
    cmd->add_option("--oauth-client-secret-env", client_secret_env,
                    "the environment variable holding that client's secret");
    cmd->add_option("--oauth-client-metadata-url", client_metadata_url,
                    "sepp's OAuth client ID metadata document (https URL)");
  }
  probe->add_option("command", command, "URL, or -- CMD ARGS...")->required();
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return cli.exit(e);
  }
  if (*list) return List();
  if (*trust) return Trust(name);
  if (*remove) {
    std::string removed_url;  // its OAuth tokens go with it
    if (auto config = ext::mcp::LoadMcpConfig(fs::current_path()); config.ok())
      for (const auto& s : config->servers)
        if (s.name == name && s.source == ext::mcp::UserMcpFile()) removed_url = s.url;
    if (auto st = ext::mcp::RemoveUserServer(name); !st.ok()) {
      std::fprintf(stderr, "sepp: %s\n", st.error().message.c_str());
      return 2;
    }
    (void)ext::Unconfirm(name);
    if (!removed_url.empty()) (void)ext::mcp::ForgetOAuthRecord(ext::mcp::CanonicalResource(removed_url));
    std::printf("removed %s\n", name.c_str());
    return 0;
  }
  ServerConfig s;
  s.name = probe->parsed() ? "probe" : name;
  s.command = command;
  s.url = url;
  if (probe->parsed() && command.size() == 1 &&
      (command[0].rfind("http://", 0) == 0 || command[0].rfind("https://", 0) == 0)) {
    s.url = command[0];
    s.command.clear();
  }
  s.capabilities = probe->parsed() ? probe_caps.caps : add_caps.caps;
  s.oauth_client_id = client_id;
  s.oauth_client_secret_env_var = client_secret_env;
  s.oauth_client_metadata_url = client_metadata_url;
  for (const auto& kv : env_values) {
    size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      std::fprintf(stderr, "sepp: --set-env wants NAME=VALUE, got %s\n", kv.c_str());
      return 2;
    }
    s.env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  if (*probe) return Probe(s, call, call_args, elicitation);
  if (auto st = ext::mcp::AddUserServer(s); !st.ok()) {
    std::fprintf(stderr, "sepp: %s\n", st.error().message.c_str());
    return 2;
  }
  std::printf("added %s to %s; it starts once you confirm it: sepp mcp trust %s\n", name.c_str(),
              ext::mcp::UserMcpFile().c_str(), name.c_str());
  return 0;
}

}  // namespace sepp::app
