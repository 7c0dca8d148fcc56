// A typed denial: what the sandbox or the file tools' PathGuard refused, as
// a kind a program can act on, the path or domain it concerns (when known),
// and the plain words the model and the user read. The words are produced
// where the refusal happens (denials.cc, proxy.cc, git_control.cc,
// tools/access.cc); ClassifyDenial reads the kind and target back from them,
// so one classifier covers every producer, the worker protocol and old
// session files that hold only the words.
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
  kOther,         // memory, file size, forbidden syscalls, anything unrecognised
};

struct Denial {
  DenialKind kind = DenialKind::kOther;
  std::string target;  // the path or domain; empty when the words do not name one
  std::string text;    // the plain words, unchanged
};

// "network", "read", "write", "protected", "secret", "process_limit",
// "time_limit", "other".
std::string_view DenialKindName(DenialKind kind);
// The kind a name stands for; kOther for an unknown name (a newer writer).
DenialKind DenialKindFromName(std::string_view name);

// The kind and target of one denial's words.
Denial ClassifyDenial(std::string_view text);

// {"kind": ..., "target": ..., "text": ...}; "target" only when known.
Json DenialToJson(const Denial& d);
// An array of denials as written anywhere: strings (older sessions, the
// details array) or objects (DenialToJson). Other values are skipped.
std::vector<Denial> DenialsFromJson(const Json& j);
Json DenialsToJson(const std::vector<Denial>& ds);

}  // namespace sepp::sandbox
