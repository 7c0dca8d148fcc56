#include "agent/access_retry.h"

#include <algorithm>

namespace sepp::agent {

std::string RetryWithAccessDescription() {
  return "Runs an earlier tool call again with a specific, wider sandbox, after asking the user. "
         "Use it only when a call failed because the sandbox refused something the task really "
         "needs (a network host, a path outside the workspace). Name the call by its id and ask "
         "for exactly what it needs: domains (\"pypi.org\", \"*.github.com\"), paths to write or "
         "read (absolute), and say why. The user may allow it once, for the session, for the "
         "project, or deny it; a denial comes back with their message.";
}

Json RetryWithAccessParameters() {
  Json list = {{"type", "array"}, {"items", {{"type", "string"}}}};
  return {{"type", "object"},
          {"properties",
           {{"call_id", {{"type", "string"}, {"description", "the id of the refused call to run again"}}},
            {"domains", list},
            {"write_paths", list},
            {"read_paths", list},
            {"justification", {{"type", "string"}, {"description", "why the task needs this access"}}}}},
          {"required", {"call_id", "justification"}}};
}

namespace {

Status AddAll(const Json& args, const char* key, Widening::Kind kind,
              const std::filesystem::path& cwd, std::vector<Widening>* out) {
  auto it = args.find(key);
  if (it == args.end() || it->is_null()) return Ok();
  if (!it->is_array()) return Error::Make(std::string("\"") + key + "\" must be a list of strings", "usage");
  for (const auto& v : *it) {
    if (!v.is_string() || v.get<std::string>().empty())
      return Error::Make(std::string("\"") + key + "\" must be a list of non-empty strings", "usage");
    std::string t = v;
    if (kind == Widening::Kind::kDomain) {
      std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::tolower(c); });
      std::string bare = t.rfind("*.", 0) == 0 ? t.substr(2) : t;
      // "localhost" is one specific host (a local dev server); other
      // single labels ("com") are not.
      bool ok = t == "localhost" || (!bare.empty() && bare.find('.') != std::string::npos &&
                bare.find('*') == std::string::npos &&
                bare.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789.-") == std::string::npos &&
                bare.front() != '.' && bare.back() != '.');
      if (!ok)
        return Error::Make("\"" + t + "\" is not a specific domain: name a host (\"pypi.org\") or "
                           "one domain's subdomains (\"*.github.com\")",
                           "usage");
    } else {
      std::filesystem::path p = std::filesystem::path(t);
      if (p.is_relative()) p = cwd / p;
      p = p.lexically_normal();
      std::string s = p.string();
      while (s.size() > 1 && s.back() == '/') s.pop_back();
      if (s == "/")
        return Error::Make("the whole file system is not a specific path: name the folder the "
                           "command needs",
                           "usage");
      t = s;
    }
    out->push_back({kind, t});
  }
  return Ok();
}

}  // namespace

Result<AccessRequest> ParseAccessRequest(const Json& args, const std::filesystem::path& cwd) {
  AccessRequest r;
  if (!args.is_object()) return Error::Make("the arguments must be a JSON object", "usage");
  auto id = args.find("call_id");
  if (id == args.end() || !id->is_string() || id->get<std::string>().empty())
    return Error::Make("\"call_id\" (the refused call's id) is required", "usage");
  r.call_id = *id;
  auto why = args.find("justification");
  if (why == args.end() || !why->is_string() || why->get<std::string>().empty())
    return Error::Make("\"justification\" is required: say why the task needs this access", "usage");
  r.justification = *why;
  if (auto st = AddAll(args, "domains", Widening::Kind::kDomain, cwd, &r.widenings); !st.ok())
    return st.error();
  if (auto st = AddAll(args, "write_paths", Widening::Kind::kWritePath, cwd, &r.widenings); !st.ok())
    return st.error();
  if (auto st = AddAll(args, "read_paths", Widening::Kind::kReadPath, cwd, &r.widenings); !st.ok())
    return st.error();
  if (r.widenings.empty())
    return Error::Make("ask for something: \"domains\", \"write_paths\" or \"read_paths\"", "usage");
  return r;
}

void CallMemory::Remember(const std::string& id, Call call) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!calls_.count(id)) order_.push_back(id);
  calls_[id] = std::move(call);
  if (order_.size() > 512) {
    calls_.erase(order_.front());
    order_.erase(order_.begin());
  }
}

bool CallMemory::Find(const std::string& id, Call* out) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = calls_.find(id);
  if (it == calls_.end()) return false;
  *out = it->second;
  return true;
}

std::string DescribeWidenings(const std::vector<Widening>& ws) {
  std::string out;
  for (const Widening& w : ws) {
    if (!out.empty()) out += ", ";
    switch (w.kind) {
      case Widening::Kind::kDomain: out += "network access to " + w.target; break;
      case Widening::Kind::kWritePath: out += "writing to " + w.target; break;
      case Widening::Kind::kReadPath: out += "reading " + w.target; break;
    }
  }
  return out;
}

}  // namespace sepp::agent
