// HTTP GET and POST for the web tools (fetch_content, web_search), through
// sepp's egress proxy with the session policy's domain allowlist: the same
// code and the same rules that decide what a sandboxed command may reach
// (sandbox/proxy.h). A host off the allowlist is refused; a name that
// resolves to this machine or a private network is refused unless the
// allowlist names it exactly; every redirect is a new request through the
// proxy, checked again. The proxy resolves and connects itself, so the
// check and the connection cannot disagree about the address (no DNS
// rebinding between them).
//
// A session without network (the default) reaches nothing: the refusal is a
// typed network denial naming the host, so the permission gate can offer to
// allow that domain (retry_with_access), as for a sandboxed command.
#pragma once
#include <string>
#include <vector>

#include "base/cancel.h"
#include "base/result.h"
#include "net/http_client.h"
#include "sandbox/denial.h"
#include "sandbox/policy.h"
#include "sandbox/proxy.h"

namespace sepp::tools {

struct WebRequest {
  std::string method = "GET";
  std::string url;
  net::Headers headers;
  std::string body;
  size_t max_bytes = 5u << 20;  // the body is cut there (truncated = true)
  double timeout_s = 30;        // the whole exchange, redirects included
  int max_redirects = 5;        // GET only; a POST never follows one
  // Hosts allowed beside the policy's for this request only (web_search's
  // configured provider: the user named it by configuring it).
  std::vector<std::string> also_allow;
  sandbox::Resolver resolve;    // tests: stand-in DNS; null = the system's
};

struct WebResponse {
  int status = 0;
  std::string final_url;
  std::string content_type;
  std::string body;
  bool truncated = false;
  int redirects = 0;
};

struct WebOutcome {
  Result<WebResponse> response = Error{"not run", "other"};
  std::vector<sandbox::Denial> denials;  // what the proxy or the policy refused
};

WebOutcome WebSend(const WebRequest& request, const sandbox::Policy& policy, CancelToken* cancel);

// `location` (a Location header) against `base`: absolute, scheme-relative,
// absolute-path or relative. "" when it cannot be made an http(s) URL.
std::string ResolveLocation(const std::string& base, const std::string& location);

}  // namespace sepp::tools
