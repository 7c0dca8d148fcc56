// Internal to src/session: the client side of SCRAM-SHA-256 (RFC 5802,
// RFC 7677) as PostgreSQL uses it: no channel binding ("n,,"), the user
// name left empty (the server takes the startup message's), and the
// server's final signature checked, so a server that does not know the
// password cannot pretend to have accepted it.
#pragma once
#include <string>
#include <string_view>

#include "base/result.h"

namespace sepp::session {

class ScramClient {
 public:
  // nonce: printable, no ','; random when empty (tests pass a fixed one).
  // user: "" for PostgreSQL (tests pass RFC 7677's "user").
  explicit ScramClient(std::string password, std::string nonce = "", std::string user = "");
  // client-first-message.
  std::string First();
  // client-final-message for the server-first-message; kind "auth" when
  // the server's message is malformed or its nonce does not extend ours.
  Result<std::string> Final(std::string_view server_first);
  // Checks server-final-message ("v=<signature>").
  Status Verify(std::string_view server_final) const;

 private:
  std::string password_;
  std::string nonce_;
  std::string user_;
  std::string first_bare_;
  std::string server_signature_;  // expected, raw bytes
};

std::string Base64Encode(std::string_view bytes);
// Empty optional-like: returns false on bad input.
bool Base64Decode(std::string_view text, std::string* out);

}  // namespace sepp::session
