// libFuzzer target: the OAuth wire parsers (ext/mcp/oauth_wire.h) with what
// a hostile MCP or authorization server controls — the WWW-Authenticate
// header, URLs from metadata, the redirect's query string. They must never
// crash, hang or read out of bounds, and never return more than was given.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "ext/mcp/oauth_wire.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string in(reinterpret_cast<const char*>(data), size);
  using namespace sepp::ext::mcp;
  for (const auto& [k, v] : ParseBearerChallenge(in))
    if (k.size() > in.size() || v.size() > in.size()) std::abort();
  (void)ProtectedResourceMetadataUrls(in);
  (void)AuthorizationServerMetadataUrls(in);
  (void)UrlOrigin(in);
  (void)QueryValue(in, "code");
  (void)MergeScopes(in, in);
  std::string encoded = PercentEncode(in);
  if (QueryValue("x=" + encoded, "x") != in) std::abort();  // round trip
  return 0;
}
