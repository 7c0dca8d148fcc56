// The segment matcher is the classic linear backtracking over the last `*`
// (no recursion, so hostile patterns cannot blow up); the `**` matcher
// recurses over segments with a memo of (pattern, path) positions, which is
// small because paths have few segments.
#include "tools/glob.h"

#include <algorithm>

namespace sepp::tools {
namespace {

constexpr size_t kMaxAlternatives = 1024;

size_t Utf8Len(unsigned char lead) {
  if (lead < 0x80) return 1;
  if ((lead >> 5) == 0x6) return 2;
  if ((lead >> 4) == 0xE) return 3;
  if ((lead >> 3) == 0x1E) return 4;
  return 1;
}

// A bracket class at pattern[p] == '['. Returns the class length (through
// ']'), or 0 if it is not a well-formed class; *hit says whether c is in it.
size_t MatchClass(std::string_view pat, size_t p, unsigned char c, bool* hit) {
  size_t i = p + 1;
  bool negate = false;
  if (i < pat.size() && (pat[i] == '!' || pat[i] == '^')) negate = true, ++i;
  bool found = false;
  bool first = true;
  while (i < pat.size() && (pat[i] != ']' || first)) {
    first = false;
    unsigned char lo = static_cast<unsigned char>(pat[i]);
    if (lo == '\\' && i + 1 < pat.size()) lo = static_cast<unsigned char>(pat[++i]);
    unsigned char hi = lo;
    if (i + 2 < pat.size() && pat[i + 1] == '-' && pat[i + 2] != ']') {
      hi = static_cast<unsigned char>(pat[i + 2]);
      if (hi == '\\' && i + 3 < pat.size()) hi = static_cast<unsigned char>(pat[++i + 2]);
      i += 2;
    }
    if (c >= lo && c <= hi) found = true;
    ++i;
  }
  if (i >= pat.size()) return 0;  // no closing ']'
  *hit = found != negate;
  return i + 1 - p;
}

// Expands {a,b} alternatives into out; returns false when there are too many.
bool ExpandBraces(const std::string& pattern, std::vector<std::string>& out) {
  // Find the first balanced top-level "{...}" that contains a ','.
  size_t open = std::string::npos;
  for (size_t i = 0; i < pattern.size(); ++i) {
    char c = pattern[i];
    if (c == '\\') {
      ++i;
      continue;
    }
    if (c != '{') continue;
    int depth = 0;
    std::vector<size_t> commas;
    size_t close = std::string::npos;
    for (size_t j = i; j < pattern.size(); ++j) {
      if (pattern[j] == '\\') {
        ++j;
        continue;
      }
      if (pattern[j] == '{') ++depth;
      if (pattern[j] == '}' && --depth == 0) {
        close = j;
        break;
      }
      if (pattern[j] == ',' && depth == 1) commas.push_back(j);
    }
    if (close == std::string::npos) return out.size() < kMaxAlternatives ? (out.push_back(pattern), true) : false;
    if (commas.empty()) continue;  // "{x}" is literal
    open = i;
    std::string head = pattern.substr(0, open), tail = pattern.substr(close + 1);
    size_t from = open + 1;
    commas.push_back(close);
    for (size_t c : commas) {
      if (!ExpandBraces(head + pattern.substr(from, c - from) + tail, out)) return false;
      from = c + 1;
    }
    return true;
  }
  if (out.size() >= kMaxAlternatives) return false;
  out.push_back(pattern);
  return true;
}

bool MatchFrom(const std::vector<std::string>& pat, size_t pi, const std::vector<std::string_view>& path,
               size_t ti, std::vector<signed char>& memo) {
  size_t w = path.size() + 1;
  signed char& m = memo[pi * w + ti];
  if (m >= 0) return m;
  bool r;
  if (pi == pat.size()) {
    r = ti == path.size();
  } else if (pat[pi] == "**") {
    if (pi + 1 == pat.size()) {
      r = ti < path.size();  // "a/**": something inside
    } else {
      r = false;
      for (size_t k = ti; k <= path.size() && !r; ++k) r = MatchFrom(pat, pi + 1, path, k, memo);
    }
  } else {
    r = ti < path.size() && MatchSegment(pat[pi], path[ti]) && MatchFrom(pat, pi + 1, path, ti + 1, memo);
  }
  m = r ? 1 : 0;
  return r;
}

}  // namespace

bool MatchSegment(std::string_view pat, std::string_view text) {
  size_t p = 0, t = 0;
  size_t star_p = std::string_view::npos, star_t = 0;
  while (t < text.size()) {
    if (p < pat.size()) {
      char c = pat[p];
      if (c == '*') {
        while (p < pat.size() && pat[p] == '*') ++p;
        star_p = p;
        star_t = t;
        continue;
      }
      if (c == '?') {
        ++p;
        t += std::min(Utf8Len(static_cast<unsigned char>(text[t])), text.size() - t);
        continue;
      }
      size_t adv = 1;
      bool literal = true;
      if (c == '[') {
        bool hit = false;
        size_t len = MatchClass(pat, p, static_cast<unsigned char>(text[t]), &hit);
        if (len > 0) {
          literal = false;
          if (hit) {
            p += len;
            ++t;
            continue;
          }
        }
      } else if (c == '\\' && p + 1 < pat.size()) {
        c = pat[p + 1];
        adv = 2;
      }
      if (literal && c == text[t]) {
        p += adv;
        ++t;
        continue;
      }
    }
    if (star_p == std::string_view::npos) return false;
    p = star_p;
    t = ++star_t;
  }
  while (p < pat.size() && pat[p] == '*') ++p;
  return p == pat.size();
}

std::vector<std::string_view> SplitPath(std::string_view path) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    size_t end = slash == std::string_view::npos ? path.size() : slash;
    if (end > start) parts.push_back(path.substr(start, end - start));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return parts;
}

bool MatchSegments(const std::vector<std::string>& pattern, const std::vector<std::string_view>& path) {
  std::vector<signed char> memo((pattern.size() + 1) * (path.size() + 1), -1);
  return MatchFrom(pattern, 0, path, 0, memo);
}

Result<Glob> Glob::Compile(std::string_view pattern) {
  std::string p(pattern);
  while (p.rfind("./", 0) == 0) p.erase(0, 2);
  if (!p.empty() && p[0] == '/') p.erase(0, p.find_first_not_of('/'));
  if (p.empty()) return Error::Make("The glob pattern is empty.", "invalid_args");
  std::vector<std::string> expanded;
  if (!ExpandBraces(p, expanded))
    return Error::Make("The glob pattern has too many {a,b} alternatives (more than 1024).",
                       "invalid_args");
  Glob g;
  for (const auto& alt : expanded) {
    Alternative a;
    for (auto s : SplitPath(alt)) a.segments.emplace_back(s);
    a.name_only = alt.find('/') == std::string::npos && a.segments.size() == 1 && a.segments[0] != "**";
    if (!a.segments.empty()) g.alternatives_.push_back(std::move(a));
  }
  if (g.alternatives_.empty()) return Error::Make("The glob pattern is empty.", "invalid_args");
  return g;
}

bool Glob::matches_name_only() const {
  return std::all_of(alternatives_.begin(), alternatives_.end(),
                     [](const Alternative& a) { return a.name_only; });
}

bool Glob::Matches(std::string_view rel_path) const {
  auto path = SplitPath(rel_path);
  if (path.empty()) return false;
  for (const auto& alt : alternatives_) {
    if (alt.name_only ? MatchSegment(alt.segments[0], path.back()) : MatchSegments(alt.segments, path))
      return true;
  }
  return false;
}

}  // namespace sepp::tools
