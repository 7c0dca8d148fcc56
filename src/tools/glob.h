// Glob patterns over '/'-separated relative paths, for find, grep's filter
// and .gitignore rules.
//
// In a segment: `*` any run of characters except '/', `?` one character,
// `[abc]` `[a-z]` `[!x]` `[^x]` a class, `\x` a literal x. A whole segment
// `**` matches any number of folders: `**/x` (x at any depth, including the
// top), `a/**/b` (b anywhere under a, a/b included), `a/**` (everything
// inside a, not a itself). `{a,b}` alternatives (nested allowed) are expanded
// before matching; an unbalanced brace is a literal.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace sepp::tools {

// One segment against one name (no '/').
bool MatchSegment(std::string_view pattern, std::string_view name);

// Pattern segments against path segments, with `**` as above.
bool MatchSegments(const std::vector<std::string>& pattern, const std::vector<std::string_view>& path);

std::vector<std::string_view> SplitPath(std::string_view path);

class Glob {
 public:
  // Errors for patterns that cannot be used: empty, or braces expanding to
  // more than 1024 alternatives.
  static Result<Glob> Compile(std::string_view pattern);

  // A pattern without '/' matches a path's last segment (its name) at any
  // depth; one with '/' matches the whole path (a leading "./" or "/" is
  // ignored).
  bool Matches(std::string_view rel_path) const;

  // True when no alternative has a '/': the pattern names files, not paths.
  bool matches_name_only() const;

 private:
  struct Alternative {
    std::vector<std::string> segments;
    bool name_only = false;  // no '/': match the last path segment
  };
  std::vector<Alternative> alternatives_;
};

}  // namespace sepp::tools
