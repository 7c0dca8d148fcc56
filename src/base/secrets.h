// Secrets: which environment variables hold them, and a process-wide
// redactor that removes their values from anything sepp writes.
//
// Provider keys come only from the environment. At start-up the app calls
// RegisterSecretsFromEnvironment(); from then on Redact() replaces every
// registered value (of at least 8 bytes) with "[REDACTED]". The logger, tool
// output and session stores pass their text through it; text that arrives
// in pieces (a stream of deltas, a command's output) goes through a
// StreamRedactor (base/stream_redactor.h), which sees a secret split
// across two pieces.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "base/json.h"

namespace sepp {

// True for names that look like they hold credentials: *_API_KEY, *_TOKEN,
// *_SECRET*, *PASSWORD*, AWS_*, GITHUB_TOKEN, ... Used to scrub child
// environments.
bool IsSecretEnvName(std::string_view name);

// Registers the values of all secret-looking variables in environ.
void RegisterSecretsFromEnvironment();

// Registers one value (ignored if shorter than 8 bytes: too likely to
// collide with ordinary text). Thread-safe.
void RegisterSecret(std::string value);

// Returns text with every registered secret replaced. Thread-safe.
std::string Redact(std::string_view text);

// True if text contains a registered secret.
bool ContainsSecret(std::string_view text);

// The registered secrets, longest first (for StreamRedactor).
std::vector<std::string> RegisteredSecrets();

// Json with Redact() applied to every string in it, keys included.
Json RedactJson(const Json& value);

}  // namespace sepp
