#include "tools/web_fetch.h"

#include <algorithm>

#include "base/clock.h"
#include "net/url.h"

namespace sepp::tools {

namespace {

using sandbox::Denial;
using sandbox::DenialKind;

bool IsRedirect(int status) {
  return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

}  // namespace

std::string ResolveLocation(const std::string& base, const std::string& location) {
  if (location.empty()) return "";
  auto lower = location.substr(0, 8);
  std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
  if (lower.rfind("http://", 0) == 0 || lower.rfind("https://", 0) == 0)
    return net::ParseUrl(location).ok() ? location : "";
  if (location.find("://") != std::string::npos) return "";  // another scheme
  auto b = net::ParseUrl(base);
  if (!b.ok()) return "";
  std::string origin = b->scheme + "://" + b->HostHeader();
  if (location.rfind("//", 0) == 0) return b->scheme + ":" + location;
  if (location[0] == '/') return origin + location;
  std::string path = b->target.substr(0, b->target.find('?'));
  path = path.substr(0, path.rfind('/') + 1);
  return origin + path + location;
}

WebOutcome WebSend(const WebRequest& request, const sandbox::Policy& policy, CancelToken* cancel) {
  WebOutcome outcome;
  auto first = net::ParseUrl(request.url);
  if (!first.ok()) {
    outcome.response = first.error();
    return outcome;
  }
  // The session's allowlist counts only when it has network; also_allow
  // counts always.
  std::vector<std::string> allow = request.also_allow;
  if (policy.net != sandbox::NetMode::kOff) {
    allow.insert(allow.end(), policy.allow_domains.begin(), policy.allow_domains.end());
  } else if (allow.empty()) {
    std::string text = "network access to " + first->host +
                       " denied: this session has no network (allow the domain with --allow-domain " +
                       first->host + ", or ask for it with retry_with_access)";
    outcome.denials.push_back(Denial{DenialKind::kNetwork, first->host, text});
    outcome.response = Error{text, "denied"};
    return outcome;
  }
  auto proxy = sandbox::StartLoopbackProxy(allow, request.resolve);
  if (!proxy.ok()) {
    outcome.response = proxy.error();
    return outcome;
  }
  double deadline = MonotonicSeconds() + request.timeout_s;
  WebResponse resp;
  std::string url = request.url;
  std::string method = request.method;
  std::string body = request.body;
  for (;;) {
    double left = deadline - MonotonicSeconds();
    if (left <= 0) {
      outcome.response = Error{"timed out after " + std::to_string(static_cast<int>(request.timeout_s)) +
                                   " s fetching " + url,
                               "timeout"};
      break;
    }
    net::HttpRequest r;
    r.method = method;
    r.url = url;
    r.headers = request.headers;
    r.headers.emplace_back("User-Agent", "sepp/" SEPP_VERSION " (fetch_content)");
    r.body = body;
    r.connect_timeout_s = left;
    r.read_timeout_s = left;
    r.proxy = proxy->url();
    net::HttpResponseHead head;
    std::string got;
    bool cut = false;
    net::HttpHandlers h;
    h.on_head = [&](const net::HttpResponseHead& hd) { head = hd; };
    h.on_body = [&](std::string_view chunk) {
      if (IsRedirect(head.status)) return true;
      size_t room = request.max_bytes - std::min(request.max_bytes, got.size());
      got.append(chunk.substr(0, room));
      if (chunk.size() > room) {
        cut = true;
        return false;
      }
      return true;
    };
    Status st = net::HttpSend(r, h, cancel);
    auto refused = proxy->proxy->Refusals();
    if (!refused.empty()) {
      outcome.denials = refused;
      std::string text = refused.front().text;
      if (resp.redirects > 0) text = "after " + std::to_string(resp.redirects) + " redirect(s) to " + url + ": " + text;
      outcome.response = Error{text, "denied"};
      break;
    }
    if (!st.ok()) {
      outcome.response = st.error();
      break;
    }
    if (IsRedirect(head.status) && method == "GET") {
      if (resp.redirects >= request.max_redirects) {
        outcome.response = Error{"more than " + std::to_string(request.max_redirects) +
                                     " redirects, the last to " + url,
                                 "redirects"};
        break;
      }
      std::string next = ResolveLocation(url, head.Header("location"));
      if (next.empty()) {
        outcome.response = Error{"a redirect from " + url + " to something that is not an http(s) URL ('" +
                                     head.Header("location") + "')",
                                 "redirects"};
        break;
      }
      ++resp.redirects;
      url = next;
      if (head.status == 303) body.clear();
      continue;
    }
    resp.status = head.status;
    resp.final_url = url;
    resp.content_type = head.Header("content-type");
    resp.body = std::move(got);
    resp.truncated = cut;
    outcome.response = std::move(resp);
    break;
  }
  return outcome;
}

}  // namespace sepp::tools
