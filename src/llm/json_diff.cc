#include "llm/json_diff.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "base/strings.h"

namespace sepp::llm {
namespace {

constexpr size_t kShown = 120;  // bytes of each value shown

// JSON-escaped (so control characters never reach a terminal) and cut to
// kShown bytes around `from`.
std::string Printable(std::string_view s, size_t from) {
  size_t start = from > kShown / 3 ? from - kShown / 3 : 0;
  while (start > 0 && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80) --start;
  std::string_view window = s.substr(start);
  std::string cut(window.substr(0, Utf8SafePrefix(window, kShown)));
  std::string out = DumpJson(Json(cut));
  if (start > 0) out = "..." + out;
  if (cut.size() < window.size()) out += "...";
  return out;
}

std::string PrintableJson(const Json& j) {
  std::string text = DumpJson(j);
  if (text.size() <= kShown) return text;
  return text.substr(0, Utf8SafePrefix(text, kShown)) + "...";
}

// A key as a path element: plain keys as they are, any other JSON-quoted
// (a hostile cassette's keys must not drive the terminal either).
std::string KeyPath(const std::string& path, const std::string& key) {
  bool plain = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
  if (plain) return path.empty() ? key : path + "." + key;
  return path + "[" + DumpJson(Json(key)) + "]";
}

class Differ {
 public:
  Differ(size_t max) : max_(max) {}

  void Walk(const Json& a, const Json& b, const std::string& path) {
    if (a == b) return;
    if (a.is_object() && b.is_object()) {
      std::set<std::string> keys;
      for (const auto& [k, v] : a.items()) keys.insert(k);
      for (const auto& [k, v] : b.items()) keys.insert(k);
      for (const auto& k : keys) {
        std::string p = KeyPath(path, k);
        auto ia = a.find(k), ib = b.find(k);
        if (ia == a.end()) Add(p, "(absent)", PrintableJson(*ib));
        else if (ib == b.end()) Add(p, PrintableJson(*ia), "(absent)");
        else Walk(*ia, *ib, p);
      }
      return;
    }
    if (a.is_array() && b.is_array()) {
      size_t n = std::max(a.size(), b.size());
      for (size_t i = 0; i < n; ++i) {
        std::string p = path + "[" + std::to_string(i) + "]";
        if (i >= a.size()) Add(p, "(absent)", PrintableJson(b[i]));
        else if (i >= b.size()) Add(p, PrintableJson(a[i]), "(absent)");
        else Walk(a[i], b[i], p);
      }
      return;
    }
    if (a.is_string() && b.is_string()) return Strings(a.get_ref<const std::string&>(),
                                                       b.get_ref<const std::string&>(), path);
    Add(path, PrintableJson(a), PrintableJson(b));
  }

  std::vector<JsonDifference> shown;
  size_t total = 0;

 private:
  void Strings(const std::string& a, const std::string& b, const std::string& path) {
    if (a.find('\n') == std::string::npos && b.find('\n') == std::string::npos) {
      size_t at = std::mismatch(a.begin(), a.begin() + std::min(a.size(), b.size()), b.begin()).first - a.begin();
      return Add(path, Printable(a, at), Printable(b, at));
    }
    auto la = Split(a, '\n'), lb = Split(b, '\n');
    size_t line = 0;
    while (line < la.size() && line < lb.size() && la[line] == lb[line]) ++line;
    std::string p = path + ", line " + std::to_string(line + 1);
    auto at = [](const std::vector<std::string>& lines, size_t i, const std::string& other) {
      if (i >= lines.size()) return std::string("(absent)");
      size_t from = std::mismatch(lines[i].begin(), lines[i].begin() + std::min(lines[i].size(), other.size()),
                                  other.begin()).first - lines[i].begin();
      return Printable(lines[i], from);
    };
    Add(p, at(la, line, line < lb.size() ? lb[line] : ""), at(lb, line, line < la.size() ? la[line] : ""));
  }

  void Add(std::string path, std::string recorded, std::string now) {
    ++total;
    if (shown.size() < max_) shown.push_back({path.empty() ? "(the whole value)" : std::move(path),
                                              std::move(recorded), std::move(now)});
  }

  size_t max_;
};

}  // namespace

std::vector<JsonDifference> DiffJson(const Json& recorded, const Json& now, size_t max, size_t* total) {
  Differ d(max);
  d.Walk(recorded, now, "");
  if (total) *total = d.total;
  return std::move(d.shown);
}

std::string FormatDifferences(const std::vector<JsonDifference>& shown, size_t total) {
  std::string out;
  for (const auto& d : shown) {
    out += "  " + d.path + "\n    recorded: " + d.recorded + "\n    now:      " + d.now + "\n";
  }
  if (total > shown.size()) out += "  (" + std::to_string(total - shown.size()) + " more differences)\n";
  return out;
}

}  // namespace sepp::llm
