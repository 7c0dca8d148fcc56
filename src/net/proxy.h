// Which proxy, if any, a request goes through.
//
// From the environment, as curl and Go do: https URLs use HTTPS_PROXY,
// http URLs HTTP_PROXY (lower-case names win over upper-case), ALL_PROXY as
// the fallback for both; NO_PROXY lists exceptions. Like Go, loopback
// targets (localhost, 127.0.0.0/8, ::1) never go through an environment
// proxy, so a local fake provider works inside a proxied sandbox.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "net/url.h"

namespace sepp::net {

using GetEnv = std::function<const char*(const char*)>;

// The proxy for `target`, or nullopt for a direct connection. A proxy value
// without a scheme means http://. Errors (kind "proxy") for unusable values;
// the message names the variable, never its credentials.
Result<std::optional<Url>> ProxyFromEnvironment(const Url& target, const GetEnv& getenv);

// NO_PROXY matching: comma- or space-separated entries; "*" matches all;
// "example.com" and ".example.com" match the domain and its subdomains;
// "host:port" matches only that port; IP literals match exactly.
bool NoProxyMatches(std::string_view no_proxy, const Url& target);

// "Basic base64(user:pass)" from a proxy URL's percent-encoded userinfo.
std::string BasicAuthorization(std::string_view userinfo);

}  // namespace sepp::net
