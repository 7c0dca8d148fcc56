#include "tools/fuzzy.h"

#include <algorithm>
#include <array>
#include <bit>

namespace sepp::tools {
namespace {

constexpr int kMatch = 16;
constexpr int kWordStart = 24;   // after '/', '_', '-', '.', ' ' or at 0
constexpr int kCamel = 16;       // a lower→upper step
constexpr int kInName = 12;      // in the last path segment
constexpr int kConsecutive = 18; // right after the previous matched character
constexpr int kCaseMatch = 4;    // smart case: the same case as the query
constexpr int kTypo = 30;        // a query character with no match
constexpr int kNegInf = -1'000'000;

inline unsigned char Lower(unsigned char c) { return (c >= 'A' && c <= 'Z') ? c + 32 : c; }

inline int CharBit(unsigned char c) {
  c = Lower(c);
  if (c >= 'a' && c <= 'z') return c - 'a';
  if (c >= '0' && c <= '9') return 26 + (c - '0');
  switch (c) {
    case '.': return 36;
    case '_': return 37;
    case '-': return 38;
    case '/': return 39;
    default: return c >= 0x80 ? 40 : -1;
  }
}

inline bool Separator(unsigned char c) {
  return c == '/' || c == '_' || c == '-' || c == '.' || c == ' ';
}

}  // namespace

uint64_t CharMask(std::string_view text) {
  uint64_t m = 0;
  for (unsigned char c : text)
    if (int b = CharBit(c); b >= 0) m |= uint64_t{1} << b;
  return m;
}

FuzzyQuery::FuzzyQuery(std::string_view word) {
  if (word.size() > 64) word = word.substr(0, 64);
  original_ = std::string(word);
  lower_.reserve(word.size());
  for (unsigned char c : word) {
    if (c >= 'A' && c <= 'Z') smart_case_ = true;
    lower_.push_back(static_cast<char>(Lower(c)));
  }
  mask_ = CharMask(lower_);
  for (size_t j = 0; j < lower_.size(); ++j) {
    unsigned char c = lower_[j];
    peq_[c] |= uint64_t{1} << j;
    if (c >= 'a' && c <= 'z') peq_[c - 32] |= uint64_t{1} << j;  // the upper-case byte too
  }
  // Like FFF's max_typos: none for short words, then one per four characters, at most two.
  max_typos_ = lower_.size() < 4 ? 0 : std::min<int>(2, static_cast<int>(lower_.size() / 4));
}

FuzzyQuery::State FuzzyQuery::Start() const {
  State s;
  const int m = static_cast<int>(lower_.size());
  for (int j = 0; j <= m; ++j) s.cell[j] = {kNegInf, 0, kNegInf, 0, -2};
  s.cell[0].best = 0;
  for (int j = 0; j < m && max_typos_; ++j) {  // typos before the first character
    auto &a = s.cell[j], &b = s.cell[j + 1];
    if (a.best > kNegInf && a.best_typos < max_typos_ && a.best - kTypo > b.best)
      b.best = a.best - kTypo, b.best_typos = a.best_typos + 1;
  }
  return s;
}

void FuzzyQuery::Advance(State& s, std::string_view path, size_t to, size_t name_start) const {
  const int m = static_cast<int>(lower_.size());
  auto& cell = s.cell;
  uint64_t v = s.lcs;
  for (int i = s.len; i < static_cast<int>(to); ++i) {
    unsigned char c = path[i];
    uint64_t hits = peq_[c];
    if (!hits) continue;
    uint64_t u = v & hits;  // bit-parallel LCS (Hyyrö)
    v = (v + u) | (v - u);
    unsigned char prev = i ? static_cast<unsigned char>(path[i - 1]) : '/';
    int bonus = kMatch;
    if (Separator(prev)) bonus += kWordStart;
    else if (c >= 'A' && c <= 'Z' && prev >= 'a' && prev <= 'z') bonus += kCamel;
    if (static_cast<size_t>(i) >= name_start) bonus += kInName;
    // Only the query positions this character hits, highest first: cell j
    // is read before this character writes it (at j - 1). A run goes on
    // only from the previous position, so a stale run needs no clearing.
    for (uint64_t h = hits; h;) {
      int j = 63 - std::countl_zero(h);
      h &= ~(uint64_t{1} << j);
      const State::Cell& at = cell[j];
      int b = bonus + (smart_case_ && original_[j] == static_cast<char>(c) ? kCaseMatch : 0);
      int sc = kNegInf, t = 0;
      if (at.best > kNegInf) sc = at.best + b, t = at.best_typos;
      if (at.run_at == i - 1 && at.run + b + kConsecutive > sc)
        sc = at.run + b + kConsecutive, t = at.run_typos;
      if (sc == kNegInf) continue;
      State::Cell& next = cell[j + 1];
      next.run = sc, next.run_typos = t, next.run_at = i;
      if (sc > next.best) next.best = sc, next.best_typos = t;
    }
    // Typos carried forward from the cells this character changed (just
    // above its hits). A chain of carries adds a typo per step, so it ends
    // max_typos cells above the highest change: the cells beyond already
    // hold every carry from an earlier step.
    if (max_typos_) {
      const int last = std::min(m - 1, 64 - std::countl_zero(hits) + max_typos_ - 1);
      for (int j = std::countr_zero(hits) + 1; j <= last; ++j) {
        auto &a = cell[j], &b = cell[j + 1];
        if (a.best > kNegInf && a.best_typos < max_typos_ && a.best - kTypo > b.best)
          b.best = a.best - kTypo, b.best_typos = a.best_typos + 1;
      }
    }
  }
  s.lcs = v;
  s.len = static_cast<int>(to);
}

int FuzzyQuery::ScoreFrom(const State& from, std::string_view path, size_t name_start,
                          uint64_t path_mask) const {
  const int m = static_cast<int>(lower_.size());
  if (m == 0 || !MayMatch(path_mask)) return 0;
  // The LCS alone first: most paths that cannot match stop here.
  uint64_t v = from.lcs;
  for (size_t i = from.len; i < path.size(); ++i) {
    uint64_t u = v & peq_[static_cast<unsigned char>(path[i])];
    v = (v + u) | (v - u);
  }
  uint64_t all = m == 64 ? ~uint64_t{0} : ((uint64_t{1} << m) - 1);
  if (!AtMostBits(v & all, max_typos_)) return 0;  // fewer than m - max_typos in common
  State s;
  s.len = from.len;
  s.lcs = from.lcs;
  std::copy_n(from.cell.begin(), m + 1, s.cell.begin());
  Advance(s, path, path.size(), name_start);
  int best = s.cell[m].best;
  if (best <= 0) return best > kNegInf ? 1 : 0;
  return best;
}

int FuzzyQuery::Score(std::string_view path, size_t name_start, uint64_t path_mask) const {
  return ScoreFrom(Start(), path, name_start, path_mask);
}

int FuzzyScanner::Score(std::string_view path, size_t name_start, uint64_t path_mask) {
  if (q_.word().empty() || !q_.MayMatch(path_mask)) return 0;
  std::string_view dir = path.substr(0, std::min(name_start, path.size()));
  // Most paths share the last one's folder: one compare, nothing to move.
  if (dir == std::string_view(dir_)) return q_.ScoreFrom(stack_[depth_ - 1], path, name_start, path_mask);
  size_t common = std::mismatch(dir.begin(), dir.end(), dir_.begin(), dir_.end()).first - dir.begin();
  while (depth_ > 1 && static_cast<size_t>(stack_[depth_ - 1].len) > common) --depth_;
  for (size_t at = stack_[depth_ - 1].len; at < dir.size();) {
    size_t slash = dir.find('/', at);
    size_t next = slash == std::string_view::npos ? dir.size() : slash + 1;
    if (depth_ == stack_.size()) stack_.emplace_back();
    // Only the query's cells are copied: this runs for every folder on the
    // way, per query.
    const FuzzyQuery::State& from = stack_[depth_ - 1];
    FuzzyQuery::State& to = stack_[depth_++];
    to.len = from.len;
    to.lcs = from.lcs;
    std::copy_n(from.cell.begin(), q_.word().size() + 1, to.cell.begin());
    q_.Advance(to, path, next, name_start);
    at = next;
  }
  dir_.assign(dir);
  return q_.ScoreFrom(stack_[depth_ - 1], path, name_start, path_mask);
}

}  // namespace sepp::tools
