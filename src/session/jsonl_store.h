// Internal to src/session: the JSONL store (see store.h, docs/sessions.md).
#pragma once
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "session/session.h"

namespace sepp::session {

class Store;
Result<std::unique_ptr<Store>> OpenJsonlStore(const std::filesystem::path& root);

// The folder name for a cwd: its readable tail plus a hash of the whole path,
// e.g. "/work/main" -> "work-main_3b6f0c1e".
std::string CwdFolderName(const std::string& cwd);

// A parsed session file. Lines that are not valid records are counted and
// skipped; the last line, if it lacks its newline and does not parse, is a
// torn write: torn_offset is where it starts (npos if none).
struct JsonlContent {
  SessionHeader header;
  std::vector<Entry> entries;
  size_t bad_lines = 0;
  size_t torn_offset = std::string::npos;
  bool missing_final_newline = false;  // last line complete but unterminated
};
Result<JsonlContent> ParseJsonlSession(std::string_view text, const std::string& what);

}  // namespace sepp::session
