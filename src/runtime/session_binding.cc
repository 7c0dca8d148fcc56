#include "runtime/session_binding.h"

#include <cstdio>
#include <mutex>

#include "runtime/settings.h"
#include "runtime/user_bash.h"
#include "session/render.h"
#include "session/store.h"

namespace sepp::runtime {
namespace {

// pi-style clients name a session by its file (<created>_<id>.jsonl).
std::string IdFromPathOrId(const std::string& s) {
  if (s.find('/') == std::string::npos && s.size() < 6) return s;
  if (s.find('/') == std::string::npos && s.substr(s.size() - 6) != ".jsonl") return s;
  std::string stem = std::filesystem::path(s).stem().string();
  size_t us = stem.rfind('_');
  return us == std::string::npos ? stem : stem.substr(us + 1);
}

}  // namespace

struct SessionBinding::Impl {
  std::shared_ptr<session::Store> store;
  std::unique_ptr<session::Session> session;
  SessionRequest request;
  // Sub-agents open sessions and record denials from tool threads; front
  // ends read entries from theirs.
  mutable std::recursive_mutex mu;
  bool warned = false;
};

SessionBinding::SessionBinding() : impl_(std::make_unique<Impl>()) {}
SessionBinding::~SessionBinding() = default;

Status SessionBinding::Open(const SessionRequest& request) {
  if (request.store) {
    impl_->store = request.store;
  } else {
    auto settings = LoadSettings(request.cwd);
    if (!settings.ok()) return settings.error();
    for (const auto& w : settings->warnings) std::fprintf(stderr, "sepp: %s\n", w.c_str());
    auto store = session::OpenStore(settings->session_store, session::DefaultSessionsRoot());
    if (!store.ok()) return store.error();
    impl_->store = std::move(store).value();
  }
  impl_->request = request;

  std::string id = IdFromPathOrId(request.resume_id);
  if (request.continue_latest) {
    auto latest = impl_->store->Latest(request.cwd.string());
    if (!latest.ok())
      return Error::Make("there is no session to continue in " + request.cwd.string() +
                             ": start one with sepp -p \"...\"",
                         "not_found");
    id = *latest;
  }
  if (id.empty()) {
    auto created = impl_->store->Create({request.cwd.string(), request.provider, request.model, ""});
    if (!created.ok()) return created.error();
    impl_->session = std::move(created).value();
  } else {
    auto opened = impl_->store->Open(id, session::OpenMode::kAppend);
    if (!opened.ok()) return opened.error();
    impl_->session = std::move(opened).value();
    if (auto st = MoveToEntry(request); !st.ok()) return st;
    RebuildContext();
  }
  id_ = impl_->session->id();
  return Ok();
}

Status SessionBinding::MoveToEntry(const SessionRequest& request) {
  const std::string& entry = !request.fork_entry.empty() ? request.fork_entry : request.branch_entry;
  if (entry.empty()) return Ok();
  if (!impl_->session->Find(entry))
    return Error::Make("session " + impl_->session->id() + " has no entry " + entry +
                           ": see the entry ids with sepp sessions tree " + impl_->session->id(),
                       "not_found");
  if (!request.branch_entry.empty()) return impl_->session->SetLeaf(entry);
  auto forked = impl_->store->Fork(*impl_->session, entry);
  if (!forked.ok()) return forked.error();
  impl_->session = std::move(forked).value();
  return Ok();
}

namespace {

std::string StringField(const Json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

// The model's context is the path root→leaf, where a compaction entry
// replaces everything before its first kept entry with the summary. Only
// the part after the last compaction's cut is parsed: a long session opens
// as fast as a short one.
void SessionBinding::RebuildContext() {
  history_.clear();
  context_ids_.clear();
  std::vector<const session::Entry*> path = impl_->session->Path();
  size_t from = 0;
  for (size_t c = path.size(); c-- > 0;) {
    if (path[c]->type != "compaction") continue;
    std::string first_kept = StringField(path[c]->data(), "first_kept_id");
    from = c;
    for (size_t i = c; i-- > 0;)
      if (path[i]->id == first_kept) from = i;
    break;
  }
  for (size_t k = from; k < path.size(); ++k) {
    const session::Entry* e = path[k];
    const Json& data = e->data();
    if (e->type == "message" && data.contains("message")) {
      auto m = llm::MessageFromJson(data["message"]);
      if (!m.ok()) continue;
      history_.push_back(std::move(m).value());
      context_ids_.push_back(e->id);
    } else if (e->type == "bash_execution") {
      // The user's own command, as the live session added it (user_bash.h).
      UserBash run = UserBashFromEntry(data);
      if (run.exclude_from_context) continue;
      history_.push_back(UserBashMessage(run));
      context_ids_.push_back(e->id);
    } else if (e->type == "compaction") {
      std::string first_kept = StringField(data, "first_kept_id");
      size_t keep = context_ids_.size();
      for (size_t i = 0; i < context_ids_.size(); ++i)
        if (context_ids_[i] == first_kept) keep = i;
      history_.erase(history_.begin(), history_.begin() + static_cast<ptrdiff_t>(keep));
      context_ids_.erase(context_ids_.begin(), context_ids_.begin() + static_cast<ptrdiff_t>(keep));
      history_.insert(history_.begin(), agent::SummaryMessage(StringField(data, "summary")));
      context_ids_.insert(context_ids_.begin(), e->id);
    }
  }
}

void SessionBinding::Warn(const Error& error) {
  if (impl_->warned) return;
  impl_->warned = true;
  std::fprintf(stderr, "sepp: cannot save to the session (%s); the run goes on unsaved\n",
               error.message.c_str());
}

void SessionBinding::Record(const llm::Message& message) {
  std::lock_guard<std::recursive_mutex> lock(impl_->mu);
  if (!impl_->session) return;
  auto r = impl_->session->AppendMessage(llm::ToJson(message));
  if (!r.ok()) return Warn(r.error());
  context_ids_.push_back(*r);
}

void SessionBinding::RecordCompaction(const agent::CompactionResult& result) {
  std::lock_guard<std::recursive_mutex> lock(impl_->mu);
  if (!impl_->session || result.first_kept >= context_ids_.size()) return;
  std::string first_kept_id = context_ids_[result.first_kept];
  auto r = impl_->session->Append("compaction", {{"summary", result.summary},
                                                 {"first_kept_id", first_kept_id},
                                                 {"tokens_before", result.tokens_before},
                                                 {"tokens_after", result.tokens_after}});
  if (!r.ok()) return Warn(r.error());
  context_ids_.erase(context_ids_.begin(),
                     context_ids_.begin() + static_cast<ptrdiff_t>(result.first_kept));
  context_ids_.insert(context_ids_.begin(), *r);
}

}  // namespace sepp::runtime

namespace sepp::runtime {

agent::ChildSession SessionBinding::OpenChild(const std::string& task,
                                              const std::string& agent_name) {
  std::lock_guard<std::recursive_mutex> lock(impl_->mu);
  if (!impl_->session) return {};
  const SessionRequest& req = impl_->request;
  auto created = impl_->store->Create({req.cwd.string(), req.provider, req.model, id_});
  if (!created.ok()) {
    Warn(created.error());
    return {};
  }
  std::shared_ptr<session::Session> child = std::move(created).value();
  auto link = impl_->session->Append(
      "subagent", {{"session_id", child->id()}, {"task", task}, {"agent", agent_name}});
  if (!link.ok()) Warn(link.error());
  agent::ChildSession cs;
  cs.id = child->id();
  cs.keep_alive = child;
  cs.record = [child](const llm::Message& m) { (void)child->AppendMessage(llm::ToJson(m)); };
  cs.record_denial = [child](const std::string& call_id, const std::string& tool,
                             const std::vector<sandbox::Denial>& denials) {
    (void)child->Append("denial", {{"call_id", call_id},
                                   {"tool", tool},
                                   {"denials", sandbox::DenialsToJson(denials)}});
  };
  return cs;
}

}  // namespace sepp::runtime

namespace sepp::runtime {

void SessionBinding::RecordDenial(const std::string& call_id, const std::string& tool,
                                  const std::vector<sandbox::Denial>& denials) {
  std::lock_guard<std::recursive_mutex> lock(impl_->mu);
  if (!impl_->session) return;
  auto r = impl_->session->Append(
      "denial", {{"call_id", call_id}, {"tool", tool}, {"denials", sandbox::DenialsToJson(denials)}});
  if (!r.ok()) Warn(r.error());
}

}  // namespace sepp::runtime

namespace sepp::runtime {

void SessionBinding::RecordChildDenial(const std::string& child_session, const std::string& call_id,
                                       const std::string& tool,
                                       const std::vector<sandbox::Denial>& denials) {
  std::lock_guard<std::recursive_mutex> lock(impl_->mu);
  if (!impl_->session) return;
  auto r = impl_->session->Append("denial", {{"call_id", call_id},
                                             {"tool", tool},
                                             {"denials", sandbox::DenialsToJson(denials)},
                                             {"subagent_session_id", child_session}});
  if (!r.ok()) Warn(r.error());
}

void SessionBinding::RecordEntry(const std::string& type, const Json& payload) {
  std::lock_guard<std::recursive_mutex> lock(impl_->mu);
  if (!impl_->session) return;
  auto r = impl_->session->Append(type, payload);
  if (!r.ok()) Warn(r.error());
}

Status SessionBinding::Branch(const std::string& entry_id) {
  std::lock_guard<std::recursive_mutex> lock(impl_->mu);
  if (!impl_->session) return Error::Make("sessions are off (--no-session): nothing to branch", "usage");
  if (!impl_->session->Find(entry_id))
    return Error::Make("session " + id_ + " has no entry " + entry_id +
                           ": see the entry ids with sepp sessions tree " + id_,
                       "not_found");
  if (auto st = impl_->session->SetLeaf(entry_id); !st.ok()) return st;
  RebuildContext();
  return Ok();
}

Status SessionBinding::Label(const std::string& entry_id, const std::string& label) {
  std::lock_guard<std::recursive_mutex> lock(impl_->mu);
  if (!impl_->session) return Error::Make("sessions are off (--no-session): nothing to label", "usage");
  if (!impl_->session->Find(entry_id))
    return Error::Make("session " + id_ + " has no entry " + entry_id, "not_found");
  auto r = impl_->session->Label(entry_id, label);
  if (!r.ok()) return r.error();
  return Ok();
}

std::string SessionBinding::ExportHtml() const {
  std::lock_guard<std::recursive_mutex> lock(impl_->mu);
  return impl_->session ? session::ExportHtml(*impl_->session) : std::string();
}

Json SessionBinding::Entries() const {
  std::lock_guard<std::recursive_mutex> lock(impl_->mu);
  Json out = Json::array();
  if (!impl_->session) return out;
  for (const session::Entry& e : impl_->session->entries()) out.push_back(e.data.get());
  return out;
}

Json SessionBinding::Tree() const {
  std::lock_guard<std::recursive_mutex> lock(impl_->mu);
  Json nodes = Json::array();
  if (!impl_->session) return {{"leaf", ""}, {"nodes", nodes}};
  const session::Session& s = *impl_->session;
  for (const session::Entry& e : s.entries()) {
    if (e.type == "label") continue;
    Json children = Json::array();
    for (const session::Entry* c : s.Children(e.id))
      if (c->type != "label") children.push_back(c->id);
    Json n = {{"id", e.id}, {"parent_id", e.parent_id}, {"type", e.type},
              {"timestamp", e.timestamp}, {"children", children}};
    std::string label = s.LabelOf(e.id);
    if (!label.empty()) n["label"] = label;
    if (e.type == "message" && e.data.contains("message")) {
      const Json& m = e.data["message"];
      n["role"] = m.value("role", "");
    }
    nodes.push_back(std::move(n));
  }
  return {{"leaf", s.leaf()}, {"nodes", nodes}};
}

std::string SessionBinding::location() const {
  std::lock_guard<std::recursive_mutex> lock(impl_->mu);
  return impl_->session ? impl_->session->location() : std::string();
}

std::string SessionBinding::name() const {
  std::lock_guard<std::recursive_mutex> lock(impl_->mu);
  if (!impl_->session) return {};
  std::string name;
  for (const session::Entry& e : impl_->session->entries())
    if (e.type == "session_info") name = e.data.value("name", name);
  return name;
}

}  // namespace sepp::runtime
