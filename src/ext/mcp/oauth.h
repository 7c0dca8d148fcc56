// OAuthClient: authorization for one remote (Streamable HTTP) MCP server,
// as the MCP spec 2025-11-25 (basic/authorization) requires of a client.
//
// When the server answers 401 (or 403 with error="insufficient_scope"),
// HttpTransport hands the WWW-Authenticate challenge here, and this:
//   1. finds the protected resource's metadata (RFC 9728): the challenge's
//      resource_metadata, else the well-known locations; the resource it
//      names must be this server (else sepp refuses: a token for another
//      resource would be handed to this one);
//   2. finds its authorization server's metadata (RFC 8414, OIDC
//      discovery; the 2025-03-26 fallbacks /authorize, /token, /register at
//      the server's origin when there is none);
//   3. identifies sepp: a pre-registered client id (configuration), a
//      client ID metadata document URL when the server supports those and
//      one is configured, else dynamic client registration (RFC 7591);
//   4. sends the user to the authorization endpoint with PKCE S256, a
//      random state and the resource indicator (RFC 8707), and takes the
//      redirect on a loopback port (http://127.0.0.1:PORT/callback): the URL
//      is printed, and opened with $BROWSER when set (a headless test sets
//      BROWSER to a program that follows the redirect, e.g. curl -L);
//   5. exchanges the code for tokens (client_secret_basic, _post or none,
//      as the server supports) and stores them 0600 (oauth_store.h).
// Later: an expired token is refreshed before a request, a 401 tries the
// refresh token before asking the user again, and a 403 insufficient_scope
// asks again with the union of the scopes — only when the challenge names a
// scope not asked for yet, at most three times (no endless loop).
//
// Tokens never appear in messages or logs (they are registered secrets).
#pragma once
#include <atomic>
#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include "base/cancel.h"
#include "base/result.h"
#include "ext/mcp/oauth_store.h"

namespace sepp::ext::mcp {

struct OAuthOptions {
  std::string server_name;                // for messages
  std::string client_id, client_secret;   // pre-registered (the secret from the environment)
  std::string client_metadata_url;        // sepp's client ID metadata document (https URL)
  double authorize_timeout_s = 300;       // for the user's sign-in
  // Shows the user the URL to open. Unset: stderr, and $BROWSER URL when set.
  std::function<void(const std::string& url)> on_authorize;
};

class OAuthClient {
 public:
  OAuthClient(std::string server_url, OAuthOptions options);

  // "Bearer TOKEN" for the next request (an expired token refreshed
  // first), or "" when sepp has none for this server yet.
  std::string Authorization(CancelToken* cancel);

  // After a 401/403 with this WWW-Authenticate header; `used` is the
  // Authorization value the refused request carried. Ok: retry the request.
  Status OnChallenge(int status, const std::string& www_authenticate, const std::string& used,
                     CancelToken* cancel);

  // True while the user is being asked to sign in (the client's request
  // timeouts wait for that).
  bool awaiting_user() const { return awaiting_user_; }

 private:
  Status Refresh(CancelToken* cancel);
  Status Authorize(const std::string& www_authenticate, const std::string& scope, CancelToken* cancel);

  const std::string server_url_, resource_;
  const OAuthOptions options_;
  std::mutex mu_;  // one flow at a time
  std::optional<OAuthRecord> record_;
  std::string asked_scope_;  // every scope asked for so far
  int step_ups_ = 0;
  std::atomic<bool> awaiting_user_{false};
};

}  // namespace sepp::ext::mcp
