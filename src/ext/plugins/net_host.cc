// sepp:net (capability_hosts.h): HTTP for a plugin through an egress proxy
// of its own, started on first use and holding exactly its net domains.

#include <algorithm>
#include <chrono>

#include "ext/plugins/abi.h"
#include "ext/plugins/capability_hosts.h"
#include "net/host_name.h"
#include "net/http_client.h"
#include "net/url.h"
#include "sandbox/proxy.h"

namespace sepp::ext::plugins {
namespace {
using wasm::HostCall;
using wasm::HostFunc;

Error Trap(std::string m) { return Error::Make(std::move(m), "trap"); }

// The proxy URL, starting the proxy on first use; "" with *why on failure.
std::string ProxyUrl(HostEnv& env, std::string* why) {
  if (env.net_proxy) return "http://127.0.0.1:" + std::to_string(env.net_proxy_port);
  auto proxy = sandbox::StartLoopbackProxy(env.granted.net);
  if (!proxy.ok()) {
    *why = proxy.error().message;
    return "";
  }
  env.net_proxy = std::move(proxy->proxy);
  env.net_proxy_port = proxy->port;
  return "http://127.0.0.1:" + std::to_string(env.net_proxy_port);
}

// The request, refused (-1), failed (-2) or done (the payload's size).
int32_t Http(HostEnv& env, const std::string& text) {
  std::string& result = env.io->result;
  auto req = ParseJson(text);
  if (!req.ok() || !req->is_object() || !req->contains("url") || !(*req)["url"].is_string()) {
    result = "sepp:net.http: the request must be a JSON object with a \"url\" string";
    return -2;
  }
  net::HttpRequest r;
  r.url = (*req)["url"].get<std::string>();
  r.method = req->value("method", std::string("GET"));
  if (auto b = req->find("body"); b != req->end() && b->is_string()) r.body = b->get<std::string>();
  if (r.body.size() > kMaxNetBytes) {
    result = "sepp:net.http: the request body is over " + std::to_string(kMaxNetBytes >> 20) + " MiB";
    return -2;
  }
  if (auto h = req->find("headers"); h != req->end() && h->is_object())
    for (const auto& [k, v] : h->items())
      if (v.is_string()) r.headers.emplace_back(k, v.get<std::string>());
  auto url = net::ParseUrl(r.url);
  if (!url.ok()) {
    result = "sepp:net.http: " + url.error().message;
    return -2;
  }
  // The grant's check before anything is resolved or sent; the proxy checks
  // again, and refuses a private or loopback destination unless exact.
  bool any = std::find(env.granted.net.begin(), env.granted.net.end(), "*") != env.granted.net.end();
  if (!any && !sandbox::DomainAllowed(env.granted.net, url->host)) {
    result = url->host + " is not among the plugin's granted net domains";
    return -1;
  }
  std::string why;
  if (!any) {
    r.proxy = ProxyUrl(env, &why);
    if (r.proxy.empty()) {
      result = "sepp:net.http: " + why;
      return -2;
    }
  } else {
    r.proxy = "direct";  // net = ["*"]: the host's network, as for a sandboxed command
  }
  double left = std::chrono::duration<double>(env.deadline - std::chrono::steady_clock::now()).count();
  r.connect_timeout_s = r.read_timeout_s = std::max(0.001, left);
  size_t refused_before = env.net_proxy ? env.net_proxy->Refusals().size() : 0;
  auto resp = net::HttpFetch(r, env.cancel, kMaxNetBytes);
  if (env.net_proxy) {
    auto refusals = env.net_proxy->Refusals();
    if (refusals.size() > refused_before) {
      result = refusals.back().text;
      return -1;
    }
  }
  if (!resp.ok()) {
    result = "sepp:net.http: " + resp.error().message;
    return -2;
  }
  Json headers = Json::object();
  for (const auto& [k, v] : resp->head.headers) headers[k] = v;
  result = DumpJson({{"status", resp->head.status}, {"headers", headers}, {"body", resp->body}});
  return static_cast<int32_t>(result.size());
}

}  // namespace

void DefineNet(wasm::Linker& linker, HostEnv* env) {
  linker.DefineFunc("sepp:net", "http", HostFunc::Make([env](HostCall& c, int32_t p, int32_t n) -> Result<int32_t> {
    if (!c.memory) return Trap("sepp:net.http: the plugin has no memory");
    if (n < 0 || static_cast<uint64_t>(n) > kMaxNetBytes + 65536)
      return Trap("sepp:net.http: bad request length " + std::to_string(n));
    auto text = c.memory->ReadString(static_cast<uint32_t>(p), static_cast<uint32_t>(n));
    if (!text.ok()) return Trap("sepp:net.http: " + text.error().message);
    return Http(*env, *text);
  }));
}

}  // namespace sepp::ext::plugins
