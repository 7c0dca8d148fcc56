// Capabilities: the one vocabulary in which an extension that runs code of
// its own (an MCP server, tier 4; a WebAssembly plugin, tier 3) declares
// what it needs, and the user confirms.
//
//   fs_read  = ["./", "~/notes"]    read those paths (relative to the
//                                   workspace, or to ~)
//   fs_write = ["./out"]            write (and read) those paths
//   net      = ["api.example.com"]  reach those domains through the egress
//                                   proxy's allowlist ("*.x.com" allowed)
//   env      = ["GITHUB_TOKEN"]     receive those environment variables
//   exec     = ["git"]              start those programs (beside its own
//                                   command/interpreter)
//
// Default deny: what is not declared is refused. ToPolicy() maps a
// declaration onto the sandbox::Policy the launcher enforces; secret
// locations (~/.ssh, provider keys, .env files, ...) stay masked whatever is
// declared, because the masks of the default policy are kept.
//
// Confirmation: an extension starts only after the user confirmed *this*
// declaration. The confirmation is keyed to the content (CapabilityKey: the
// extension's name, what it runs and what it declares), recorded in
// SeppHome()/extension_trust.json (0600); a changed command or declaration
// is a new key and asks again (like base/project_trust.h for projects).
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "base/json.h"
#include "base/result.h"
#include "sandbox/policy.h"

namespace sepp::ext {

struct Capabilities {
  std::vector<std::string> fs_read, fs_write, net, env, exec;
  bool empty() const {
    return fs_read.empty() && fs_write.empty() && net.empty() && env.empty() && exec.empty();
  }
  bool operator==(const Capabilities&) const = default;
};

// From a TOML table ([mcp.servers.capabilities], a plugin manifest's
// [capabilities]); unknown keys, wrong types, empty or NUL-bearing entries
// are errors "SOURCE:LINE: capabilities.KEY: what is wrong".
Result<Capabilities> CapabilitiesFromToml(const toml::table& table, const std::string& source);
Json ToJson(const Capabilities& caps);
Result<Capabilities> CapabilitiesFromJson(const Json& j);

// The policy a process with these capabilities runs under, paths resolved
// against workspace (or ~). A net entry "*" means the host network.
sandbox::Policy ToPolicy(const Capabilities& caps, const std::filesystem::path& workspace);

// What it may do in words, one line per grant ("fs_read ./", "net
// api.example.com", "exec git"); "nothing beyond running itself" when empty.
std::vector<std::string> Describe(const Capabilities& caps);

// The confirmation key: SHA-256 over the name, what runs (command line or
// URL, or a binary's hash) and the declaration.
std::string CapabilityKey(const std::string& name, const std::string& runs,
                          const Capabilities& caps);

enum class ConfirmState { kConfirmed, kChanged, kUnconfirmed };
ConfirmState ConfirmationOf(const std::string& name, const std::string& key);
// Records key as confirmed for name (replacing an older one).
Status Confirm(const std::string& name, const std::string& key);
// Forgets the confirmation of name (removal of the extension).
Status Unconfirm(const std::string& name);
std::filesystem::path ExtensionTrustPath();  // SeppHome()/extension_trust.json

// A session asked the user to confirm key for name and the answer was no
// (or none came): kept beside the confirmation so that `sepp ext list` can
// say why the extension did not load. A confirmation clears it; a
// different key makes it moot.
Status RecordRefusal(const std::string& name, const std::string& key, const std::string& why);
// The recorded refusal of exactly this key, or "".
std::string RefusalOf(const std::string& name, const std::string& key);

// The reason an unconfirmed extension was not started, with the way out.
std::string UnconfirmedReason(const std::string& name, ConfirmState state);

}  // namespace sepp::ext
