#include "front/tui/diff_view.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace sepp::front::tui {
namespace {

// Lines longer than this (in units) are not word-diffed: the LCS table is
// units(a) x units(b) and a changed line is shown whole anyway.
constexpr size_t kMaxUnits = 400;

enum class Kind { kContext, kRemoved, kAdded, kHunk, kNote };

struct DiffLine {
  Kind kind;
  std::string_view text;  // without the sign
  long old_no = 0, new_no = 0;
  WordChanges changes = {};
  DiffLine(Kind k, std::string_view t, long o = 0, long n = 0) : kind(k), text(t), old_no(o), new_no(n) {}
};

bool IsWordByte(unsigned char c) { return std::isalnum(c) || c == '_' || c >= 0x80; }

// Units: [begin, end) byte ranges.
std::vector<std::pair<size_t, size_t>> Units(std::string_view s) {
  std::vector<std::pair<size_t, size_t>> out;
  for (size_t i = 0; i < s.size();) {
    size_t j = i + 1;
    auto c = static_cast<unsigned char>(s[i]);
    if (IsWordByte(c)) {
      while (j < s.size() && IsWordByte(static_cast<unsigned char>(s[j]))) ++j;
    } else if (c == ' ' || c == '\t') {
      while (j < s.size() && (s[j] == ' ' || s[j] == '\t')) ++j;
    }
    out.emplace_back(i, j);
    i = j;
  }
  return out;
}

// Adjacent changed units become one range.
void AddRange(std::vector<std::pair<size_t, size_t>>* ranges, std::pair<size_t, size_t> r) {
  if (!ranges->empty() && ranges->back().second == r.first) ranges->back().second = r.second;
  else ranges->push_back(r);
}

// "@@ -12,3 +12,4 @@": the first old and new line numbers.
bool ParseHunk(std::string_view line, long* old_no, long* new_no) {
  if (!line.starts_with("@@ -")) return false;
  std::string s(line);
  long a = 0, b = 0;
  size_t plus = s.find(" +");
  if (plus == std::string::npos) return false;
  a = std::strtol(s.c_str() + 4, nullptr, 10);
  b = std::strtol(s.c_str() + plus + 2, nullptr, 10);
  *old_no = a;
  *new_no = b;
  return true;
}

}  // namespace

WordChanges ChangedWords(std::string_view a, std::string_view b) {
  WordChanges out;
  auto ua = Units(a), ub = Units(b);
  if (ua.size() > kMaxUnits || ub.size() > kMaxUnits) return out;
  auto unit = [](std::string_view s, std::pair<size_t, size_t> r) { return s.substr(r.first, r.second - r.first); };
  // lcs[i][j]: the common subsequence of ua[i..] and ub[j..].
  size_t n = ua.size(), m = ub.size();
  std::vector<uint16_t> lcs((n + 1) * (m + 1), 0);
  auto at = [&](size_t i, size_t j) -> uint16_t& { return lcs[i * (m + 1) + j]; };
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;)
      at(i, j) = unit(a, ua[i]) == unit(b, ub[j]) ? static_cast<uint16_t>(at(i + 1, j + 1) + 1)
                                                  : std::max(at(i + 1, j), at(i, j + 1));
  // Nothing in common but spaces: the line was rewritten, not edited.
  bool shared_word = false;
  size_t i = 0, j = 0;
  while (i < n && j < m) {
    if (unit(a, ua[i]) == unit(b, ub[j])) {
      if (a[ua[i].first] != ' ' && a[ua[i].first] != '\t') shared_word = true;
      ++i, ++j;
    } else if (at(i + 1, j) >= at(i, j + 1)) {
      AddRange(&out.in_old, ua[i++]);
    } else {
      AddRange(&out.in_new, ub[j++]);
    }
  }
  while (i < n) AddRange(&out.in_old, ua[i++]);
  while (j < m) AddRange(&out.in_new, ub[j++]);
  if (!shared_word) return WordChanges{};
  return out;
}

std::vector<Line> DiffLines(std::string_view diff, const Theme& theme, size_t max_lines, size_t* omitted) {
  std::vector<DiffLine> lines;
  long old_no = 0, new_no = 0, widest = 1;
  bool in_hunk = false;
  while (!diff.empty()) {
    size_t nl = diff.find('\n');
    std::string_view line = diff.substr(0, nl);
    diff.remove_prefix(nl == std::string_view::npos ? diff.size() : nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.starts_with("@@")) {
      in_hunk = ParseHunk(line, &old_no, &new_no);
      lines.emplace_back(Kind::kHunk, line);
      continue;
    }
    if (!in_hunk) continue;  // the ---/+++ header and anything before a hunk
    if (line.starts_with("-")) {
      lines.emplace_back(Kind::kRemoved, line.substr(1), old_no++, 0);
    } else if (line.starts_with("+")) {
      lines.emplace_back(Kind::kAdded, line.substr(1), 0, new_no++);
    } else if (line.starts_with(" ")) {
      lines.emplace_back(Kind::kContext, line.substr(1), old_no++, new_no++);
    } else if (!line.empty()) {
      // "\ No newline at end of file", or text after the diff (the edit
      // tool's "[Diff truncated ...]"), which ends the hunk.
      in_hunk = line.starts_with("\\");
      lines.emplace_back(Kind::kNote, line);
    }
  }
  for (const DiffLine& d : lines) widest = std::max({widest, d.old_no, d.new_no});
  // Pair the i-th removed line of a run with the i-th added line after it.
  for (size_t k = 0; k < lines.size();) {
    if (lines[k].kind != Kind::kRemoved) {
      ++k;
      continue;
    }
    size_t removed_end = k;
    while (removed_end < lines.size() && lines[removed_end].kind == Kind::kRemoved) ++removed_end;
    size_t added_end = removed_end;
    while (added_end < lines.size() && lines[added_end].kind == Kind::kAdded) ++added_end;
    size_t pairs = std::min(removed_end - k, added_end - removed_end);
    for (size_t p = 0; p < pairs; ++p) {
      DiffLine& r = lines[k + p];
      DiffLine& a = lines[removed_end + p];
      WordChanges c = ChangedWords(r.text, a.text);
      if (c.in_old.empty() && c.in_new.empty()) continue;
      r.changes.in_old = std::move(c.in_old);
      a.changes.in_new = std::move(c.in_new);
    }
    k = added_end;
  }
  int width = static_cast<int>(std::to_string(widest).size());
  auto number = [&](long n) {
    std::string s = n > 0 ? std::to_string(n) : "";
    return std::string(static_cast<size_t>(width) - std::min(s.size(), static_cast<size_t>(width)), ' ') + s;
  };
  Style changed_removed = theme.diff_removed, changed_added = theme.diff_added;
  changed_removed.inverse = changed_added.inverse = true;
  std::vector<Line> out;
  size_t total = lines.size();
  if (max_lines > 0 && total > max_lines) lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(max_lines), lines.end());
  if (omitted) *omitted = total - lines.size();
  for (const DiffLine& d : lines) {
    Line l;
    l.Add("  ");
    switch (d.kind) {
      case Kind::kHunk: l.Add(std::string(static_cast<size_t>(width) * 2 + 1, ' ') + " \u22ee", theme.diff_hunk); break;
      case Kind::kNote: l.Add(std::string(static_cast<size_t>(width) * 2 + 3, ' '), theme.muted).Add(d.text, theme.muted); break;
      case Kind::kContext:
        l.Add(number(d.old_no) + " " + number(d.new_no) + "   ", theme.muted).Add(d.text);
        break;
      case Kind::kRemoved:
      case Kind::kAdded: {
        bool removed = d.kind == Kind::kRemoved;
        const Style& base = removed ? theme.diff_removed : theme.diff_added;
        l.Add(number(d.old_no) + " " + number(d.new_no) + " ", theme.muted).Add(removed ? "- " : "+ ", base);
        const auto& ranges = removed ? d.changes.in_old : d.changes.in_new;
        size_t at = 0;
        for (auto [b, e] : ranges) {
          l.Add(d.text.substr(at, b - at), base).Add(d.text.substr(b, e - b), removed ? changed_removed : changed_added);
          at = e;
        }
        l.Add(d.text.substr(at), base);
        break;
      }
    }
    out.push_back(std::move(l));
  }
  return out;
}

}  // namespace sepp::front::tui
