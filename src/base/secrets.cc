#include "base/secrets.h"

#include <algorithm>
#include <mutex>
#include <shared_mutex>
#include <vector>

#include "base/strings.h"

extern char** environ;

namespace sepp {
namespace {

std::shared_mutex g_mu;
std::vector<std::string>& Secrets() {
  static std::vector<std::string> s;
  return s;
}

}  // namespace

bool IsSecretEnvName(std::string_view name) {
  std::string n = ToLower(name);
  static const char* exact[] = {"github_token", "gh_token", "npm_token", "hf_token",
                                "openai_base_url_key", "database_url", "sepp_api_key"};
  for (const char* e : exact)
    if (n == e) return true;
  static const char* prefixes[] = {"aws_", "azure_", "gcp_", "google_application_credentials"};
  for (const char* p : prefixes)
    if (StartsWith(n, p)) return true;
  static const char* parts[] = {"api_key", "apikey", "token", "secret", "password", "passwd",
                                "credential", "private_key", "auth"};
  for (const char* p : parts)
    if (n.find(p) != std::string::npos) return true;
  return false;
}

void RegisterSecretsFromEnvironment() {
  for (char** e = environ; e && *e; ++e) {
    std::string_view kv(*e);
    size_t eq = kv.find('=');
    if (eq == std::string_view::npos) continue;
    if (IsSecretEnvName(kv.substr(0, eq))) RegisterSecret(std::string(kv.substr(eq + 1)));
  }
}

void RegisterSecret(std::string value) {
  if (value.size() < 8) return;
  std::unique_lock lock(g_mu);
  auto& s = Secrets();
  if (std::find(s.begin(), s.end(), value) != s.end()) return;
  s.push_back(std::move(value));
  // Longest first, so a secret that contains another is removed whole.
  std::sort(s.begin(), s.end(), [](auto& a, auto& b) { return a.size() > b.size(); });
}

std::string Redact(std::string_view text) {
  std::shared_lock lock(g_mu);
  std::string out(text);
  for (const auto& s : Secrets()) out = ReplaceAll(std::move(out), s, "[REDACTED]");
  return out;
}

bool ContainsSecret(std::string_view text) {
  std::shared_lock lock(g_mu);
  for (const auto& s : Secrets())
    if (text.find(s) != std::string_view::npos) return true;
  return false;
}

std::vector<std::string> RegisteredSecrets() {
  std::shared_lock lock(g_mu);
  return Secrets();
}

Json RedactJson(const Json& value) {
  switch (value.type()) {
    case Json::value_t::string: return Redact(value.get_ref<const std::string&>());
    case Json::value_t::array: {
      Json out = Json::array();
      for (const auto& v : value) out.push_back(RedactJson(v));
      return out;
    }
    case Json::value_t::object: {
      Json out = Json::object();
      for (const auto& [k, v] : value.items()) out[Redact(k)] = RedactJson(v);
      return out;
    }
    default: return value;
  }
}

}  // namespace sepp
