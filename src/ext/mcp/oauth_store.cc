#include "ext/mcp/oauth_store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <functional>

#include "base/fd.h"
#include "base/file.h"
#include "base/json.h"
#include "base/paths.h"
#include "base/secrets.h"

namespace sepp::ext::mcp {
namespace fs = std::filesystem;
namespace {

constexpr uint64_t kMaxStoreBytes = 4u << 20;

Json ReadStore() {
  std::error_code ec;
  if (!fs::exists(OAuthStorePath(), ec)) return Json::object();
  auto text = ReadBoundedFile(OAuthStorePath(), kMaxStoreBytes, "MCP OAuth tokens");
  if (!text.ok()) return Json::object();
  auto j = ParseJson(*text);
  // A damaged file costs a new authorization, nothing more.
  return j.ok() && j->is_object() ? *j : Json::object();
}

Status Update(const std::function<void(Json&)>& change) {
  fs::path path = OAuthStorePath();
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  UniqueFd lock(::open((path.string() + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  if (!lock.valid()) return Error::Make("cannot lock " + path.string() + ": " + ErrnoText(errno), "io");
  while (flock(lock.get(), LOCK_EX) != 0 && errno == EINTR) {
  }
  Json store = ReadStore();
  change(store);
  return WriteFileAtomic(path, DumpJson(store, 2) + "\n", 0600);
}

std::string S(const Json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace

fs::path OAuthStorePath() { return SeppHome() / "mcp_oauth.json"; }

std::optional<OAuthRecord> LoadOAuthRecord(const std::string& resource) {
  Json store = ReadStore();
  auto it = store.find(resource);
  if (it == store.end() || !it->is_object()) return std::nullopt;
  OAuthRecord r;
  r.issuer = S(*it, "issuer");
  r.token_endpoint = S(*it, "token_endpoint");
  r.client_id = S(*it, "client_id");
  r.client_secret = S(*it, "client_secret");
  r.auth_method = S(*it, "auth_method");
  if (r.auth_method.empty()) r.auth_method = "none";
  r.access_token = S(*it, "access_token");
  r.refresh_token = S(*it, "refresh_token");
  r.scope = S(*it, "scope");
  if (auto e = it->find("expires_at"); e != it->end() && e->is_number()) r.expires_at = e->get<double>();
  for (const auto* secret : {&r.access_token, &r.refresh_token, &r.client_secret})
    if (!secret->empty()) RegisterSecret(*secret);
  if (r.access_token.empty() && r.refresh_token.empty()) return std::nullopt;
  return r;
}

Status SaveOAuthRecord(const std::string& resource, const OAuthRecord& r) {
  return Update([&](Json& store) {
    store[resource] = {{"issuer", r.issuer},           {"token_endpoint", r.token_endpoint},
                       {"client_id", r.client_id},     {"client_secret", r.client_secret},
                       {"auth_method", r.auth_method}, {"access_token", r.access_token},
                       {"refresh_token", r.refresh_token}, {"scope", r.scope},
                       {"expires_at", r.expires_at}};
  });
}

Status ForgetOAuthRecord(const std::string& resource) {
  return Update([&](Json& store) { store.erase(resource); });
}

}  // namespace sepp::ext::mcp
