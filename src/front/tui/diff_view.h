// An edit's unified diff (tools/diff.h's format) as the terminal UI draws
// it: each line with its old and new line numbers, removed lines in the
// removed colour and added ones in the added colour, and where removed
// lines are followed by added ones (a changed line), the words that changed
// within each such pair shown inverse, so a one-word edit in a long line is
// seen at a glance. The file header (---/+++) is left out: the tool call's
// header names the file.
#pragma once
#include <string_view>
#include <vector>

#include "front/tui/text.h"
#include "front/tui/theme.h"

namespace sepp::front::tui {

// At most max_lines lines (0: all); *omitted (optional) gets how many
// were left out at the end.
std::vector<Line> DiffLines(std::string_view unified_diff, const Theme& theme, size_t max_lines = 0,
                            size_t* omitted = nullptr);

// The byte ranges of a and b that a word diff marks as changed (words,
// runs of spaces and single punctuation are the units; the longest common
// subsequence of units is unchanged). Empty for both when the lines are too
// long to compare cheaply or share nothing but spaces.
struct WordChanges {
  std::vector<std::pair<size_t, size_t>> in_old, in_new;  // [begin, end)
};
WordChanges ChangedWords(std::string_view a, std::string_view b);

}  // namespace sepp::front::tui
