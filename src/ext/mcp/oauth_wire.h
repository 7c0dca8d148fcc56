// The wire pieces of OAuth 2.1 for MCP clients, without I/O: parsing a
// server's WWW-Authenticate challenge (RFC 6750 / RFC 9728), the well-known
// metadata locations to try (RFC 9728 §3, RFC 8414 §3, OIDC discovery, in
// the order the MCP spec 2025-11-25 gives), PKCE S256 (RFC 7636), and the
// encodings the requests need. Everything parsed here is outside input: the
// parsers take any bytes and never throw.
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace sepp::ext::mcp {

// One "Bearer" challenge's parameters (names lower-cased), e.g.
// resource_metadata, scope, error, error_description. Empty when the header
// has no Bearer challenge. Quoted strings are unescaped; other schemes in
// the same header are skipped.
std::map<std::string, std::string> ParseBearerChallenge(std::string_view header);

// Where to look for a protected resource's metadata, first to last: the
// path-aware location, then the root one. server_url is the MCP endpoint.
std::vector<std::string> ProtectedResourceMetadataUrls(const std::string& server_url);

// Where to look for an authorization server's metadata, first to last.
// issuer "https://as/tenant1": /.well-known/oauth-authorization-server/tenant1,
// /.well-known/openid-configuration/tenant1, /tenant1/.well-known/openid-configuration;
// without a path: /.well-known/oauth-authorization-server, /.well-known/openid-configuration.
std::vector<std::string> AuthorizationServerMetadataUrls(const std::string& issuer);

// "scheme://host[:port]" of an http(s) URL; empty when it is not one.
std::string UrlOrigin(const std::string& url);
// The URL without a fragment: the resource indicator (RFC 8707) of a server.
std::string CanonicalResource(const std::string& url);

// RFC 3986 unreserved characters kept, everything else %XX.
std::string PercentEncode(std::string_view text);
// application/x-www-form-urlencoded body or query from pairs, in order.
std::string FormEncode(const std::vector<std::pair<std::string, std::string>>& fields);
// The value of name in a query string ("a=1&b=2"), decoded; empty if absent.
std::string QueryValue(std::string_view query, std::string_view name);

std::string Base64(std::string_view bytes);
std::string Base64Url(std::string_view bytes);  // no padding

// n bytes from the kernel's CSPRNG (getrandom).
std::string RandomBytes(size_t n);
// A PKCE code verifier (43 unreserved characters, 256 bits) and its S256 challenge.
std::string MakeCodeVerifier();
std::string CodeChallengeS256(std::string_view verifier);

// The union of two space-separated scope lists, in first-seen order.
std::string MergeScopes(std::string_view a, std::string_view b);

}  // namespace sepp::ext::mcp
