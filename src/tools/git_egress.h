// Which remotes git inside the sandbox may reach: the session policy's
// part that SEPP_HTTP_ALLOWED_HOSTS and SEPP_SSH_HOSTS set (docs/workspaces.md,
// "Git remotes from inside").
//
// Default: none, and the session's network stays off. Hosts listed join the
// policy's egress allowlist, which puts the sandbox in proxy mode: the
// command's only way out is sepp's egress proxy (sandbox/proxy.h), which
// lets through the allowlist and nothing else. git over HTTP(S) uses the
// proxy through the proxy variables proxy mode already sets (libcurl
// reads http_proxy/https_proxy). git over SSH gets GIT_SSH_COMMAND: ssh
// with a ProxyCommand that opens a CONNECT tunnel through the same proxy
// (bash's /dev/tcp, nothing to install), no user configuration (-F
// /dev/null), no agent (IdentityAgent=none) and no passwords (BatchMode).
// The user's SSH keys, agent socket and ~/.ssh never enter the sandbox
// (~/.ssh is a default deny path; SSH_AUTH_SOCK is not passed): an SSH
// remote reached from inside authenticates only with what is inside. Host
// keys: /etc/ssh/ssh_known_hosts (readable) and a per-sandbox file in the
// private /tmp that learns a new host's key on first use.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "sandbox/policy.h"

namespace sepp::tools {

struct GitEgress {
  std::vector<std::string> http_hosts;  // egress allowlist entries, normal form
  std::vector<std::string> ssh_hosts;   // "host:port", port 22 unless given
  bool empty() const { return http_hosts.empty() && ssh_hosts.empty(); }
};

// Two lists of hosts separated by commas or white space. HTTP entries are
// the allowlist's ("example.com", "*.example.com", "host:port"); SSH
// entries are one host each, with an optional ":port" (22 otherwise). "*"
// and anything the allowlist cannot read are errors that name the
// variable and the entry.
Result<GitEgress> ParseGitEgress(std::string_view http_hosts, std::string_view ssh_hosts);

// The session's: each of SEPP_HTTP_ALLOWED_HOSTS and SEPP_SSH_HOSTS when it
// is set (even to nothing: the environment of this run wins), else the
// user's settings file (user_settings: SeppHome()/settings.toml), table
// [git], keys http_allowed_hosts and ssh_hosts (arrays of strings). A
// project's own settings are never read for these: a cloned repository
// cannot open the network for itself.
Result<GitEgress> LoadGitEgress(const std::filesystem::path& user_settings);

// Adds egress to a confined policy: its hosts on the allowlist (proxy mode
// when the network was off) and, with SSH hosts, GIT_SSH_COMMAND and the
// tunnel script it runs, unless the policy sets them itself. A policy with
// the host's network, or no sandbox, is left as it is.
void ApplyGitEgress(const GitEgress& egress, sandbox::Policy* policy);

}  // namespace sepp::tools
