// The key a source's text is stored under: its sha256, in hex. Dedupe finds
// an output stored before by it, and context_export checks the export
// against it (with base/sha256.h: the same digest).
#pragma once
#include <string>
#include <string_view>

namespace sepp::sidecar {

// OpenSSL's SHA-256, which uses the CPU's SHA instructions where it has
// them: every capture hashes its whole output (256 KiB and more), and the
// portable base/sha256 took a sixth of a capture's instructions for it.
std::string ContentHash(std::string_view text);

}  // namespace sepp::sidecar
