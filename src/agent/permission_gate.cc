#include "agent/permission_gate.h"

#include <algorithm>

namespace sepp::agent {

const char* ToString(Widening::Kind k) {
  switch (k) {
    case Widening::Kind::kDomain: return "domain";
    case Widening::Kind::kWritePath: return "write";
    case Widening::Kind::kReadPath: return "read";
  }
  return "unknown";
}

bool ParseWideningKind(const std::string& s, Widening::Kind* out) {
  if (s == "domain") *out = Widening::Kind::kDomain;
  else if (s == "write") *out = Widening::Kind::kWritePath;
  else if (s == "read") *out = Widening::Kind::kReadPath;
  else return false;
  return true;
}

const char* ToString(PermissionChoice c) {
  switch (c) {
    case PermissionChoice::kAllowOnce: return "allow_once";
    case PermissionChoice::kAllowSession: return "allow_session";
    case PermissionChoice::kAllowProject: return "allow_project";
    case PermissionChoice::kDeny: return "deny";
  }
  return "deny";
}

const char* ToString(RequestKind k) {
  switch (k) {
    case RequestKind::kSandbox: return "sandbox";
    case RequestKind::kProjectTrust: return "project_trust";
    case RequestKind::kExtension: return "extension";
  }
  return "sandbox";
}

std::vector<std::string> ChoicesFor(RequestKind k) {
  if (k == RequestKind::kSandbox) return {"allow_once", "allow_session", "allow_project", "deny"};
  return {"allow", "deny"};
}

bool IsAllow(PermissionChoice c) { return c != PermissionChoice::kDeny; }

bool ParsePermissionChoice(const std::string& s, PermissionChoice* out) {
  if (s == "allow") *out = PermissionChoice::kAllowProject;
  else if (s == "allow_once") *out = PermissionChoice::kAllowOnce;
  else if (s == "allow_session") *out = PermissionChoice::kAllowSession;
  else if (s == "allow_project") *out = PermissionChoice::kAllowProject;
  else if (s == "deny") *out = PermissionChoice::kDeny;
  else return false;
  return true;
}

namespace {

void AddUnique(std::vector<std::string>& v, const std::string& s) {
  if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
}

std::string TomlString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

sandbox::Policy Widen(const sandbox::Policy& base, const std::vector<Widening>& widenings) {
  sandbox::Policy p = base;
  for (const Widening& w : widenings) {
    switch (w.kind) {
      case Widening::Kind::kDomain:
        if (p.net == sandbox::NetMode::kOff) p.net = sandbox::NetMode::kProxy;
        AddUnique(p.allow_domains, w.target);
        break;
      case Widening::Kind::kWritePath:
        AddUnique(p.write_roots, w.target);
        break;
      case Widening::Kind::kReadPath:
        AddUnique(p.read_roots, w.target);
        break;
    }
    // A path the model asked for by name is no longer masked; the secret
    // defaults stay masked unless the person named exactly that path.
    if (w.kind != Widening::Kind::kDomain)
      p.deny_paths.erase(std::remove(p.deny_paths.begin(), p.deny_paths.end(), w.target),
                         p.deny_paths.end());
  }
  return p;
}

std::string DescribeAsPolicyToml(const std::vector<Widening>& widenings) {
  std::vector<std::string> read, write, domains;
  for (const Widening& w : widenings) {
    if (w.kind == Widening::Kind::kDomain) domains.push_back(TomlString(w.target));
    else if (w.kind == Widening::Kind::kWritePath) write.push_back(TomlString(w.target));
    else read.push_back(TomlString(w.target));
  }
  auto list = [](const std::vector<std::string>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i];
    return s + "]";
  };
  std::string out;
  if (!read.empty() || !write.empty()) {
    out += "[filesystem]\n";
    if (!read.empty()) out += "read = " + list(read) + "\n";
    if (!write.empty()) out += "write = " + list(write) + "\n";
  }
  if (!domains.empty()) out += "[network]\nmode = \"proxy\"\nallow_domains = " + list(domains) + "\n";
  return out;
}

Json ToJson(const PermissionRequest& r) {
  Json widen = Json::array();
  for (const Widening& w : r.widenings) widen.push_back({{"kind", ToString(w.kind)}, {"target", w.target}});
  if (r.kind != RequestKind::kSandbox) {
    Json items = Json::array();
    for (const TrustItem& t : r.items) {
      Json i = {{"path", t.path}, {"sha256", t.sha256}, {"detail", t.detail}};
      if (!t.capabilities.empty()) i["capabilities"] = t.capabilities;
      items.push_back(std::move(i));
    }
    return {{"id", r.id}, {"kind", ToString(r.kind)}, {"subject", r.subject},
            {"items", std::move(items)}, {"justification", r.justification}};
  }
  Json j = {{"id", r.id},
            {"kind", ToString(r.kind)},
            {"call_id", r.call_id},
            {"tool", r.tool},
            {"args", r.args},
            {"widen", widen},
            {"justification", r.justification},
            {"policy_change", DescribeAsPolicyToml(r.widenings)}};
  if (!r.denials.empty()) j["denials"] = sandbox::DenialsToJson(r.denials);
  if (!r.parent_call_id.empty()) j["parent_call_id"] = r.parent_call_id;
  return j;
}

Json ToJson(const PermissionAnswer& a) {
  Json j = {{"choice", ToString(a.choice)}, {"source", a.source}};
  if (!a.message.empty()) j["message"] = a.message;
  return j;
}

}  // namespace sepp::agent
