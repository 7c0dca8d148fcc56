// Record encoding shared by the JSONL and SQLite stores.
//
// A record is one JSON object. Entries carry the envelope
//   {"type":"message","id":"1a2b3c4d","parentId":null|"...","timestamp":"2026-...Z", ...payload}
// and the session header is
//   {"type":"session","version":1,"id":..,"cwd":..,"created":..,"parent_session":..,
//    "provider":..,"model":..}
// Unknown fields are kept verbatim in Entry::data / SessionHeader::data, so a
// record read and written again comes out with the same content.
#include "session/entry_codec.h"

#include <algorithm>
#include <vector>

#include <cstdio>
#include <cstdlib>

#include "base/clock.h"
#include "base/log.h"
#include "base/secrets.h"
#include "base/strings.h"

namespace sepp::session {

std::string EncodeRecord(const Json& object, std::initializer_list<const char*> first) {
  if (!object.is_object()) return DumpJson(object);
  std::string out = "{";
  bool any = false;
  auto add = [&](const std::string& key, const Json& value) {
    if (any) out += ',';
    any = true;
    out += DumpJson(Json(key));
    out += ':';
    out += DumpJson(value);
  };
  for (const char* key : first) {
    auto it = object.find(key);
    if (it != object.end()) add(key, *it);
  }
  for (auto it = object.begin(); it != object.end(); ++it) {
    if (std::find_if(first.begin(), first.end(), [&](const char* k) { return it.key() == k; }) !=
        first.end())
      continue;
    add(it.key(), it.value());
  }
  out += '}';
  return out;
}

std::string EncodeEntry(const Entry& entry) {
  if (const std::string* text = entry.unparsed_text()) return std::string(Trim(*text));
  return EncodeRecord(entry.data(), {"type", "id", "parentId", "timestamp"});
}

std::string EncodeHeader(const SessionHeader& header) {
  return EncodeRecord(HeaderToJson(header), {"type", "version", "id", "cwd", "created",
                                             "parent_session", "provider", "model"});
}

void RedactStrings(Json& j) {
  if (j.is_string()) {
    const std::string& s = j.get_ref<const std::string&>();
    if (ContainsSecret(s)) j = Redact(s);
  } else if (j.is_array()) {
    for (auto& v : j) RedactStrings(v);
  } else if (j.is_object()) {
    bool key_has_secret = false;
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (ContainsSecret(it.key())) key_has_secret = true;
      RedactStrings(it.value());
    }
    if (key_has_secret) {
      Json clean = Json::object();
      for (auto it = j.begin(); it != j.end(); ++it) clean[Redact(it.key())] = std::move(it.value());
      j = std::move(clean);
    }
  }
}

Result<Json> ParseRecord(std::string_view text) {
  Result<Json> parsed = ParseJson(text);
  if (!parsed.ok() && !IsValidUtf8(text)) parsed = ParseJson(SanitizeUtf8(text));
  if (!parsed.ok()) return parsed.error();
  if (!parsed->is_object()) return Error::Make("record is not a JSON object", "invalid_record");
  return parsed;
}

namespace {

std::string StringField(const Json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return {};
  return it->get<std::string>();
}

}  // namespace

Result<Entry> EntryFromJson(Json object) {
  if (!object.is_object()) return Error::Make("entry is not a JSON object", "invalid_record");
  auto type = object.find("type");
  auto id = object.find("id");
  if (type == object.end() || !type->is_string() || type->get_ref<const std::string&>().empty())
    return Error::Make("entry has no \"type\"", "invalid_record");
  if (id == object.end() || !id->is_string() || id->get_ref<const std::string&>().empty())
    return Error::Make("entry has no \"id\"", "invalid_record");
  auto parent = object.find("parentId");
  if (parent != object.end() && !parent->is_null() && !parent->is_string())
    return Error::Make("entry's \"parentId\" is neither a string nor null", "invalid_record");
  Entry e;
  e.type = type->get<std::string>();
  e.id = id->get<std::string>();
  if (parent != object.end() && parent->is_string()) e.parent_id = parent->get<std::string>();
  e.timestamp = StringField(object, "timestamp");
  e.set_data(std::move(object));
  return e;
}

Result<SessionHeader> HeaderFromJson(Json object) {
  if (!object.is_object() || StringField(object, "type") != "session")
    return Error::Make("the first record is not a session header", "invalid_header");
  SessionHeader h;
  h.id = StringField(object, "id");
  if (!IsValidSessionId(h.id))
    return Error::Make("the session header has no valid \"id\"", "invalid_header");
  h.cwd = StringField(object, "cwd");
  h.created = StringField(object, "created");
  h.parent_session = StringField(object, "parent_session");
  h.provider = StringField(object, "provider");
  h.model = StringField(object, "model");
  h.data = std::move(object);
  return h;
}

Json HeaderToJson(const SessionHeader& header) {
  Json j = header.data.is_object() ? header.data : Json::object();
  j["type"] = "session";
  if (!j.contains("version")) j["version"] = 1;
  j["id"] = header.id;
  j["cwd"] = header.cwd;
  j["created"] = header.created;
  if (header.parent_session.empty())
    j.erase("parent_session");
  else
    j["parent_session"] = header.parent_session;
  j["provider"] = header.provider;
  j["model"] = header.model;
  return j;
}

Status PrepareImport(SessionHeader& header, std::vector<Entry>& entries) {
  if (!IsValidSessionId(header.id))
    return Error::Make("invalid session id \"" + header.id + "\"", "invalid_argument");
  Json hj = HeaderToJson(header);
  RedactStrings(hj);
  Result<SessionHeader> h = HeaderFromJson(std::move(hj));
  if (!h.ok()) return h.error();
  header = std::move(*h);
  for (Entry& in : entries) {
    Json data = in.data();
    RedactStrings(data);
    Result<Entry> e = EntryFromJson(std::move(data));
    if (!e.ok())
      return Error::Make("cannot import entry \"" + in.id + "\": " + e.error().message,
                         "invalid_argument");
    in = std::move(*e);
  }
  return Ok();
}

std::optional<int64_t> ParseIso8601Ms(std::string_view text) {
  // YYYY-MM-DDTHH:MM:SS[.fff]Z
  int y, mo, d, h, mi, s;
  char tail[16] = {0};
  std::string str(text.substr(0, 40));
  if (std::sscanf(str.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%15s", &y, &mo, &d, &h, &mi, &s, tail) < 6)
    return std::nullopt;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) return std::nullopt;
  int ms = 0;
  if (tail[0] == '.') ms = std::atoi(tail + 1) % 1000;
  // Days from civil (Howard Hinnant's algorithm).
  y -= mo <= 2;
  const int era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  int64_t days = int64_t(era) * 146097 + int64_t(doe) - 719468;
  return ((days * 24 + h) * 60 + mi) * 60000 + int64_t(s) * 1000 + ms;
}

int64_t LastWriteMs(const SessionHeader& header, const std::vector<Entry>& entries) {
  std::optional<int64_t> t = ParseIso8601Ms(header.created);
  if (!entries.empty())
    if (auto last = ParseIso8601Ms(entries.back().timestamp); last && (!t || *last > *t)) t = last;
  return t ? *t : NowMs();
}

// The envelope scan. It walks the top-level object of one JSON text, noting
// the string values of "type", "id", "parentId" (or null) and "timestamp",
// and skips every other value by structure alone: strings (escapes and
// control characters respected), balanced {} / [] nesting, and bare literals.
// It does not check numbers, literals or UTF-8 inside skipped values; data()
// does, when the entry is used. Any surprise returns false and the caller
// falls back to a full parse.
namespace {

class EnvelopeScanner {
 public:
  explicit EnvelopeScanner(std::string_view text) : p_(text.data()), end_(text.data() + text.size()) {}

  bool Scan(Entry& e) {
    bool have_type = false, have_id = false, parent_ok = true, time_ok = true;
    SkipWs();
    if (!Eat('{')) return false;
    SkipWs();
    if (Eat('}')) return false;  // {} has no envelope
    for (;;) {
      SkipWs();
      std::string_view key;
      bool escaped = false;
      if (!String(key, escaped)) return false;
      SkipWs();
      if (!Eat(':')) return false;
      SkipWs();
      int which = escaped ? -1 : key == "type" ? 0 : key == "id" ? 1 : key == "parentId" ? 2
                                                 : key == "timestamp" ? 3 : -1;
      if (which >= 0 && p_ < end_ && *p_ == '"') {
        std::string_view value;
        bool value_escaped = false;
        if (!String(value, value_escaped) || value_escaped || !IsValidUtf8(value)) return false;
        std::string v(value);
        if (which == 0) e.type = std::move(v), have_type = true;
        if (which == 1) e.id = std::move(v), have_id = true;
        if (which == 2) e.parent_id = std::move(v), parent_ok = true;
        if (which == 3) e.timestamp = std::move(v), time_ok = true;
      } else {
        const char* start = p_;
        if (!SkipValue()) return false;
        if (which == 0) have_type = false;
        if (which == 1) have_id = false;
        if (which == 2) parent_ok = std::string_view(start, p_ - start) == "null", e.parent_id.clear();
        if (which == 3) time_ok = false;
      }
      SkipWs();
      if (Eat(',')) continue;
      if (Eat('}')) break;
      return false;
    }
    SkipWs();
    return p_ == end_ && have_type && have_id && parent_ok && time_ok && !e.type.empty() &&
           !e.id.empty();
  }

 private:
  void SkipWs() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\r' || *p_ == '\n')) ++p_;
  }
  bool Eat(char c) {
    if (p_ < end_ && *p_ == c) {
      ++p_;
      return true;
    }
    return false;
  }
  // At a '"': the raw contents up to the closing quote.
  bool String(std::string_view& out, bool& escaped) {
    if (!Eat('"')) return false;
    const char* start = p_;
    while (p_ < end_) {
      unsigned char c = static_cast<unsigned char>(*p_);
      if (c == '"') {
        out = std::string_view(start, p_ - start);
        ++p_;
        return true;
      }
      if (c == '\\') {
        if (end_ - p_ < 2) return false;
        escaped = true;
        p_ += 2;
        continue;
      }
      if (c < 0x20) return false;
      ++p_;
    }
    return false;
  }
  bool SkipValue() {
    if (p_ >= end_) return false;
    char c = *p_;
    if (c == '"') {
      std::string_view ignored;
      bool escaped = false;
      return String(ignored, escaped);
    }
    if (c == '{' || c == '[') {
      std::string closers;
      while (p_ < end_) {
        char d = *p_;
        if (d == '"') {
          std::string_view ignored;
          bool escaped = false;
          if (!String(ignored, escaped)) return false;
          continue;
        }
        if (d == '{') closers.push_back('}');
        else if (d == '[') closers.push_back(']');
        else if (d == '}' || d == ']') {
          if (closers.empty() || closers.back() != d) return false;
          closers.pop_back();
          if (closers.empty()) {
            ++p_;
            return true;
          }
        }
        ++p_;
      }
      return false;
    }
    if (c != '-' && !(c >= '0' && c <= '9') && c != 't' && c != 'f' && c != 'n') return false;
    const char* start = p_;
    while (p_ < end_ && *p_ != ',' && *p_ != '}' && *p_ != ']' && *p_ != ' ' && *p_ != '\t' &&
           *p_ != '\r' && *p_ != '\n')
      ++p_;
    return p_ > start;
  }

  const char* p_;
  const char* end_;
};

}  // namespace

Result<Entry> EntryFromText(std::string_view text) {
  Entry e;
  if (EnvelopeScanner(text).Scan(e)) {
    e.set_text(std::string(text));
    return e;
  }
  Result<Json> record = ParseRecord(text);
  if (!record.ok()) return record.error();
  return EntryFromJson(std::move(*record));
}

const Json& LazyJson::Parse() const {
  parsed_ = true;
  Result<Json> j = ParseRecord(text_);
  if (j.ok()) {
    data_ = std::move(*j);
  } else {
    // The envelope scanned fine when the entry was read; keep just that.
    Entry e;
    EnvelopeScanner(text_).Scan(e);
    log::Warn("session entry " + e.id + " is unreadable past its envelope (" + j.error().message +
              "); using the envelope alone");
    data_ = Json::object();
    data_["type"] = e.type;
    data_["id"] = e.id;
    data_["parentId"] = e.parent_id.empty() ? Json(nullptr) : Json(e.parent_id);
    if (!e.timestamp.empty()) data_["timestamp"] = e.timestamp;
  }
  std::string().swap(text_);
  return data_;
}

namespace {
bool IdChar(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
         c == '-';
}
}  // namespace

bool IsValidSessionId(std::string_view id) {
  return !id.empty() && id.size() <= 64 && std::all_of(id.begin(), id.end(), IdChar);
}

bool IsValidIdPrefix(std::string_view prefix) { return IsValidSessionId(prefix); }

}  // namespace sepp::session
