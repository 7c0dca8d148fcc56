// The OAuth tokens sepp holds for remote MCP servers: $SEPP_HOME/mcp_oauth.json,
// mode 0600 (the sandbox masks SEPP_HOME, so no command or server can read
// it), one record per resource (the server's canonical URL). Written under a
// lock, read-modify-write, so two sepp processes do not lose each other's
// tokens. Access and refresh tokens are registered as secrets when loaded,
// so the redactor keeps them out of logs and session files.
#pragma once
#include <filesystem>
#include <optional>
#include <string>

#include "base/result.h"

namespace sepp::ext::mcp {

struct OAuthRecord {
  std::string issuer, token_endpoint;
  std::string client_id, client_secret;  // the secret only when the AS issued one (registration)
  std::string auth_method = "none";      // none | client_secret_basic | client_secret_post
  std::string access_token, refresh_token, scope;
  double expires_at = 0;  // unix seconds; 0 = not said
};

std::filesystem::path OAuthStorePath();
std::optional<OAuthRecord> LoadOAuthRecord(const std::string& resource);
Status SaveOAuthRecord(const std::string& resource, const OAuthRecord& record);
Status ForgetOAuthRecord(const std::string& resource);

}  // namespace sepp::ext::mcp
