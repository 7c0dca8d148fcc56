// Where two JSON documents differ, said so a person can read it: the path of
// each difference ("messages[3].content[0].text") and both values, strings
// cut around the first differing character, multi-line strings reduced to
// their first differing line. Used for the diff of a replayed request that
// does not match its recording.
#pragma once
#include <string>
#include <vector>

#include "base/json.h"

namespace sepp::llm {

struct JsonDifference {
  std::string path;      // "" for the root; "system, line 12" inside a string
  std::string recorded;  // printable (JSON-escaped, shortened); "(absent)" if missing
  std::string now;
};

// At most max differences in document order; *total (if given) counts all.
std::vector<JsonDifference> DiffJson(const Json& recorded, const Json& now, size_t max = 8,
                                     size_t* total = nullptr);

// The differences as indented lines: "  PATH\n    recorded: ..\n    now:      ..\n",
// plus "  (N more differences)" when total > shown.
std::string FormatDifferences(const std::vector<JsonDifference>& shown, size_t total);

}  // namespace sepp::llm
