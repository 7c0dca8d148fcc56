// Sessions as text for people: what `sepp sessions show/tree/export` print.
// Pure functions of a Session; no I/O.
#pragma once
#include <string>
#include <string_view>

#include "session/session.h"

namespace sepp::session {

// One line describing an entry: "user: fix the test…", "assistant: → bash(…)",
// "compaction: 12000 → 3000 tokens", "label: \"x\" on 1a2b3c4d", or the type
// for unknown entries. At most max_chars characters (UTF-8 safe).
std::string EntrySummary(const Entry& entry, size_t max_chars = 80);

// The branch ending at leaf (default: the session's leaf) as readable text:
// a header block, then each entry; message text in full, tool calls with
// their arguments, thinking abbreviated.
std::string RenderBranchText(const Session& session, std::string_view leaf = {});

// The whole tree, one entry per line. Straight runs stay in one column;
// branch points indent with ├─ / └─. The current leaf is marked "← leaf",
// labels are shown in [brackets].
std::string RenderTree(const Session& session);

// Export of the active branch as a Markdown document.
std::string ExportMarkdown(const Session& session);
// Export of the active branch as a self-contained HTML page (all text escaped).
std::string ExportHtml(const Session& session);
// Export of the whole session in the JSONL file format: header line, then
// every entry in stored order (importable by any store).
std::string ExportJsonl(const Session& session);

}  // namespace sepp::session
