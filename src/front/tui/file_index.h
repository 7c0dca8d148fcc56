// FileIndex: the project's files for `@path` completion, listed in process
// (no git needed), honouring .gitignore files (the root's and each
// folder's own; patterns with '*', '?', '[...]', a trailing '/' for folders
// and a '/' that anchors them; '!' re-includes are not supported and such
// lines are skipped) and always leaving out .git. Built once, on the first
// '@', and capped at kMaxFiles so a huge tree cannot stall the UI.
#pragma once
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace sepp::front::tui {

class FileIndex {
 public:
  static constexpr size_t kMaxFiles = 50000;
  explicit FileIndex(std::filesystem::path root) : root_(std::move(root)) {}

  // Paths relative to the root ("src/main.cc"; folders end in '/'), fuzzily
  // matching query, best first, at most limit. Typing narrows: a query that
  // extends the previous one only looks among the previous matches.
  std::vector<std::string> Matching(std::string_view query, size_t limit);
  const std::vector<std::string>& paths();  // builds on first use

 private:
  void Build();
  std::filesystem::path root_;
  bool built_ = false;
  std::vector<std::string> paths_;
  std::vector<std::string> lower_;  // paths_ folded to lower case
  std::string last_query_;
  std::vector<size_t> last_matches_;  // indexes of paths matching last_query_
};

// Whether a .gitignore line matches a path relative to the .gitignore's
// folder (rel uses '/'; is_dir for folders). Exposed for tests.
bool GitignoreMatches(std::string_view pattern, std::string_view rel, bool is_dir);

}  // namespace sepp::front::tui
