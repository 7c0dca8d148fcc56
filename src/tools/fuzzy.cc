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

int FuzzyQuery::Score(std::string_view path, size_t name_start, uint64_t path_mask) const {
  const int m = static_cast<int>(lower_.size());
  if (m == 0) return 0;
  if (std::popcount(mask_ & ~path_mask) > max_typos_) return 0;
  // Bit-parallel LCS (Hyyrö): the query characters the path can match in order.
  uint64_t v = ~uint64_t{0};
  for (unsigned char c : path) {
    uint64_t u = v & peq_[c];
    v = (v + u) | (v - u);
  }
  uint64_t all = m == 64 ? ~uint64_t{0} : ((uint64_t{1} << m) - 1);
  int lcs = std::popcount(~v & all);
  if (lcs < m - max_typos_) return 0;

  // Scoring: best[j] is the best score with j query characters consumed
  // (matched or skipped as a typo); run[j] the best with the j-th matched at
  // the previous path character (for the run bonus).
  std::array<int, 65> best, run, best_typos, run_typos;
  best.fill(kNegInf);
  run.fill(kNegInf);
  best_typos.fill(0);
  run_typos.fill(0);
  best[0] = 0;
  auto skip = [&] {
    for (int j = 0; j < m; ++j)
      if (best[j] > kNegInf && best_typos[j] < max_typos_ && best[j] - kTypo > best[j + 1]) {
        best[j + 1] = best[j] - kTypo;
        best_typos[j + 1] = best_typos[j] + 1;
      }
  };
  skip();
  std::array<int, 65> next_run, next_run_typos;
  const int n = static_cast<int>(path.size());
  for (int i = 0; i < n; ++i) {
    unsigned char c = path[i];
    uint64_t hits = peq_[c];
    if (!hits) {
      if (i + 1 < n) run.fill(kNegInf);
      continue;
    }
    unsigned char prev = i ? static_cast<unsigned char>(path[i - 1]) : '/';
    int bonus = kMatch;
    if (Separator(prev)) bonus += kWordStart;
    else if (c >= 'A' && c <= 'Z' && prev >= 'a' && prev <= 'z') bonus += kCamel;
    if (static_cast<size_t>(i) >= name_start) bonus += kInName;
    next_run.fill(kNegInf);
    for (int j = m - 1; j >= 0; --j) {
      if (!(hits >> j & 1)) continue;
      int b = bonus + (smart_case_ && original_[j] == static_cast<char>(c) ? kCaseMatch : 0);
      int s = kNegInf, t = 0;
      if (best[j] > kNegInf) s = best[j] + b, t = best_typos[j];
      if (run[j] > kNegInf && run[j] + b + kConsecutive > s)
        s = run[j] + b + kConsecutive, t = run_typos[j];
      if (s == kNegInf) continue;
      next_run[j + 1] = s;
      next_run_typos[j + 1] = t;
      if (s > best[j + 1]) best[j + 1] = s, best_typos[j + 1] = t;
    }
    run = next_run;
    run_typos = next_run_typos;
    skip();
  }
  if (best[m] <= 0) return best[m] > kNegInf ? 1 : 0;
  return best[m];
}

}  // namespace sepp::tools
