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

struct PermissionRequest {
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
bool ParsePermissionChoice(const std::string& s, PermissionChoice* out);

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
