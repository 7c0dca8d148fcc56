// The parts of a confined child's start that every launcher shares (Run()
// for run-to-completion commands, HeldChild for long-lived servers): the
// command resolved against the child's own PATH, TMPDIR pointed at a folder
// the child can write, the proxy variables of proxy mode, and the
// execute allowlist of a policy that names its programs.
#pragma once
#include <string>
#include <vector>

#include "base/result.h"
#include "sandbox/landlock.h"
#include "sandbox/policy.h"

namespace sepp::sandbox {

// The value of NAME in a "NAME=value" list, or "".
std::string EnvValue(const std::vector<std::string>& env, std::string_view name);

// argv[0] resolved against the child's PATH, so that exec in the child
// needs no lookup (and uses the PATH the child will see, not sepp's).
// A name that is not found is returned as it is.
std::string ResolveCommand(const std::string& cmd, const std::vector<std::string>& env);

// TMPDIR as the confined command sees it. sepp's own TMPDIR is usually a
// folder the sandbox does not show (or shows read-only), so mktemp would
// fail; unless it lies inside a write root, the command gets the private
// /tmp instead. A TMPDIR the policy sets itself (environment.set) is kept.
void PointTmpdirAtAWritableFolder(const Policy& policy, std::vector<std::string>* env);

// Proxy mode: every proxy variable points at the in-sandbox proxy port and
// NO_PROXY is emptied (nothing but the proxy is reachable, so nothing
// bypasses it), unless the policy sets them itself.
void AddProxyEnv(const Policy& policy, std::vector<std::string>* env);

// When policy.exec_only is set, Landlock's execute right is taken off every
// rule and given back only to the files that may be started: `command`
// (already resolved), each exec_only program resolved against the child's
// PATH, the interpreter line of a script among them, and the ELF
// interpreter (dynamic loader) of each, which the kernel opens for execute
// too. A listed program that cannot be found is an error naming it.
Status RestrictExecute(const Policy& policy, const std::string& command,
                       const std::vector<std::string>& env, std::vector<LandlockRule>* rules);

}  // namespace sepp::sandbox
