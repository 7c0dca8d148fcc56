// What /diff shows: the files this session's agent changed, as unified
// diffs, taken from the session itself (not `git diff` of the workspace,
// which would run git with the workspace's own config and attributes — diff
// drivers, textconv, pagers — in the TUI's unconfined process, and would
// mix in changes the agent did not make). Each successful edit contributes
// the diff its result carries; a write that created a file contributes the
// file as added lines (its content is in the call's arguments); a write over
// an existing file is named, since the text it replaced is not in the
// session. Changes made through bash are not seen; the text says so.
#pragma once
#include <string>
#include <vector>

#include "llm/message.h"

namespace sepp::front::tui {

struct SessionDiff {
  std::string text;          // "" when nothing was changed
  size_t edits = 0;          // successful edit results
  size_t writes = 0;         // successful write results
  std::vector<std::string> files;  // in the order first changed
};

SessionDiff DiffOfSession(const std::vector<llm::Message>& messages);

}  // namespace sepp::front::tui
