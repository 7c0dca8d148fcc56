// Front matter: the `---` block of YAML at the top of SKILL.md, prompt
// templates and Claude command files, and the Markdown body after it.
//
// sepp reads a small YAML subset, enough for every skill and command file
// the peers ship (docs/extensions.md, "Front matter"):
//   key: plain value            (a value may go on over more-indented lines)
//   key: "double" | 'single'    (one line; \" \\ \n \t \uXXXX in double)
//   key: [a, b, "c d"]          (flow list of scalars)
//   key: | or >  (+ -/+)        (block scalar: literal or folded)
//   key:                        (then a block list "  - item" or a map
//     sub: value                 "  sub: value" of scalars: one level)
// Anything deeper (a map in a list, `{...}`, a list in a map) is kept as a
// kNested value the readers ignore, without recursion, so hostile nesting
// costs one pass over its lines. Comments (#) and blank lines are skipped.
// Every error names the file and the line and says what to change.
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"

namespace sepp::ext {

struct FrontMatterValue {
  enum class Kind { kScalar, kList, kMap, kNested };
  Kind kind = Kind::kScalar;
  std::string scalar;
  std::vector<std::string> list;
  std::vector<std::pair<std::string, std::string>> map;
  int line = 0;  // where the key is (1-based, in the whole file)
};

struct FrontMatter {
  bool present = false;  // the file starts with a `---` block
  std::vector<std::pair<std::string, FrontMatterValue>> fields;  // in file order
  std::string body;      // the text after the closing `---` (all of it when !present)
  int body_line = 1;     // the body's first line in the file

  const FrontMatterValue* Find(std::string_view key) const;
  // The scalar value of key, "" when it is missing; a list is joined by
  // spaces (Claude's allowed-tools takes either shape).
  std::string Get(std::string_view key) const;
};

// Limits against hostile files: the block may hold at most this many lines.
constexpr size_t kMaxFrontMatterLines = 2000;

// file is used in the messages ("review.md:3: ..."). Errors: binary or
// non-UTF-8 text, an unterminated block, a malformed line, a duplicate key,
// an unterminated quote, tabs used for indentation, too many lines.
Result<FrontMatter> ParseFrontMatter(std::string_view text, const std::string& file);

}  // namespace sepp::ext
