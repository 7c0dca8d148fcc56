// The session's own file history for file_search and content_search: which
// files this process's tools read and changed, and when. read records a
// read, write and edit a change; the search tools rank by it (frecency, as
// FFF's AI mode: recent use counts most, a change four times a read).
//
// Process-wide: the file tools and the search tools run in the same process
// (the session's tool worker, or sepp itself when there is none), so the
// history is the session's. Nothing is written to disk.
#pragma once
#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace sepp::tools {

enum class FileUse { kRead, kChange };

// path: absolute, as the tool resolved it. Thread-safe; keeps the last 16
// uses per file and at most 20,000 files.
void RecordFileUse(const std::string& path, FileUse use);

// 0 for a file never used; about 16 for one read seconds ago, 64 for one
// changed seconds ago; decays to nothing within a week.
double FrecencyScore(const std::string& path,
                     std::chrono::system_clock::time_point now = std::chrono::system_clock::now());

// Every file with a score above 0, with its score: the search tools look
// their hits up here instead of asking per path.
std::vector<std::pair<std::string, double>> FrecencySnapshot(
    std::chrono::system_clock::time_point now = std::chrono::system_clock::now());

// Forgets every use (tests).
void ClearFileUses();

}  // namespace sepp::tools
