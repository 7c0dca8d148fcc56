// A session: an append-only tree of entries, held open from a store.
//
// The model: every entry has an id and the id of its parent (none for a
// root). Appending hangs the new entry off the current *leaf* (or off a parent
// you name) and makes it the new leaf. Moving the leaf back to an earlier entry
// starts a branch: the next append hangs off that entry and the old branch
// stays in the file, untouched. The path from the root to the leaf is the
// conversation the model sees (the agent interprets compaction entries on it).
//
// Entries are never rewritten. Entry types this layer does not know (from a
// newer sepp, or an extension) are kept and passed over, never dropped.
// Every entry goes through Redact() (base/secrets.h) before it is written, so
// no registered secret value ever reaches a session file or database.
//
// Entry types written by sepp (payload fields beside the envelope):
//   "message"      {"message": {role, content:[...], tool_call_id, ...}}
//   "compaction"   {"summary", "first_kept_id", "tokens_before", "tokens_after"}
//   "label"        {"target_id", "label"}   (written by Label(); "" removes)
//   "subagent"     {"session_id", "task", ...}
//   "denial", "model_change", and custom types: opaque JSON objects.
// See docs/sessions.md for the on-disk format.
//
// Thread safety: the mutating calls (Append, AppendMessage, SetLeaf, Label)
// are serialised internally, so several threads may append (e.g. the loop and
// a sub-agent tool recording a "subagent" link). Reading (Find, Path,
// entries(), ...) while another thread mutates is NOT safe; Entry pointers
// themselves stay valid. Writers are exclusive across processes: a session opened for
// appending holds a lock until the Session is destroyed, and a second open
// for appending (from any process) fails with kind "locked", naming the pid.
#pragma once
#include <deque>
#include <utility>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/json.h"
#include "base/result.h"

namespace sepp::session {

// The first record of a session.
struct SessionHeader {
  std::string id;              // 32 hex digits (base/ids.h NewId)
  std::string cwd;             // the working folder the session belongs to
  std::string created;         // ISO 8601, UTC
  std::string parent_session;  // set by Fork (and sub-agents); "" if none
  std::string provider;
  std::string model;
  // The whole header object as stored, unknown fields included.
  Json data = Json::object();
};

// An entry's JSON record, parsed from its stored text on first use.
// Reads like a const Json: data.contains("k"), data["k"], data.value("k", d),
// data.find("k"), or data() / data.get() for the Json itself. Never throws
// on bad stored text: if the record turns out not to be valid JSON beyond
// the envelope (hostile input), it reads as the envelope fields alone.
// Parsing mutates it on first use: one thread at a time, like a Session.
class LazyJson {
 public:
  LazyJson() = default;
  LazyJson(Json j) : data_(std::move(j)) {}  // NOLINT: implicit on purpose
  LazyJson& operator=(Json j) {
    data_ = std::move(j);
    parsed_ = true;
    std::string().swap(text_);
    return *this;
  }

  const Json& get() const { return parsed_ ? data_ : Parse(); }
  const Json& operator()() const { return get(); }
  operator const Json&() const { return get(); }  // NOLINT: implicit on purpose

  template <class K>
  bool contains(K&& key) const { return get().contains(std::forward<K>(key)); }
  template <class K>
  const Json& operator[](K&& key) const { return get()[std::forward<K>(key)]; }
  template <class... Args>
  decltype(auto) value(Args&&... args) const { return get().value(std::forward<Args>(args)...); }
  template <class K>
  Json::const_iterator find(K&& key) const { return get().find(std::forward<K>(key)); }
  Json::const_iterator begin() const { return get().cbegin(); }
  Json::const_iterator end() const { return get().cend(); }
  bool is_object() const { return get().is_object(); }
  friend bool operator==(const LazyJson& a, const Json& b) { return a.get() == b; }

  // For stores: the stored text, to be parsed on first use.
  void set_text(std::string text) {
    text_ = std::move(text);
    data_ = Json::object();
    parsed_ = false;
  }
  // The stored text while it has not been parsed, else nullptr.
  const std::string* unparsed_text() const { return parsed_ ? nullptr : &text_; }

 private:
  const Json& Parse() const;  // entry_codec.cc

  mutable std::string text_;
  mutable Json data_ = Json::object();
  mutable bool parsed_ = true;
};

// One node of the tree.
//
// The envelope fields are read when a session is opened; the rest of the
// record is parsed on first use of `data`. Opening a long session therefore
// costs a scan of the text, not a JSON document per line, and the agent
// parses only the entries it uses (after a compaction, the tail of the path).
struct Entry {
  std::string type;       // "message", "compaction", "label", ... or unknown
  std::string id;         // unique within the session (8 hex digits when sepp makes it)
  std::string parent_id;  // "" for a root
  std::string timestamp;  // ISO 8601, UTC
  // The whole entry object as stored: envelope fields (type, id, parentId,
  // timestamp) plus the payload, e.g. data["message"] for a message entry.
  LazyJson data;

  // Shorthands for stores and tests.
  void set_data(Json j) { data = std::move(j); }
  void set_text(std::string text) { data.set_text(std::move(text)); }
  const std::string* unparsed_text() const { return data.unparsed_text(); }
};

// Where a Session's appends go. Implemented by each store; callers of the
// session API never need it.
class EntrySink {
 public:
  virtual ~EntrySink() = default;
  // Persists one entry; line is its canonical JSON text (no newline).
  // On failure nothing must remain stored.
  virtual Status Write(const Entry& entry, const std::string& line) = 0;
};

class Session {
 public:
  // For stores: entries in stored order. Entries with a duplicate id are
  // dropped (with a warning); an entry whose parent is unknown or appears
  // later is treated as a root for path purposes (its parent_id is kept).
  // The leaf starts at the last entry. sink == nullptr means read-only.
  Session(SessionHeader header, std::vector<Entry> entries, std::unique_ptr<EntrySink> sink,
          std::string location);
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  ~Session();

  const SessionHeader& header() const { return header_; }
  const std::string& id() const { return header_.id; }
  // For people: the file path, or "sqlite:<db file>#<id>".
  const std::string& location() const { return location_; }
  bool writable() const { return sink_ != nullptr; }

  // Every entry in append order. Pointers and references into it stay valid
  // for the Session's lifetime (appends never move existing entries).
  const std::deque<Entry>& entries() const { return entries_; }
  size_t size() const { return entries_.size(); }
  const Entry* Find(std::string_view id) const;

  // The entry the next Append hangs off; "" before the first entry (or after
  // SetLeaf("")).
  const std::string& leaf() const { return leaf_; }

  // Root-to-entry path, both ends included: the model's context when id is a
  // leaf. Empty id means the current leaf. Unknown id → empty vector.
  std::vector<const Entry*> Path(std::string_view id = {}) const;
  std::vector<const Entry*> Children(std::string_view id) const;
  // The entry id hangs off in the tree; nullptr for a root (or an entry
  // whose parent is missing or appears later in the stored order).
  const Entry* Parent(std::string_view id) const;
  // Entries without children, in append order: the tips of all branches.
  std::vector<const Entry*> Leaves() const;
  // The latest label set on an entry, "" if none.
  std::string LabelOf(std::string_view id) const;

  // Appends an entry of `type` with the fields of `payload` (a JSON object, or
  // null for none). The envelope fields type/id/parentId/timestamp are set
  // here and override any in payload. The parent is `parent_id` if given (it
  // must exist), else the current leaf. Returns the new entry's id, which
  // becomes the leaf. Errors: read-only session, unknown parent, I/O.
  Result<std::string> Append(std::string_view type, Json payload = nullptr,
                             std::optional<std::string> parent_id = std::nullopt);
  // Append("message", {"message": message}).
  Result<std::string> AppendMessage(Json message);
  // Makes id (which must exist) the leaf, so the next append branches from
  // it. "" makes the next append a new root.
  Status SetLeaf(std::string_view id);
  // Appends a "label" entry naming target_id (which must exist); "" clears.
  Result<std::string> Label(std::string_view target_id, std::string_view label);

 private:
  Result<std::string> AppendLocked(std::string_view type, Json payload,
                                   std::optional<std::string> parent_id);
  void Index(size_t i);
  std::string UniqueEntryId() const;

  SessionHeader header_;
  std::deque<Entry> entries_;
  std::unordered_map<std::string_view, size_t> by_id_;  // views into entries_
  std::vector<ptrdiff_t> parent_;                       // index of parent, -1 for none
  std::vector<std::vector<size_t>> children_;
  std::unordered_map<std::string, std::string> labels_;
  std::string leaf_;
  std::unique_ptr<EntrySink> sink_;
  std::string location_;
  std::mutex write_mu_;  // serialises Append / SetLeaf / Label
};

// The first user prompt's text (first text block) and the number of
// "message" entries: what `sessions list` shows.
struct MessageStats {
  std::string first_prompt;
  size_t message_count = 0;
};
MessageStats ComputeMessageStats(const std::deque<Entry>& entries);
// Same for one entry, incrementally: updates stats with entry.
void AddToMessageStats(MessageStats& stats, const Entry& entry);

}  // namespace sepp::session
