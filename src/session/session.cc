// The in-memory tree of one session, built once when a store opens it.
//
// Entries live in a deque (stable addresses); by_id_ indexes them by id and
// parent_/children_ hold the tree as indexes. A parent is only linked if it
// appears *earlier* in the stored order, which is always true for what sepp
// writes and makes cycles impossible whatever a hostile file says.
#include "session/session.h"

#include <algorithm>

#include "base/clock.h"
#include "base/ids.h"
#include "base/log.h"
#include "base/strings.h"
#include "session/entry_codec.h"

namespace sepp::session {

Session::Session(SessionHeader header, std::vector<Entry> entries, std::unique_ptr<EntrySink> sink,
                 std::string location)
    : header_(std::move(header)), sink_(std::move(sink)), location_(std::move(location)) {
  size_t duplicates = 0;
  by_id_.reserve(entries.size() * 2);
  for (Entry& e : entries) {
    if (by_id_.count(e.id)) {
      ++duplicates;
      continue;
    }
    entries_.push_back(std::move(e));
    Index(entries_.size() - 1);
  }
  if (duplicates)
    log::Warn("session " + header_.id + ": ignored " + std::to_string(duplicates) +
              " entries whose id was already used");
  if (!entries_.empty()) leaf_ = entries_.back().id;
}

Session::~Session() = default;

void Session::Index(size_t i) {
  const Entry& e = entries_[i];
  by_id_.emplace(std::string_view(e.id), i);
  ptrdiff_t parent = -1;
  if (!e.parent_id.empty()) {
    auto it = by_id_.find(e.parent_id);
    if (it != by_id_.end() && it->second < i) parent = static_cast<ptrdiff_t>(it->second);
  }
  parent_.push_back(parent);
  children_.emplace_back();
  if (parent >= 0) children_[parent].push_back(i);
  if (e.type == "label") {
    auto target = e.data().find("target_id");
    auto label = e.data().find("label");
    if (target != e.data().end() && target->is_string()) {
      std::string text = (label != e.data().end() && label->is_string()) ? label->get<std::string>() : "";
      if (text.empty())
        labels_.erase(target->get<std::string>());
      else
        labels_[target->get<std::string>()] = std::move(text);
    }
  }
}

const Entry* Session::Find(std::string_view id) const {
  auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : &entries_[it->second];
}

std::vector<const Entry*> Session::Path(std::string_view id) const {
  if (id.empty()) id = leaf_;
  std::vector<const Entry*> path;
  auto it = by_id_.find(id);
  if (it == by_id_.end()) return path;
  for (ptrdiff_t i = static_cast<ptrdiff_t>(it->second); i >= 0; i = parent_[i])
    path.push_back(&entries_[i]);
  std::reverse(path.begin(), path.end());
  return path;
}

std::vector<const Entry*> Session::Children(std::string_view id) const {
  std::vector<const Entry*> out;
  auto it = by_id_.find(id);
  if (it == by_id_.end()) return out;
  for (size_t c : children_[it->second]) out.push_back(&entries_[c]);
  return out;
}

const Entry* Session::Parent(std::string_view id) const {
  auto it = by_id_.find(id);
  if (it == by_id_.end() || parent_[it->second] < 0) return nullptr;
  return &entries_[static_cast<size_t>(parent_[it->second])];
}

std::vector<const Entry*> Session::Leaves() const {
  std::vector<const Entry*> out;
  for (size_t i = 0; i < entries_.size(); ++i)
    if (children_[i].empty()) out.push_back(&entries_[i]);
  return out;
}

std::string Session::LabelOf(std::string_view id) const {
  auto it = labels_.find(std::string(id));
  return it == labels_.end() ? std::string() : it->second;
}

std::string Session::UniqueEntryId() const {
  for (;;) {
    std::string id = ShortId();
    if (!by_id_.count(id)) return id;
  }
}

Result<std::string> Session::Append(std::string_view type, Json payload,
                                    std::optional<std::string> parent_id) {
  std::lock_guard<std::mutex> lock(write_mu_);
  return AppendLocked(type, std::move(payload), std::move(parent_id));
}

Result<std::string> Session::AppendLocked(std::string_view type, Json payload,
                                          std::optional<std::string> parent_id) {
  if (!sink_)
    return Error::Make("session " + header_.id + " was opened read-only; it cannot be appended to",
                       "read_only");
  if (type.empty()) return Error::Make("an entry needs a type", "invalid_argument");
  if (!payload.is_null() && !payload.is_object())
    return Error::Make("an entry's payload must be a JSON object", "invalid_argument");
  std::string parent = parent_id ? *parent_id : leaf_;
  if (!parent.empty() && !by_id_.count(parent))
    return Error::Make("session " + header_.id + " has no entry " + parent, "not_found");

  Json data = payload.is_object() ? std::move(payload) : Json::object();
  Entry e;
  e.type = std::string(type);
  e.id = UniqueEntryId();
  e.parent_id = parent;
  e.timestamp = Iso8601(NowMs());
  data["type"] = e.type;
  data["id"] = e.id;
  data["parentId"] = parent.empty() ? Json(nullptr) : Json(parent);
  data["timestamp"] = e.timestamp;
  RedactStrings(data);
  e.type = data["type"].get<std::string>();  // the type itself could hold a secret
  e.set_data(std::move(data));

  std::string line = EncodeEntry(e);
  if (Status s = sink_->Write(e, line); !s.ok()) return s.error();
  entries_.push_back(std::move(e));
  Index(entries_.size() - 1);
  leaf_ = entries_.back().id;
  return leaf_;
}

Result<std::string> Session::AppendMessage(Json message) {
  Json payload = Json::object();
  payload["message"] = std::move(message);
  return Append("message", std::move(payload));
}

Status Session::SetLeaf(std::string_view id) {
  std::lock_guard<std::mutex> lock(write_mu_);
  if (!id.empty() && !by_id_.count(id))
    return Error::Make("session " + header_.id + " has no entry " + std::string(id), "not_found");
  leaf_ = std::string(id);
  return Ok();
}

Result<std::string> Session::Label(std::string_view target_id, std::string_view label) {
  std::lock_guard<std::mutex> lock(write_mu_);
  if (!by_id_.count(target_id))
    return Error::Make("session " + header_.id + " has no entry " + std::string(target_id),
                       "not_found");
  Json payload = Json::object();
  payload["target_id"] = std::string(target_id);
  payload["label"] = std::string(label);
  return AppendLocked("label", std::move(payload), std::nullopt);
}

void AddToMessageStats(MessageStats& stats, const Entry& e) {
  if (e.type != "message") return;
  ++stats.message_count;
  if (!stats.first_prompt.empty()) return;
  auto msg = e.data().find("message");
  if (msg == e.data().end() || !msg->is_object()) return;
  auto role = msg->find("role");
  if (role == msg->end() || *role != "user") return;
  auto content = msg->find("content");
  if (content == msg->end()) return;
  if (content->is_string()) {
    stats.first_prompt = content->get<std::string>();
    return;
  }
  if (!content->is_array()) return;
  for (const Json& block : *content) {
    if (!block.is_object()) continue;
    auto type = block.find("type");
    auto text = block.find("text");
    if (type != block.end() && *type == "text" && text != block.end() && text->is_string()) {
      stats.first_prompt = text->get<std::string>();
      return;
    }
  }
}

MessageStats ComputeMessageStats(const std::deque<Entry>& entries) {
  MessageStats stats;
  for (const Entry& e : entries) AddToMessageStats(stats, e);
  return stats;
}

}  // namespace sepp::session
