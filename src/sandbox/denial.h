// A typed denial: what the sandbox, the file tools' PathGuard or a
// permission answer refused, as a kind a program can act on, the path or
// domain it concerns (when known), and the plain words the model and the
// user read. Every producer types its denials where the refusal happens
// (denials.cc, proxy.cc, git_control.cc, tools/access.cc, the agent's
// retry_with_access); they travel typed in tools::ToolResult, over the tool
// worker's protocol, in events and in session entries. ClassifyDenial reads
// a kind and target back from the words only for session files written
// before denials were typed (plain strings).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "base/json.h"

namespace sepp::sandbox {

enum class DenialKind {
  kNetwork,       // no network, or a host off the allowlist
  kRead,          // a path outside what may be read
  kWrite,         // a path outside what may be written
  kProtected,     // a protected path inside the workspace (.git control files, .sepp)
  kSecret,        // a deny path (keys, credentials)
  kProcessLimit,  // limits.processes
  kTimeLimit,     // limits.timeout
  kPermission,    // a permission request answered no (the user, a timeout, no front end)
  kOther,         // memory, file size, forbidden syscalls, anything unrecognised
};

struct Denial {
  DenialKind kind = DenialKind::kOther;
  std::string target;  // the path or domain; empty when the words do not name one
  std::string text;    // the plain words, unchanged
};

// "network", "read", "write", "protected", "secret", "process_limit",
// "time_limit", "permission", "other".
std::string_view DenialKindName(DenialKind kind);
// The kind a name stands for; kOther for an unknown name (a newer writer).
DenialKind DenialKindFromName(std::string_view name);

// The kind and target of one denial's words: the fallback for old session
// files that hold only the words. New code never needs it.
Denial ClassifyDenial(std::string_view text);

// {"kind": ..., "target": ..., "text": ...}; "target" only when known.
Json DenialToJson(const Denial& d);
// An array of denials as written anywhere: strings (older sessions, the
// details array) or objects (DenialToJson). Other values are skipped.
std::vector<Denial> DenialsFromJson(const Json& j);
Json DenialsToJson(const std::vector<Denial>& ds);

}  // namespace sepp::sandbox
