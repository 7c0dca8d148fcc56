#include "tools/git_egress.h"

#include <algorithm>
#include <cstdlib>

#include "base/file.h"
#include "base/toml.h"
#include "sandbox/proxy.h"

namespace sepp::tools {
namespace {

constexpr const char* kHttpVar = "SEPP_HTTP_ALLOWED_HOSTS";
constexpr const char* kSshVar = "SEPP_SSH_HOSTS";

// The ProxyCommand's tunnel, run by bash with the host and port: CONNECT
// through the in-sandbox proxy port, then bytes both ways. bash's `read`
// takes one byte at a time from a socket, so nothing after the proxy's
// answer is swallowed. A refusal prints the proxy's reason (its body).
std::string TunnelScript() {
  const std::string port = std::to_string(sandbox::kProxyPort);
  return "exec 3<>/dev/tcp/127.0.0.1/" + port +
         " || { echo \"sepp: the sandbox's egress proxy is not reachable\" >&2; exit 1; }\n"
         "printf 'CONNECT %s:%s HTTP/1.1\\r\\nHost: %s:%s\\r\\n\\r\\n' \"$1\" \"$2\" \"$1\" \"$2\" >&3\n"
         "IFS= read -r status <&3\n"
         "case \"$status\" in\n"
         "  \"HTTP/1.\"?\" 200\"*) ;;\n"
         "  *) echo \"sepp: the sandbox's egress proxy refused $1:$2 (${status%$'\\r'})\" >&2\n"
         "     while IFS= read -r l <&3; do [ -z \"${l%$'\\r'}\" ] && break; done\n"
         "     while IFS= read -r l <&3; do echo \"  ${l%$'\\r'}\" >&2; done\n"
         "     exit 1 ;;\n"
         "esac\n"
         "while IFS= read -r l <&3; do [ -z \"${l%$'\\r'}\" ] && break; done\n"
         // The writer in the background (its stdin saved first: a
         // background command's is /dev/null), the reader in front: when
         // the remote closes, the writer goes too, and ssh sees the end.
         "exec 4<&0\n"
         "cat <&4 >&3 4<&- & writer=$!\n"
         "cat <&3 4<&-\n"
         "kill $writer 2>/dev/null\n";
}

// ssh as git runs it inside: no user configuration, no agent, no
// passwords, host keys from the system file and the sandbox's own /tmp.
constexpr const char* kGitSshCommand =
    "ssh -F /dev/null -o BatchMode=yes -o IdentityAgent=none -o IdentitiesOnly=yes "
    "-o UserKnownHostsFile=/tmp/sepp-ssh-known_hosts -o StrictHostKeyChecking=accept-new "
    "-o UpdateHostKeys=no -o 'ProxyCommand=bash -c \"$SEPP_SSH_TUNNEL\" sepp-ssh-tunnel %h %p'";

std::vector<std::string> SplitHosts(std::string_view text) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : text) {
    if (c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (!cur.empty()) out.push_back(std::move(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

void AddUnique(std::vector<std::string>* list, const std::string& v) {
  if (std::find(list->begin(), list->end(), v) == list->end()) list->push_back(v);
}

Result<std::string> HttpEntry(const std::string& entry, const char* where) {
  if (entry == "*")
    return Error::Make(std::string(where) + ": \"*\" would open every host; list the hosts git may "
                       "reach (\"github.com\", \"*.example.com\", \"host:port\")", "usage");
  auto e = sandbox::NormalizeAllowEntry(entry);
  if (!e.ok()) return Error::Make(std::string(where) + ": " + e.error().message, "usage");
  return *e;
}

Result<std::string> SshEntry(const std::string& entry, const char* where) {
  if (entry.find('*') != std::string::npos)
    return Error::Make(std::string(where) + ": \"" + entry.substr(0, 80) +
                       "\": an SSH host is one name (with \":port\" when not 22), not a pattern", "usage");
  bool has_port = entry.find(':') != std::string::npos && entry.find(':') == entry.rfind(':');
  auto e = sandbox::NormalizeAllowEntry(has_port ? entry : entry + ":22");
  if (!e.ok()) return Error::Make(std::string(where) + ": " + e.error().message, "usage");
  return *e;
}

Status AddEntries(const std::vector<std::string>& raw, const char* where, bool ssh,
                  std::vector<std::string>* out) {
  for (const auto& r : raw) {
    auto e = ssh ? SshEntry(r, where) : HttpEntry(r, where);
    if (!e.ok()) return e.error();
    AddUnique(out, *e);
  }
  return Ok();
}

// [git] http_allowed_hosts / ssh_hosts of the user's settings file, for
// the lists the environment does not set.
Status FromSettings(const std::filesystem::path& file, bool need_http, bool need_ssh, GitEgress* g) {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return Ok();
  auto text = ReadBoundedFile(file, kMaxConfigFileBytes, "settings");
  if (!text.ok()) return Error::Make("cannot read " + file.string() + ": " + text.error().message, "usage");
  auto parsed = ParseToml(*text, file.string());
  if (!parsed.ok()) return Error::Make(parsed.error().message, "usage");
  const toml::table* git = (*parsed)["git"].as_table();
  if (!git) return Ok();
  for (bool ssh : {false, true}) {
    const char* key = ssh ? "ssh_hosts" : "http_allowed_hosts";
    const toml::node* n = git->get(key);
    if (!n || !(ssh ? need_ssh : need_http)) continue;
    std::string where = file.string() + ":" + std::to_string(n->source().begin.line) + ": git." + key;
    const toml::array* a = n->as_array();
    if (!a) return Error::Make(where + " must be an array of host names", "usage");
    std::vector<std::string> raw;
    for (const auto& item : *a) {
      auto v = item.value<std::string>();
      if (!v) return Error::Make(where + " must be an array of host names (strings)", "usage");
      raw.push_back(*v);
    }
    if (Status st = AddEntries(raw, where.c_str(), ssh, ssh ? &g->ssh_hosts : &g->http_hosts); !st.ok())
      return st;
  }
  return Ok();
}

}  // namespace

Result<GitEgress> ParseGitEgress(std::string_view http_hosts, std::string_view ssh_hosts) {
  GitEgress g;
  if (Status st = AddEntries(SplitHosts(http_hosts), kHttpVar, false, &g.http_hosts); !st.ok())
    return st.error();
  if (Status st = AddEntries(SplitHosts(ssh_hosts), kSshVar, true, &g.ssh_hosts); !st.ok())
    return st.error();
  return g;
}

Result<GitEgress> LoadGitEgress(const std::filesystem::path& user_settings) {
  const char* http_env = std::getenv(kHttpVar);
  const char* ssh_env = std::getenv(kSshVar);
  auto g = ParseGitEgress(http_env ? http_env : "", ssh_env ? ssh_env : "");
  if (!g.ok()) return g.error();
  if (http_env && ssh_env) return g;
  if (Status st = FromSettings(user_settings, !http_env, !ssh_env, &*g); !st.ok()) return st.error();
  return g;
}

void ApplyGitEgress(const GitEgress& egress, sandbox::Policy* policy) {
  if (egress.empty() || !policy->enabled || policy->net == sandbox::NetMode::kHost) return;
  policy->net = sandbox::NetMode::kProxy;
  for (const auto& h : egress.http_hosts) AddUnique(&policy->allow_domains, h);
  for (const auto& h : egress.ssh_hosts) AddUnique(&policy->allow_domains, h);
  if (egress.ssh_hosts.empty() || policy->env_set.count("GIT_SSH_COMMAND")) return;
  policy->env_set["GIT_SSH_COMMAND"] = kGitSshCommand;
  policy->env_set["SEPP_SSH_TUNNEL"] = TunnelScript();
}

}  // namespace sepp::tools
