// Fuzzy path matching for file_search: a query's characters in order in the
// path, typo-tolerant (a few query characters may be missing), scored so that
// matches at word starts, in the file name and in runs rank first.
//
// A bit-parallel longest-common-subsequence pass (64 query characters in one
// word) rejects most paths in a few instructions per character; the scoring
// pass runs only on the paths that can still match. Both passes go left to
// right with a small state, so a FuzzyScanner going through paths in sorted
// order scores each folder once and each file from its folder's state.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sepp::tools {

// True when x has at most n bits set, for small n. (std::popcount is a
// libgcc call on baseline x86-64, which has no POPCNT instruction; this
// runs once or twice per path.)
inline bool AtMostBits(uint64_t x, int n) {
  for (; n > 0 && x; --n) x &= x - 1;
  return x == 0;
}

// Lower-case ASCII letters, digits and a few punctuation marks as bits: a
// path can only match a query whose bits it has (up to the typos).
uint64_t CharMask(std::string_view text);

class FuzzyQuery {
 public:
  // One word of a query (no spaces), at most 64 bytes (longer is cut).
  explicit FuzzyQuery(std::string_view word);

  // The score of path (0: no match); name_start is where its last segment
  // starts. path_mask is CharMask(path).
  int Score(std::string_view path, size_t name_start, uint64_t path_mask) const;

  const std::string& word() const { return lower_; }
  int max_typos() const { return max_typos_; }
  // False when the path lacks more of the query's characters than typos
  // allow (a cheap test before any pass).
  bool MayMatch(uint64_t path_mask) const {
    return AtMostBits(mask_ & ~path_mask, max_typos_);
  }

  // Both passes after a path's first `len` characters.
  struct State {
    int len = 0;
    uint64_t lcs = ~uint64_t{0};  // the bit-parallel LCS vector
    // cell[j].best: the best score with j query characters consumed
    // (matched or skipped as a typo); .run: the best with the j-th matched
    // at path position .run_at. Only the first length()+1 are used (and
    // copied: a state is copied once per scored path).
    struct Cell {
      int best, best_typos, run, run_typos, run_at;
    };
    std::array<Cell, 65> cell;
  };
  State Start() const;
  // Moves s over path[s.len, to) (path is the whole path: a character's
  // bonus looks at the one before it).
  void Advance(State& s, std::string_view path, size_t to, size_t name_start) const;
  // The score of the whole path from a state over its first s.len
  // characters (0: no match).
  int ScoreFrom(const State& s, std::string_view path, size_t name_start, uint64_t path_mask) const;

 private:
  std::string lower_;
  uint64_t mask_ = 0;
  uint64_t peq_[256] = {};  // per byte: the query positions that hold it
  int max_typos_ = 0;
  bool smart_case_ = false;  // the query has upper case: matching case scores
  std::string original_;
};

// Scores many paths against one query, in sorted order (any order is
// correct; sorted is fast): the state at the end of each folder on the way
// is kept, so a path is scored from the deepest folder it shares with the
// previous one.
class FuzzyScanner {
 public:
  explicit FuzzyScanner(const FuzzyQuery& q) : q_(q) { stack_.push_back(q.Start()); }
  int Score(std::string_view path, size_t name_start, uint64_t path_mask);

 private:
  const FuzzyQuery& q_;
  // States at the '/'s of dir_; [0] is the start. The first depth_ are
  // live; the slots above are kept for reuse (a State is 1.3 KB).
  std::vector<FuzzyQuery::State> stack_;
  size_t depth_ = 1;
  std::string dir_;                       // the folder part of the last path scored
};

}  // namespace sepp::tools
