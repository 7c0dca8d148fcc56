#include "ext/mcp/oauth.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <thread>
#include <vector>

#include "base/json.h"
#include "base/secrets.h"
#include "base/strings.h"
#include "ext/mcp/oauth_wire.h"
#include "net/http_client.h"
#include "net/http_server.h"

extern char** environ;

namespace sepp::ext::mcp {
namespace {

using Fields = std::vector<std::pair<std::string, std::string>>;

double Now() { return static_cast<double>(std::time(nullptr)); }

std::string Str(const Json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

std::vector<std::string> Strings(const Json& j, const char* key) {
  std::vector<std::string> out;
  auto it = j.find(key);
  if (it == j.end() || !it->is_array()) return out;
  for (const auto& v : *it)
    if (v.is_string()) out.push_back(v.get<std::string>());
  return out;
}

bool Has(const std::vector<std::string>& list, const std::string& v) {
  return std::find(list.begin(), list.end(), v) != list.end();
}

// GET a metadata document: a JSON object on 200, else an error saying what came.
Result<Json> FetchJson(const std::string& url, CancelToken* cancel) {
  net::HttpRequest req;
  req.method = "GET";
  req.url = url;
  req.headers = {{"Accept", "application/json"}};
  req.connect_timeout_s = 10;
  req.read_timeout_s = 30;
  auto r = net::HttpFetch(req, cancel, 1u << 20);
  if (!r.ok()) return r.error();
  if (r->head.status != 200)
    return Error::Make(url + " answered HTTP " + std::to_string(r->head.status), "oauth");
  auto j = ParseJson(r->body);
  if (!j.ok() || !j->is_object()) return Error::Make(url + " is not a JSON object", "oauth");
  return *j;
}

// POST a form or JSON body; the JSON object answered, or an error with the
// server's error and error_description (redacted).
Result<Json> PostFor(const std::string& url, const std::string& content_type, const std::string& body,
                     net::Headers headers, const char* what, CancelToken* cancel) {
  net::HttpRequest req;
  req.method = "POST";
  req.url = url;
  req.headers = std::move(headers);
  req.headers.emplace_back("Content-Type", content_type);
  req.headers.emplace_back("Accept", "application/json");
  req.body = body;
  req.connect_timeout_s = 10;
  req.read_timeout_s = 30;
  auto r = net::HttpFetch(req, cancel, 1u << 20);
  if (!r.ok()) return Error::Make(std::string(what) + " at " + url + " failed: " + r.error().message, "oauth");
  auto j = ParseJson(r->body);
  if (r->head.status / 100 != 2) {
    std::string why = j.ok() && j->is_object() ? Str(*j, "error") : "";
    std::string desc = j.ok() && j->is_object() ? Str(*j, "error_description") : "";
    return Error::Make(std::string(what) + " at " + url + " was refused (HTTP " +
                           std::to_string(r->head.status) + (why.empty() ? "" : ", " + Redact(why)) +
                           (desc.empty() ? "" : ": " + Redact(desc)) + ")",
                       "oauth");
  }
  if (!j.ok() || !j->is_object())
    return Error::Make(std::string(what) + " at " + url + " answered something that is not a JSON object",
                       "oauth");
  return *j;
}

// The environment for the browser: sepp's own minus anything secret-looking.
std::vector<std::string> BrowserEnvironment() {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    std::string_view kv(*e);
    if (!IsSecretEnvName(kv.substr(0, kv.find('=')))) env.emplace_back(kv);
  }
  return env;
}

// $BROWSER URL (through sh, as BROWSER may carry arguments); reaped on a
// thread of its own, so a browser that stays open holds nothing up.
void OpenBrowser(const std::string& url) {
  const char* browser = getenv("BROWSER");
  if (!browser || !*browser) return;
  std::string script = std::string(browser) + " \"$1\"";
  std::vector<std::string> env = BrowserEnvironment();
  std::vector<char*> envp;
  for (auto& s : env) envp.push_back(s.data());
  envp.push_back(nullptr);
  const char* argv[] = {"sh", "-c", script.c_str(), "sh", url.c_str(), nullptr};
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, "/bin/sh", &fa, nullptr, const_cast<char**>(argv), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return;
  std::thread([pid] {
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }).detach();
}

void DefaultOnAuthorize(const std::string& server, const std::string& url) {
  std::fprintf(stderr, "sepp: the MCP server %s needs you to sign in; open this URL in a browser:\n  %s\n",
               server.c_str(), url.c_str());
  OpenBrowser(url);
}

struct AuthServer {
  std::string issuer, authorization_endpoint, token_endpoint, registration_endpoint;
  std::vector<std::string> auth_methods;  // token_endpoint_auth_methods_supported
  bool cimd = false;                      // client_id_metadata_document_supported
};

// The redirect, taken on a loopback port.
class Callback {
 public:
  explicit Callback(std::string state)
      : state_(std::move(state)),
        server_([this](const net::HttpServerRequest& r, net::ResponseWriter& w) { Handle(r, w); }) {}
  Status Start() { return server_.Start(); }
  std::string redirect_uri() const { return "http://127.0.0.1:" + std::to_string(server_.port()) + "/callback"; }
  // The code, or an error (the server's, a timeout, cancel).
  Result<std::string> Wait(double timeout_s, CancelToken* cancel) {
    bool cancelled = false;
    std::unique_ptr<CancelToken::Registration> reg;  // before the lock: it may run at once
    if (cancel)
      reg = cancel->OnCancel([&] {
        std::lock_guard l(mu_);
        cancelled = true;
        cv_.notify_all();
      });
    std::unique_lock lock(mu_);
    bool got = cv_.wait_for(lock, std::chrono::duration<double>(timeout_s), [&] { return done_ || cancelled; });
    if (cancelled && !done_) return Error::Make("the sign-in was cancelled", "cancelled");
    if (!got) return Error::Make("no sign-in arrived within " + std::to_string(int(timeout_s)) + " s", "timeout");
    if (!error_.empty()) return Error::Make(error_, "oauth");
    return code_;
  }

 private:
  void Handle(const net::HttpServerRequest& r, net::ResponseWriter& w) {
    std::string query = r.target.find('?') == std::string::npos ? "" : r.target.substr(r.target.find('?') + 1);
    if (r.Path() != "/callback" || QueryValue(query, "state") != state_) {
      // Not our redirect (a wrong state is a forged or stale one): ignored.
      w.Send(400, {{"Content-Type", "text/plain"}}, "not a sign-in sepp is waiting for\n");
      return;
    }
    std::lock_guard lock(mu_);
    if (!done_) {
      done_ = true;
      code_ = QueryValue(query, "code");
      std::string err = QueryValue(query, "error");
      if (!err.empty())
        error_ = "the authorization server refused the sign-in: " + Redact(err) +
                 (QueryValue(query, "error_description").empty()
                      ? ""
                      : ": " + Redact(QueryValue(query, "error_description")));
      else if (code_.empty())
        error_ = "the authorization server's redirect carried no code";
      cv_.notify_all();
    }
    w.Send(200, {{"Content-Type", "text/plain; charset=utf-8"}},
           error_.empty() ? "sepp has the sign-in; you can close this tab.\n" : "sign-in failed: " + error_ + "\n");
  }

  const std::string state_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::string code_, error_;
  net::HttpServer server_;
};

// Client authentication at the token endpoint.
void AddClientAuth(const OAuthRecord& r, Fields& form, net::Headers& headers) {
  if (r.auth_method == "client_secret_basic") {
    headers.emplace_back("Authorization",
                         "Basic " + Base64(PercentEncode(r.client_id) + ":" + PercentEncode(r.client_secret)));
  } else {
    form.emplace_back("client_id", r.client_id);
    if (r.auth_method == "client_secret_post") form.emplace_back("client_secret", r.client_secret);
  }
}

Status TakeTokens(const Json& j, OAuthRecord& r) {
  std::string token = Str(j, "access_token");
  if (token.empty()) return Error::Make("the token endpoint answered without an access_token", "oauth");
  std::string type = ToLower(Str(j, "token_type"));
  if (!type.empty() && type != "bearer")
    return Error::Make("the token endpoint issued a " + Redact(type) + " token; sepp uses Bearer tokens", "oauth");
  RegisterSecret(token);
  r.access_token = token;
  if (auto rt = Str(j, "refresh_token"); !rt.empty()) {
    RegisterSecret(rt);
    r.refresh_token = rt;
  }
  if (auto s = Str(j, "scope"); !s.empty()) r.scope = s;
  r.expires_at = 0;
  if (auto e = j.find("expires_in"); e != j.end() && e->is_number() && e->get<double>() > 0)
    r.expires_at = Now() + e->get<double>();
  return Ok();
}

}  // namespace

OAuthClient::OAuthClient(std::string server_url, OAuthOptions options)
    : server_url_(std::move(server_url)),
      resource_(CanonicalResource(server_url_)),
      options_(std::move(options)),
      record_(LoadOAuthRecord(resource_)) {}

std::string OAuthClient::Authorization(CancelToken* cancel) {
  std::lock_guard lock(mu_);
  if (!record_ || record_->access_token.empty()) return "";
  if (record_->expires_at > 0 && Now() > record_->expires_at - 30 && !record_->refresh_token.empty())
    (void)Refresh(cancel);  // failing: the old token gets its 401 and the full flow
  return record_ && !record_->access_token.empty() ? "Bearer " + record_->access_token : "";
}

Status OAuthClient::Refresh(CancelToken* cancel) {
  OAuthRecord r = *record_;
  Fields form = {{"grant_type", "refresh_token"}, {"refresh_token", r.refresh_token}, {"resource", resource_}};
  net::Headers headers;
  AddClientAuth(r, form, headers);
  auto j = PostFor(r.token_endpoint, "application/x-www-form-urlencoded", FormEncode(form), headers,
                   "refreshing the token", cancel);
  if (!j.ok()) return j.error();
  if (auto st = TakeTokens(*j, r); !st.ok()) return st;
  record_ = r;
  return SaveOAuthRecord(resource_, r);
}

Status OAuthClient::OnChallenge(int status, const std::string& www_authenticate, const std::string& used,
                                CancelToken* cancel) {
  std::lock_guard lock(mu_);
  std::string current = record_ && !record_->access_token.empty() ? "Bearer " + record_->access_token : "";
  if (current != used) return Ok();  // another request got a new token meanwhile
  auto challenge = ParseBearerChallenge(www_authenticate);
  std::string want = challenge.count("scope") ? challenge["scope"] : "";
  const std::string name = options_.server_name.empty() ? server_url_ : options_.server_name;
  if (status == 403) {
    if (challenge["error"] != "insufficient_scope")
      return Error::Make("the MCP server " + name + " refused the request (HTTP 403" +
                             (challenge["error"].empty() ? "" : ", " + Redact(challenge["error"])) + ")",
                         "oauth");
    // Step-up: only for a scope not asked for yet; asking again for the
    // same scopes would get the same answer, forever.
    bool new_scope = false;
    for (const auto& s : Split(want, ' '))
      if (!s.empty() && !Has(Split(asked_scope_, ' '), s)) new_scope = true;
    if (!new_scope || step_ups_ >= 3)
      return Error::Make("the MCP server " + name + " needs scope \"" + Redact(want) +
                             "\", which the authorization sepp got does not grant (asked for \"" +
                             Redact(asked_scope_) + "\")",
                         "oauth");
    ++step_ups_;
    return Authorize(www_authenticate, MergeScopes(asked_scope_, want), cancel);
  }
  if (record_ && !record_->refresh_token.empty() && !used.empty() && Refresh(cancel).ok()) return Ok();
  return Authorize(www_authenticate, want, cancel);
}

Status OAuthClient::Authorize(const std::string& www_authenticate, const std::string& challenge_scope,
                              CancelToken* cancel) {
  const std::string name = options_.server_name.empty() ? server_url_ : options_.server_name;
  auto fail = [&](const std::string& what) {
    return Error::Make("authorizing sepp for the MCP server " + name + ": " + what, "oauth");
  };
  auto challenge = ParseBearerChallenge(www_authenticate);

  // 1. The protected resource's metadata (RFC 9728).
  std::vector<std::string> prm_urls;
  if (!challenge["resource_metadata"].empty()) prm_urls.push_back(challenge["resource_metadata"]);
  for (auto& u : ProtectedResourceMetadataUrls(server_url_))
    if (!Has(prm_urls, u)) prm_urls.push_back(u);
  std::optional<Json> prm;
  for (const auto& u : prm_urls) {
    if (UrlOrigin(u).empty()) continue;
    auto j = FetchJson(u, cancel);
    if (j.ok() && !Strings(*j, "authorization_servers").empty()) {
      prm = *j;
      break;
    }
  }
  std::string resource = resource_, issuer = UrlOrigin(server_url_);
  std::string scope = challenge_scope;
  if (prm) {
    if (std::string named = Str(*prm, "resource"); !named.empty()) {
      // The metadata must describe this server: its resource is the
      // server's URL or a prefix of it on the same origin.
      if (UrlOrigin(named) != UrlOrigin(server_url_) || !StartsWith(resource_, CanonicalResource(named)))
        return fail("its protected resource metadata names another resource (" + named + ", not " +
                    resource_ + "); sepp does not send a token for one resource to another");
      resource = CanonicalResource(named);
    }
    issuer = Strings(*prm, "authorization_servers").front();
    if (scope.empty()) scope = Join(Strings(*prm, "scopes_supported"), " ");
  }

  // 2. The authorization server's metadata (RFC 8414, OIDC discovery).
  AuthServer as;
  std::optional<Json> meta;
  for (const auto& u : AuthorizationServerMetadataUrls(issuer)) {
    auto j = FetchJson(u, cancel);
    if (j.ok() && !Str(*j, "authorization_endpoint").empty() && !Str(*j, "token_endpoint").empty()) {
      meta = *j;
      break;
    }
  }
  if (meta) {
    as.issuer = Str(*meta, "issuer").empty() ? issuer : Str(*meta, "issuer");
    as.authorization_endpoint = Str(*meta, "authorization_endpoint");
    as.token_endpoint = Str(*meta, "token_endpoint");
    as.registration_endpoint = Str(*meta, "registration_endpoint");
    as.auth_methods = Strings(*meta, "token_endpoint_auth_methods_supported");
    if (as.auth_methods.empty()) as.auth_methods = {"client_secret_basic"};  // RFC 8414's default
    auto cimd = meta->find("client_id_metadata_document_supported");
    as.cimd = cimd != meta->end() && cimd->is_boolean() && cimd->get<bool>();
    if (!Has(Strings(*meta, "code_challenge_methods_supported"), "S256"))
      return fail("its authorization server (" + as.issuer +
                  ") does not offer PKCE with S256, which MCP requires; sepp does not sign in without it");
  } else {
    // 2025-03-26: no metadata, the default endpoints at the origin.
    std::string origin = UrlOrigin(issuer);
    if (origin.empty()) return fail("its authorization server URL " + issuer + " is not an http(s) URL");
    as.issuer = origin;
    as.authorization_endpoint = origin + "/authorize";
    as.token_endpoint = origin + "/token";
    as.registration_endpoint = origin + "/register";
    as.auth_methods = {"client_secret_basic", "client_secret_post", "none"};
  }
  for (const auto* u : {&as.authorization_endpoint, &as.token_endpoint})
    if (UrlOrigin(*u).empty()) return fail("its authorization server gave an endpoint that is not an http(s) URL");

  std::string state = Base64Url(RandomBytes(16));
  Callback callback(state);
  if (auto st = callback.Start(); !st.ok()) return fail("no loopback port for the redirect: " + st.error().message);
  const std::string redirect = callback.redirect_uri();

  // 3. Who sepp is to this authorization server.
  OAuthRecord rec;
  rec.issuer = as.issuer;
  rec.token_endpoint = as.token_endpoint;
  if (!options_.client_id.empty()) {
    rec.client_id = options_.client_id;
    rec.client_secret = options_.client_secret;
    rec.auth_method = rec.client_secret.empty()                         ? "none"
                      : Has(as.auth_methods, "client_secret_basic")     ? "client_secret_basic"
                      : Has(as.auth_methods, "client_secret_post")      ? "client_secret_post"
                                                                        : "client_secret_basic";
  } else if (as.cimd && !options_.client_metadata_url.empty()) {
    rec.client_id = options_.client_metadata_url;
    rec.auth_method = "none";
  } else if (!as.registration_endpoint.empty()) {
    std::string method = Has(as.auth_methods, "none")                  ? "none"
                         : Has(as.auth_methods, "client_secret_basic") ? "client_secret_basic"
                                                                       : "client_secret_post";
    Json body = {{"client_name", "sepp"},
                 {"redirect_uris", Json::array({redirect})},
                 {"grant_types", Json::array({"authorization_code", "refresh_token"})},
                 {"response_types", Json::array({"code"})},
                 {"token_endpoint_auth_method", method}};
    auto reg = PostFor(as.registration_endpoint, "application/json", DumpJson(body), {},
                       "registering sepp as a client", cancel);
    if (!reg.ok()) return fail(reg.error().message);
    rec.client_id = Str(*reg, "client_id");
    if (rec.client_id.empty()) return fail("the client registration answered without a client_id");
    rec.client_secret = Str(*reg, "client_secret");
    if (!rec.client_secret.empty()) RegisterSecret(rec.client_secret);
    std::string granted = Str(*reg, "token_endpoint_auth_method");
    rec.auth_method = !granted.empty() ? granted : rec.client_secret.empty() ? "none" : method;
  } else {
    return fail("its authorization server (" + as.issuer +
                ") offers no client registration; set oauth_client_id (and oauth_client_secret_env_var) "
                "for the server in mcp.toml");
  }

  // 4. The user's sign-in, with PKCE.
  std::string verifier = MakeCodeVerifier();
  Fields query = {{"response_type", "code"},
                  {"client_id", rec.client_id},
                  {"redirect_uri", redirect},
                  {"code_challenge", CodeChallengeS256(verifier)},
                  {"code_challenge_method", "S256"},
                  {"state", state},
                  {"resource", resource}};
  if (!scope.empty()) query.emplace_back("scope", scope);
  std::string url = as.authorization_endpoint +
                    (as.authorization_endpoint.find('?') == std::string::npos ? "?" : "&") + FormEncode(query);
  awaiting_user_ = true;
  if (options_.on_authorize)
    options_.on_authorize(url);
  else
    DefaultOnAuthorize(name, url);
  auto code = callback.Wait(options_.authorize_timeout_s, cancel);
  awaiting_user_ = false;
  if (!code.ok()) return fail(code.error().message);

  // 5. The tokens.
  Fields form = {{"grant_type", "authorization_code"}, {"code", *code}, {"redirect_uri", redirect},
                 {"code_verifier", verifier}, {"resource", resource}};
  net::Headers headers;
  AddClientAuth(rec, form, headers);
  auto tokens = PostFor(as.token_endpoint, "application/x-www-form-urlencoded", FormEncode(form), headers,
                        "exchanging the authorization code", cancel);
  if (!tokens.ok()) return fail(tokens.error().message);
  if (auto st = TakeTokens(*tokens, rec); !st.ok()) return fail(st.error().message);
  if (rec.scope.empty()) rec.scope = scope;
  asked_scope_ = MergeScopes(asked_scope_, scope);
  record_ = rec;
  if (auto st = SaveOAuthRecord(resource_, rec); !st.ok())
    std::fprintf(stderr, "sepp: the token for %s is not kept for the next run: %s\n", name.c_str(),
                 st.error().message.c_str());
  return Ok();
}

}  // namespace sepp::ext::mcp
