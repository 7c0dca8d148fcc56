// The permission gate: how the loop asks a person (through whichever front
// end is attached) to widen the sandbox for one specific thing.
//
// First use: a tool call the sandbox refused (a network connection, a write
// outside the workspace, a denied path) may be retried with a specific
// widening that the model asks for with a justification. The gate receives
// exactly what would be widened and answers: allow once, allow for the rest
// of this session, always for this project (a policy change the front end
// shows before it is saved), or deny with a message for the model.
//
// The agent layer defines the interface; the session runtime implements it
// (asking through the attached front end, answering headless runs from flags,
// denying when no answer comes in time). Extensions reuse it to confirm the
// capabilities they declare.
#pragma once
#include <string>
#include <vector>

#include "base/cancel.h"
#include "base/json.h"
#include "sandbox/denial.h"
#include "sandbox/policy.h"

namespace sepp::agent {

// One thing the sandbox would allow that it does not now.
struct Widening {
  enum class Kind { kDomain, kWritePath, kReadPath };
  Kind kind = Kind::kDomain;
  std::string target;  // "api.example.com" / "*.example.com", or an absolute path
};

const char* ToString(Widening::Kind k);  // "domain" | "write" | "read"
bool ParseWideningKind(const std::string& s, Widening::Kind* out);

// What a request is about. kSandbox: a tool call's widening (above).
// kProjectTrust: a project's own code (its hooks, plugins, MCP servers) may
// run, as its files are now (base/project_trust.h). kExtension: a plugin or
// an MCP server may start with the capabilities it declares
// (ext/capabilities.h). The last two are answered allow (recorded, keyed to
// the content) or deny; no grant of the sandbox kind comes of them.
enum class RequestKind { kSandbox, kProjectTrust, kExtension };
const char* ToString(RequestKind k);  // "sandbox" | "project_trust" | "extension"

// One thing a trust request would let run: a file with its SHA-256, or an
// extension with what it runs and what it may do.
struct TrustItem {
  std::string path;    // a file (absolute), or the extension's name
  std::string sha256;  // of the file / of the extension's confirmation key
  std::string detail;  // "lua-hook", "hooks-json", "plugin", "mcp-server", ...
  std::vector<std::string> capabilities;  // kExtension: "fs_read ./", "net x.com", ...
};

struct PermissionRequest {
  RequestKind kind = RequestKind::kSandbox;
  std::string subject;  // kProjectTrust: the project root; kExtension: the name
  std::vector<TrustItem> items;  // the trust kinds: exactly what would run
  std::string id;       // unique within the session ("perm-1", ...)
  std::string call_id;  // the tool call that asks (the retry)
  std::string tool;     // the tool whose call is retried ("bash")
  Json args;            // that call's arguments (e.g. the command)
  std::vector<Widening> widenings;
  std::string justification;  // the model's words
  std::vector<sandbox::Denial> denials;  // what the sandbox refused the first time, if known
  std::string parent_call_id;  // set when a sub-agent asks
};

enum class PermissionChoice { kAllowOnce, kAllowSession, kAllowProject, kDeny };

const char* ToString(PermissionChoice c);  // "allow_once" | "allow_session" | "allow_project" | "deny"
// Also takes "allow", the trust kinds' one allow (read as kAllowProject:
// the answer is recorded for later sessions).
bool ParsePermissionChoice(const std::string& s, PermissionChoice* out);
// The choices a front end offers for a request of this kind, as the strings
// above: the four for kSandbox, "allow" and "deny" for the trust kinds.
std::vector<std::string> ChoicesFor(RequestKind k);
bool IsAllow(PermissionChoice c);

struct PermissionAnswer {
  PermissionChoice choice = PermissionChoice::kDeny;
  std::string message;  // with kDeny: told to the model
  // Who answered: "user", "flags" (headless --allow-*), "session" (an earlier
  // allow-for-session grant), "timeout", "no_front_end", "cancelled",
  // "hook" (a permission_request hook answered; the gate was not asked).
  std::string source;
};

class PermissionGate {
 public:
  virtual ~PermissionGate() = default;
  // Blocks until an answer. Thread-safe: parallel tool calls may ask at once.
  // Never throws; a cancelled token gives a denial with source "cancelled".
  virtual PermissionAnswer Ask(const PermissionRequest& request, CancelToken& cancel) = 0;
};

// base with the widenings applied (a domain switches the network to the
// filtering proxy if it was off). Used for the one-off retry and for grants.
sandbox::Policy Widen(const sandbox::Policy& base, const std::vector<Widening>& widenings);

// The policy change as the front end shows it before saving it for the
// project: TOML lines for .sepp/policy.toml.
std::string DescribeAsPolicyToml(const std::vector<Widening>& widenings);

Json ToJson(const PermissionRequest& r);
Json ToJson(const PermissionAnswer& a);

}  // namespace sepp::agent
