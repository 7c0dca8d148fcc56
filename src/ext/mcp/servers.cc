#include "ext/mcp/servers.h"

#include <algorithm>

#include "base/log.h"
#include "base/paths.h"
#include "base/secrets.h"
#include "base/strings.h"
#include "ext/mcp/http_transport.h"
#include "ext/mcp/resource_tools.h"
#include "ext/mcp/stdio_transport.h"

namespace sepp::ext::mcp {
namespace fs = std::filesystem;
namespace {

// The folder that holds a program's files: for a file inside a
// node_modules tree, the folder that holds the outermost node_modules (the
// package's dependencies lie beside it, not below); else the file's folder.
fs::path ProgramFolder(const fs::path& file) {
  fs::path folder = file.parent_path();
  fs::path acc;
  for (const auto& part : file) {
    if (part == "node_modules") return acc;
    acc /= part;
  }
  return folder;
}

}  // namespace

McpServer::McpServer(ServerConfig config, std::unique_ptr<McpClient> client)
    : config_(std::move(config)), client_(std::move(client)) {}

Status McpServer::RefreshTools(CancelToken* cancel) {
  RequestOptions opts;
  opts.timeout_s = config_.startup_timeout_s;
  opts.cancel = cancel;
  // Cleared before the request: a list_changed arriving while it runs
  // marks the list stale again, and the next caller lists once more.
  tools_stale_ = false;
  auto tools = client_->ListTools(opts);
  if (!tools.ok()) {
    tools_stale_ = true;
    return tools.error();
  }
  std::lock_guard lock(mu_);
  tools_ = std::move(*tools);
  return Ok();
}

std::vector<ToolInfo> McpServer::Tools() {
  if (tools_stale_) (void)RefreshTools();  // on failure the last list stays
  std::lock_guard lock(mu_);
  return tools_;
}

Status McpServer::RefreshPrompts(CancelToken* cancel) {
  prompts_stale_ = false;
  if (!client_->server().capabilities.contains("prompts")) return Ok();
  RequestOptions opts;
  opts.timeout_s = config_.startup_timeout_s;
  opts.cancel = cancel;
  auto prompts = client_->ListPrompts(opts);
  if (!prompts.ok()) {
    prompts_stale_ = true;
    return prompts.error();
  }
  std::lock_guard lock(mu_);
  prompts_ = std::move(*prompts);
  return Ok();
}

std::vector<PromptInfo> McpServer::Prompts() {
  if (prompts_stale_ && client_->connected()) (void)RefreshPrompts();  // on failure the last list stays
  std::lock_guard lock(mu_);
  return prompts_;
}

namespace {

// The folders of its own program: the command and the files its arguments
// name (a script, with the package around it) must be readable to run at all.
std::vector<std::string> ProgramFolders(const ServerConfig& config, const fs::path& workspace) {
  std::vector<std::string> out;
  std::error_code ec;
  for (size_t i = 0; i < config.command.size(); ++i) {
    const std::string& arg = config.command[i];
    if (arg.empty() || arg[0] == '-') continue;
    if (i == 0 && arg.find('/') == std::string::npos) continue;  // found in PATH: a system folder
    fs::path p = ResolveAgainst(workspace, arg);
    if (!fs::is_regular_file(p, ec)) continue;
    fs::path real = fs::canonical(p, ec);
    if (!ec) out.push_back(ProgramFolder(real).string());
  }
  return out;
}

bool Readable(const sandbox::Policy& policy, const fs::path& dir) {
  for (const auto& root : policy.read_roots) {
    auto rel = dir.lexically_normal().lexically_relative(fs::path(root).lexically_normal());
    if (!rel.empty() && *rel.begin() != "..") return true;
  }
  return false;
}

}  // namespace

sandbox::Policy ServerPolicy(const ServerConfig& config, const fs::path& workspace) {
  sandbox::Policy policy = ToPolicy(config.capabilities, workspace);
  for (auto& folder : ProgramFolders(config, workspace)) policy.read_roots.push_back(std::move(folder));
  for (const auto& [k, v] : config.env) policy.env_set[k] = v;
  return policy;
}

fs::path ServerCwd(const ServerConfig& config, const sandbox::Policy& policy, const fs::path& workspace) {
  if (config.cwd) return ResolveAgainst(workspace, *config.cwd);
  if (Readable(policy, workspace)) return workspace;
  // A server that may not see the workspace starts beside its own program.
  auto folders = ProgramFolders(config, workspace);
  return folders.empty() ? fs::path("/usr") : fs::path(folders[0]);
}

namespace {

Result<std::unique_ptr<Transport>> Connect(const ServerConfig& config, const StartOptions& opts) {
  if (!config.url.empty()) {
    // A remote server: nothing of it runs here, so there is nothing to confine.
    net::Headers headers(config.headers.begin(), config.headers.end());
    if (!config.bearer_token_env_var.empty()) {
      const char* token = getenv(config.bearer_token_env_var.c_str());
      if (!token || !*token)
        return Error::Make("the server's bearer token variable " + config.bearer_token_env_var +
                           " is not set", "usage");
      headers.emplace_back("Authorization", std::string("Bearer ") + token);
    }
    std::shared_ptr<OAuthClient> oauth;
    if (config.UsesOAuth()) {
      OAuthOptions o;
      o.server_name = config.name;
      o.client_id = config.oauth_client_id;
      o.client_metadata_url = config.oauth_client_metadata_url;
      if (!config.oauth_client_secret_env_var.empty()) {
        const char* secret = getenv(config.oauth_client_secret_env_var.c_str());
        if (!secret || !*secret)
          return Error::Make("the server's OAuth client secret variable " + config.oauth_client_secret_env_var +
                             " is not set", "usage");
        RegisterSecret(secret);
        o.client_secret = secret;
      }
      oauth = std::make_shared<OAuthClient>(config.url, std::move(o));
    }
    return std::unique_ptr<Transport>(
        std::make_unique<HttpTransport>(config.url, std::move(headers), std::move(oauth)));
  }
  sandbox::Policy policy = ServerPolicy(config, opts.workspace);
  policy.enabled = opts.sandbox;
  sandbox::HeldSpec spec;
  spec.argv = config.command;
  spec.cwd = ServerCwd(config, policy, opts.workspace);
  auto stdio = StdioTransport::Spawn(spec, policy);
  if (!stdio.ok()) return stdio.error();
  return std::unique_ptr<Transport>(std::move(*stdio));
}

}  // namespace

Result<std::shared_ptr<McpServer>> StartServer(const ServerConfig& config, const StartOptions& opts) {
  auto transport = Connect(config, opts);
  if (!transport.ok()) return transport.error();
  ClientHooks hooks;
  if (opts.offer_roots) hooks.roots = {opts.workspace.string()};
  std::string name = config.name;
  if (opts.on_elicitation)
    hooks.on_elicitation = [name, f = opts.on_elicitation](const Json& p) { return f(name, p); };
  hooks.on_log = [name](const std::string& level, const std::string& text) {
    log::Debug("mcp " + name + " [" + level + "] " + text);
  };
  // The hook runs on the transport's thread, which must not wait on a
  // request of its own: the list is fetched by the next user.
  std::shared_ptr<McpServer> server;
  auto weak = std::make_shared<std::weak_ptr<McpServer>>();
  hooks.on_list_changed = [weak, name, f = opts.on_list_changed](const std::string& what) {
    if (auto s = weak->lock()) {
      if (what == "tools") s->MarkToolsStale();
      if (what == "prompts") s->MarkPromptsStale();
    }
    if (f) f(name, what);
  };
  auto client = std::make_unique<McpClient>(std::move(*transport), std::move(hooks));
  auto info = client->Initialize(config.startup_timeout_s);
  if (!info.ok()) {
    std::string diag = client->transport().Diagnostics();
    return Error::Make(info.error().message + (diag.empty() ? "" : "; the server said: " + diag),
                       info.error().kind);
  }
  server = std::make_shared<McpServer>(config, std::move(client));
  *weak = server;
  if (auto st = server->RefreshTools(); !st.ok()) return st.error();
  // Its tools work without its prompts: a failed list is tried again by the next reader.
  if (auto st = server->RefreshPrompts(); !st.ok())
    log::Warn("MCP server " + config.name + ": listing its prompts: " + st.error().message);
  return server;
}

ExtensionInfo DescribeServer(const ServerConfig& s) {
  ExtensionInfo info;
  info.name = s.name;
  info.tier = Tier::kMcpServer;
  info.kind = "mcp-server";
  info.source = s.source;
  info.scope = s.project ? "project" : "user";
  info.may = Describe(s.capabilities);
  // A server the front end's client gave for its session (client_servers.h)
  // was chosen there; it runs with the defaults for such servers.
  const bool client = s.origin == "client";
  ConfirmState state = client ? ConfirmState::kConfirmed
                              : ConfirmationOf(s.name, CapabilityKey(s.name, s.Runs(), s.capabilities));
  info.trust = client                               ? "given by the client for this session"
               : state == ConfirmState::kConfirmed ? "confirmed"
               : state == ConfirmState::kChanged   ? "changed since confirmed"
                                                   : "unconfirmed";
  if (!s.enabled) info.errors.push_back("disabled (enabled = false)");
  else if (state != ConfirmState::kConfirmed) {
    info.errors.push_back(UnconfirmedReason(s.name, state));
    std::string refused = RefusalOf(s.name, CapabilityKey(s.name, s.Runs(), s.capabilities));
    if (!refused.empty()) info.errors.back() += " (" + refused + ")";
  }
  return info;
}

uint64_t McpServers::Version() const { return *version_; }

std::unique_ptr<McpServers> McpServers::Start(const McpConfig& config, const StartOptions& opts) {
  auto out = std::make_unique<McpServers>();
  StartOptions o = opts;
  // Counted on the transport's thread as the notification arrives, before
  // the server's next message (the answer to the call that changed the
  // list): whoever sees that answer sees the new count.
  o.on_list_changed = [version = out->version_, f = opts.on_list_changed](const std::string& server,
                                                                          const std::string& what) {
    ++*version;
    if (f) f(server, what);
  };
  for (const auto& s : config.servers) {
    ExtensionInfo info = DescribeServer(s);
    if (info.errors.empty()) {
      auto started = StartServer(s, o);
      if (started.ok()) {
        info.loaded = true;
        out->running_.push_back(std::move(*started));
      } else {
        info.errors.push_back("could not start: " + started.error().message);
        if (opts.on_warning) opts.on_warning("MCP server " + s.name + " " + info.errors.back());
      }
    }
    out->infos_.push_back(std::move(info));
  }
  return out;
}

std::vector<std::unique_ptr<tools::Tool>> McpServers::MakeTools() const {
  std::vector<std::unique_ptr<tools::Tool>> out;
  for (const auto& server : running_)
    for (auto& t : server->Tools())
      if (server->config().ToolEnabled(t.name)) out.push_back(MakeMcpTool(server, std::move(t)));
  for (auto& t : MakeResourceTools(running_)) out.push_back(std::move(t));
  return out;
}

}  // namespace sepp::ext::mcp
