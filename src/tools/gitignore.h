// .gitignore rules, applied the way git applies them.
//
// A rule file belongs to a folder (its base) and applies to paths below it.
// Per line: blank lines and "#" comments are skipped ("\#" is a literal #);
// trailing spaces are dropped unless escaped; "!" negates (re-includes; "\!"
// is a literal !); a trailing "/" matches folders only; a pattern with a '/'
// at the start or in the middle is anchored to the base, otherwise it matches
// a name at any depth; "**" works as in glob.h. Among all rules that match a
// path, the last one decides. A path inside an ignored folder cannot be
// re-included (the walker never enters that folder).
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace sepp::tools {

class IgnoreRules {
 public:
  // Adds the rules of one .gitignore (or .git/info/exclude) whose folder is
  // base: relative to the rules' root, '/'-separated, "" for the root.
  void AddFile(std::string_view text, std::string_view base);

  // rel_path is relative to the rules' root, '/'-separated.
  bool Ignored(std::string_view rel_path, bool is_dir) const;

  // The walker pushes a folder's rules on entry and drops them on exit.
  size_t size() const { return rules_.size(); }
  void Truncate(size_t n) {
    if (n < rules_.size()) rules_.resize(n);
  }

 private:
  struct Rule {
    std::vector<std::string> segments;
    std::string base;
    bool negate = false;
    bool dir_only = false;
    bool name_only = false;  // no '/' in the pattern: matches a name at any depth
  };
  std::vector<Rule> rules_;
};

}  // namespace sepp::tools
