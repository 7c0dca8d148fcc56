#include "sandbox/denial.h"

#include <array>
#include <utility>

namespace sepp::sandbox {
namespace {

constexpr std::array<std::pair<DenialKind, std::string_view>, 9> kNames{{
    {DenialKind::kNetwork, "network"},
    {DenialKind::kRead, "read"},
    {DenialKind::kWrite, "write"},
    {DenialKind::kProtected, "protected"},
    {DenialKind::kSecret, "secret"},
    {DenialKind::kProcessLimit, "process_limit"},
    {DenialKind::kTimeLimit, "time_limit"},
    {DenialKind::kPermission, "permission"},
    {DenialKind::kOther, "other"},
}};

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// The words between `prefix` (at the start) and the first `marker` after
// it: "writing <X> is not allowed:". Nothing when the shape does not match.
bool Between(std::string_view text, std::string_view prefix, std::string_view marker,
             std::string* out) {
  if (!StartsWith(text, prefix)) return false;
  size_t at = text.find(marker, prefix.size());
  if (at == std::string_view::npos) return false;
  *out = std::string(text.substr(prefix.size(), at - prefix.size()));
  return true;
}

// "<X><marker>": the words before the first marker, for texts that start
// with the path (PathGuard's "<path> is protected: ...").
bool Before(std::string_view text, std::string_view marker, std::string* out) {
  size_t at = text.find(marker);
  if (at == std::string_view::npos || at == 0) return false;
  *out = std::string(text.substr(0, at));
  return true;
}

}  // namespace

std::string_view DenialKindName(DenialKind kind) {
  for (const auto& [k, n] : kNames)
    if (k == kind) return n;
  return "other";
}

DenialKind DenialKindFromName(std::string_view name) {
  for (const auto& [k, n] : kNames)
    if (n == name) return k;
  return DenialKind::kOther;
}

// One entry per text the producers write (denials.cc, proxy.cc,
// git_control.cc, tools/access.cc); tests/sandbox/denial_test.cc holds
// each of them, so a reworded producer fails there, not silently here.
Denial ClassifyDenial(std::string_view text) {
  Denial d;
  d.text = std::string(text);
  std::string t;
  auto is = [&](DenialKind k, std::string target = {}) {
    d.kind = k;
    d.target = std::move(target);
    return d;
  };
  // sandbox/denials.cc: after a sandboxed command.
  if (StartsWith(text, "the command was stopped after ")) return is(DenialKind::kTimeLimit);
  if (StartsWith(text, "the sandbox refused to start more processes"))
    return is(DenialKind::kProcessLimit);
  if (Between(text, "writing ", " is not allowed: ", &t))
    return is(DenialKind::kWrite, t == "there" ? "" : t);
  if (Between(text, "reading ", " is not allowed: ", &t)) return is(DenialKind::kSecret, t);
  if (Between(text, "access to ", " is denied: it is a secret location", &t))
    return is(DenialKind::kSecret, t);  // tools/access.cc
  if (Between(text, "access to ", " was refused: it is outside", &t))
    return is(DenialKind::kRead, t == "a path" ? "" : t);
  if (StartsWith(text, "network access is off") ||
      StartsWith(text, "direct network access is blocked") ||
      StartsWith(text, "the sandbox's proxy refused a host") ||
      StartsWith(text, "the sandbox's proxy refused a request"))
    return is(DenialKind::kNetwork);
  // sandbox/proxy.cc: "the sandbox's proxy refused <host>: <why>".
  if (Between(text, "the sandbox's proxy refused ", ": ", &t)) return is(DenialKind::kNetwork, t);
  // sandbox/git_control.cc: a planted git control file, removed.
  if (Between(text, "the command created ", ", through which git would", &t))
    return is(DenialKind::kProtected, t);
  // tools/access.cc (PathGuard): texts that start with the path.
  if (Before(text, " is protected: ", &t)) return is(DenialKind::kProtected, t);
  if (Before(text, " is outside the workspace, the only place this session may write", &t))
    return is(DenialKind::kWrite, t);
  if (Before(text, " is outside the folders this session may read", &t))
    return is(DenialKind::kRead, t);
  if (Before(text, " cannot be resolved (", &t)) return is(DenialKind::kOther, t);
  return d;
}

Json DenialToJson(const Denial& d) {
  Json j = {{"kind", DenialKindName(d.kind)}};
  if (!d.target.empty()) j["target"] = d.target;
  j["text"] = d.text;
  return j;
}

Json DenialsToJson(const std::vector<Denial>& ds) {
  Json a = Json::array();
  for (const auto& d : ds) a.push_back(DenialToJson(d));
  return a;
}

std::vector<Denial> DenialsFromJson(const Json& j) {
  std::vector<Denial> out;
  if (!j.is_array()) return out;
  for (const auto& e : j) {
    if (e.is_string()) {
      out.push_back(ClassifyDenial(e.get<std::string>()));
    } else if (e.is_object() && e.contains("text") && e["text"].is_string()) {
      Denial d;
      d.text = e["text"].get<std::string>();
      d.kind = e.contains("kind") && e["kind"].is_string()
                   ? DenialKindFromName(e["kind"].get<std::string>())
                   : ClassifyDenial(d.text).kind;
      if (e.contains("target") && e["target"].is_string()) d.target = e["target"].get<std::string>();
      out.push_back(std::move(d));
    }
  }
  return out;
}

}  // namespace sepp::sandbox
