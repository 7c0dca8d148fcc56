// Fuzzy path matching for file_search: a query's characters in order in the
// path, typo-tolerant (a few query characters may be missing), scored so that
// matches at word starts, in the file name and in runs rank first.
//
// A bit-parallel longest-common-subsequence pass (64 query characters in one
// word) rejects most paths in a few instructions per character; the scoring
// pass runs only on the paths that can still match.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace sepp::tools {

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

 private:
  std::string lower_;
  uint64_t mask_ = 0;
  uint64_t peq_[256] = {};  // per byte: the query positions that hold it
  int max_typos_ = 0;
  bool smart_case_ = false;  // the query has upper case: matching case scores
  std::string original_;
};

}  // namespace sepp::tools
