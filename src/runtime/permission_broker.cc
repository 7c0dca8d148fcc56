#include "runtime/permission_broker.h"

#include <algorithm>
#include <chrono>

#include "base/clock.h"
#include "base/file.h"
#include "base/paths.h"
#include "sandbox/policy_toml.h"

namespace sepp::runtime {
namespace {

using agent::PermissionAnswer;
using agent::PermissionChoice;
using agent::Widening;

// "*.example.com" covers "api.example.com"; a path covers itself and below.
bool Covers(const Widening& grant, const Widening& want) {
  if (grant.kind != want.kind) {
    // A write grant covers reading the same path.
    if (!(grant.kind == Widening::Kind::kWritePath && want.kind == Widening::Kind::kReadPath))
      return false;
  }
  if (grant.kind == Widening::Kind::kDomain) {
    if (grant.target == want.target) return true;
    if (grant.target.rfind("*.", 0) == 0) {
      std::string suffix = grant.target.substr(1);  // ".example.com"
      return want.target.size() > suffix.size() &&
             want.target.compare(want.target.size() - suffix.size(), suffix.size(), suffix) == 0;
    }
    return false;
  }
  std::string g = grant.target, w = want.target;
  while (g.size() > 1 && g.back() == '/') g.pop_back();
  return w == g || (w.size() > g.size() && w.compare(0, g.size(), g) == 0 && w[g.size()] == '/');
}

std::string ProjectKey(const std::filesystem::path& cwd) {
  std::string key;
  for (char c : cwd.lexically_normal().string()) key += (c == '/' ? '-' : c);
  return key.empty() ? "-" : key;
}

}  // namespace

PermissionBroker::PermissionBroker(PermissionDefaults defaults, std::filesystem::path cwd,
                                   std::function<void(agent::Event)> publish)
    : defaults_(std::move(defaults)), cwd_(std::move(cwd)), publish_(std::move(publish)) {
  // Grants saved "always for this project" earlier: they answer without asking.
  std::error_code ec;
  if (std::filesystem::exists(project_policy_file(), ec)) {
    auto p = sandbox::LoadPolicyFile(project_policy_file(), cwd_);
    if (p.ok()) {
      for (const auto& d : p->allow_domains) grants_.push_back({{Widening::Kind::kDomain, d}, true});
      for (const auto& w : p->write_roots) grants_.push_back({{Widening::Kind::kWritePath, w}, true});
      for (const auto& r : p->read_roots) grants_.push_back({{Widening::Kind::kReadPath, r}, true});
    }
  }
}

std::filesystem::path PermissionBroker::project_policy_file() const {
  // In sepp's own folder, which no sandboxed command can write: a model
  // cannot grant itself access by editing a file in the workspace.
  return SeppHome() / "grants" / (ProjectKey(cwd_) + ".toml");
}

bool PermissionBroker::Covered(const std::vector<Widening>& wanted,
                               const std::vector<Widening>& granted) const {
  if (wanted.empty()) return false;
  for (const Widening& w : wanted) {
    bool ok = std::any_of(granted.begin(), granted.end(),
                          [&](const Widening& g) { return Covers(g, w); });
    if (!ok) return false;
  }
  return true;
}

void PermissionBroker::Resolve(const agent::PermissionRequest& r, const PermissionAnswer& a) {
  agent::Event e(agent::EventType::kPermissionResolved);
  e.call_id = r.call_id;
  e.tool = r.tool;
  e.parent_call_id = r.parent_call_id;
  e.data = {{"request_id", r.id}, {"kind", agent::ToString(r.kind)}, {"answer", agent::ToJson(a)}};
  publish_(std::move(e));
}

PermissionAnswer PermissionBroker::Ask(const agent::PermissionRequest& request_in,
                                       CancelToken& cancel) {
  agent::PermissionRequest request = request_in;
  std::vector<Widening> flags;
  for (const auto& d : defaults_.allow_domains) flags.push_back({Widening::Kind::kDomain, d});
  for (const auto& w : defaults_.allow_writes) flags.push_back({Widening::Kind::kWritePath, w});
  {
    std::unique_lock<std::mutex> lock(mu_);
    request.id = "perm-" + std::to_string(++next_id_);
    PermissionAnswer a;
    const bool sandbox = request.kind == agent::RequestKind::kSandbox;
    if (!sandbox) {
      // Trust is never answered from grants or flags: only a person, here
      // or headless (`sepp trust`, `sepp ext trust NAME`, --trust).
      if (!defaults_.ask_front_end || closing_)
        a = {PermissionChoice::kDeny,
             request.kind == agent::RequestKind::kProjectTrust
                 ? "not trusted: no one can answer in this run; review the files and run `sepp "
                   "trust` (or start sepp with --trust)"
                 : "not confirmed: no one can answer in this run; review its capabilities and "
                   "run `sepp ext trust " + request.subject + "`",
             "no_front_end"};
    } else if (Covered(request.widenings, GrantedLocked())) {
      a = {PermissionChoice::kAllowOnce, "", "session"};
    } else if (Covered(request.widenings, flags)) {
      a = {PermissionChoice::kAllowOnce, "", "flags"};
    } else if (!defaults_.ask_front_end || closing_) {
      a = {PermissionChoice::kDeny,
           "denied: no one can answer permission requests in this run (headless). To allow it, "
           "run sepp again with " +
               std::string(request.widenings.empty() ||
                                   request.widenings[0].kind == Widening::Kind::kDomain
                               ? "--allow-domain DOMAIN"
                               : "--allow-write PATH") +
               ", or use a front end that asks (sepp --rpc, --acp)",
           "no_front_end"};
    } else {
      a.source.clear();
    }
    if (!a.source.empty()) {
      lock.unlock();
      Resolve(request, a);
      return a;
    }
    Waiting& w = waiting_[request.id];
    w.pending.request = request;
    w.pending.deadline_ms = NowMs() + static_cast<int64_t>(defaults_.timeout_s * 1000);
  }

  agent::Event asked(agent::EventType::kPermissionRequested);
  asked.call_id = request.call_id;
  asked.tool = request.tool;
  asked.parent_call_id = request.parent_call_id;
  asked.data = agent::ToJson(request);
  asked.data["request_id"] = request.id;
  asked.data["timeout_s"] = defaults_.timeout_s;
  asked.data["choices"] = agent::ChoicesFor(request.kind);
  publish_(std::move(asked));

  // A cancel (abort, close) wakes the wait at once.
  auto reg = cancel.OnCancel([this] {
    std::lock_guard<std::mutex> lock(mu_);
    cv_.notify_all();
  });
  PermissionAnswer answer;
  {
    std::unique_lock<std::mutex> lock(mu_);
    auto deadline = std::chrono::steady_clock::now() +
                    std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                        std::chrono::duration<double>(defaults_.timeout_s));
    bool done = cv_.wait_until(lock, deadline, [&] {
      return waiting_[request.id].answered || cancel.cancelled() || closing_;
    });
    Waiting& w = waiting_[request.id];
    if (w.answered) {
      answer = w.answer;
    } else if (!done) {
      answer = {PermissionChoice::kDeny,
                "denied: no answer came within " + std::to_string(static_cast<int>(defaults_.timeout_s)) +
                    " s",
                "timeout"};
    } else {
      answer = {PermissionChoice::kDeny, "denied: the turn was aborted", "cancelled"};
    }
    waiting_.erase(request.id);
    if (request.kind != agent::RequestKind::kSandbox) {
      // The caller records the trust; nothing of the sandbox kind is granted.
      if (answer.source.empty()) answer.source = "user";
      lock.unlock();
      Resolve(request, answer);
      return answer;
    }
    if (answer.choice == PermissionChoice::kAllowSession ||
        answer.choice == PermissionChoice::kAllowProject)
      for (const Widening& wd : request.widenings)
        grants_.push_back({wd, answer.choice == PermissionChoice::kAllowProject});
  }
  if (answer.choice == PermissionChoice::kAllowProject) {
    if (auto st = SaveForProject(request.widenings); !st.ok()) {
      // The grant still holds for this session; say why it was not kept.
      answer.message = "allowed for this session only: cannot save the grant (" +
                       st.error().message + ")";
    }
  }
  if (answer.source.empty()) answer.source = "user";
  Resolve(request, answer);
  return answer;
}

std::vector<PendingPermission> PermissionBroker::Pending() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<PendingPermission> out;
  for (const auto& [id, w] : waiting_)
    if (!w.answered) out.push_back(w.pending);
  return out;
}

Status PermissionBroker::Answer(const std::string& id, PermissionAnswer answer) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = waiting_.find(id);
    if (it == waiting_.end() || it->second.answered)
      return Error::Make("no permission request " + id +
                             " is waiting (already answered, timed out, or never asked)",
                         "not_found");
    if (answer.source.empty()) answer.source = "user";
    it->second.answer = std::move(answer);
    it->second.answered = true;
  }
  cv_.notify_all();
  return Ok();
}

std::vector<Widening> PermissionBroker::GrantedLocked() const {
  std::vector<Widening> out;
  for (const auto& g : grants_) out.push_back(g.widening);
  return out;
}

std::vector<PermissionGrant> PermissionBroker::Grants() const {
  std::lock_guard<std::mutex> lock(mu_);
  return grants_;
}

Status PermissionBroker::RevokeSessionGrant(const Widening& widening) {
  std::lock_guard<std::mutex> lock(mu_);
  bool removed = false, project = false;
  for (auto it = grants_.begin(); it != grants_.end();) {
    if (it->widening.kind != widening.kind || it->widening.target != widening.target) {
      ++it;
    } else if (it->for_project) {
      project = true;
      ++it;
    } else {
      it = grants_.erase(it);
      removed = true;
    }
  }
  if (project)
    return Error::Make(std::string(removed ? "revoked for this session, but " : "") + agent::ToString(widening.kind) +
                           " " + widening.target + " is granted for the project: delete its line in " +
                           project_policy_file().string() + " to withdraw it",
                       removed ? "partial" : "not_found");
  if (!removed)
    return Error::Make(std::string("this session has no grant of ") + agent::ToString(widening.kind) + " " +
                           widening.target + " (/permissions lists them)",
                       "not_found");
  return Ok();
}

void PermissionBroker::CancelAll() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    closing_ = true;
  }
  cv_.notify_all();
}

Status PermissionBroker::SaveForProject(const std::vector<Widening>& widenings) {
  std::vector<Widening> all;
  std::error_code ec;
  std::filesystem::path file = project_policy_file();
  if (std::filesystem::exists(file, ec)) {
    auto p = sandbox::LoadPolicyFile(file, cwd_);
    if (!p.ok()) return p.error();
    for (const auto& d : p->allow_domains) all.push_back({Widening::Kind::kDomain, d});
    for (const auto& w : p->write_roots) all.push_back({Widening::Kind::kWritePath, w});
    for (const auto& r : p->read_roots) all.push_back({Widening::Kind::kReadPath, r});
  }
  for (const Widening& w : widenings)
    if (!Covered({w}, all)) all.push_back(w);
  std::string text = "# Grants answered \"always for this project\" for " + cwd_.string() +
                     "\n# (sepp's permission gate; delete a line to withdraw it)\nbase = \"none\"\n" +
                     agent::DescribeAsPolicyToml(all);
  return WriteFileAtomic(file, text, 0600);
}

}  // namespace sepp::runtime
