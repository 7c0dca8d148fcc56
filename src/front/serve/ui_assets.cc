#include "front/serve/ui_assets.h"

#include "base/strings.h"

namespace sepp::front::serve {

const UiFile* FindUiFile(std::string_view name) {
  if (name.empty()) name = "index.html";
  for (const auto& f : UiFiles())
    if (name == f.name) return &f;
  return nullptr;
}

std::string UiContentType(std::string_view name) {
  if (EndsWith(name, ".html")) return "text/html; charset=utf-8";
  if (EndsWith(name, ".js")) return "text/javascript; charset=utf-8";
  if (EndsWith(name, ".css")) return "text/css; charset=utf-8";
  if (EndsWith(name, ".svg")) return "image/svg+xml";
  return "application/octet-stream";
}

net::Headers UiHeaders(std::string_view name) {
  // No inline script or style, nothing from another origin: a message or a
  // tool output that smuggled markup into the page still could not run it
  // or send anything anywhere but this server.
  return {{"Content-Type", UiContentType(name)},
          {"Content-Security-Policy",
           "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
           "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"},
          {"X-Content-Type-Options", "nosniff"},
          {"X-Frame-Options", "DENY"},
          // The token travels in the URL fragment, which is never sent; no
          // referrer either, in case a link is followed from the page.
          {"Referrer-Policy", "no-referrer"},
          {"Cache-Control", "no-cache"}};
}

}  // namespace sepp::front::serve
