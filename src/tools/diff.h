// Unified diffs of two texts, for the edit tool's result and for front ends.
#pragma once
#include <string>
#include <string_view>

namespace sepp::tools {

struct DiffStats {
  size_t added = 0;    // lines
  size_t removed = 0;
};

// A line-based unified diff (Myers' O(ND) algorithm) in the standard format:
//   --- a/<old_name>
//   +++ b/<new_name>
//   @@ -a,b +c,d @@
//    context / -removed / +added
// with `context` lines around each change and hunks merged when their
// contexts touch. Counts of 1 are written without ",1" (as diff -u does); a
// last line without '\n' is followed by "\ No newline at end of file".
// Returns "" when the texts are equal. Very different texts of many
// thousands of lines fall back to one replace-everything hunk.
std::string UnifiedDiff(std::string_view old_text, std::string_view new_text,
                        std::string_view old_name, std::string_view new_name, int context = 3,
                        DiffStats* stats = nullptr);

}  // namespace sepp::tools
