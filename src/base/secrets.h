// Secrets: which environment variables hold them, and a process-wide
// redactor that removes their values from anything sepp writes.
//
// Provider keys come only from the environment. At start-up the app calls
// RegisterSecretsFromEnvironment(); from then on Redact() replaces every
// registered value (of at least 8 bytes) with "[REDACTED]". The logger, tool
// output and session stores pass their text through it.
#pragma once
#include <string>
#include <string_view>

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

}  // namespace sepp
