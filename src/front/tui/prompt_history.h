// PromptHistory: the prompts the user sent in one project, newest last,
// persisted so they survive a restart: one JSON line {"text": ...} per
// prompt in $SEPP_HOME/history/<project>.jsonl (sepp's own folder, never the
// workspace). Up/Down walk it from the newest (Browse*), Ctrl+R searches it
// (Search). The file is appended to, one line per prompt, and read once at
// start (its last kMaxEntries lines); a damaged line is skipped.
#pragma once
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace sepp::front::tui {

class PromptHistory {
 public:
  static constexpr size_t kMaxEntries = 1000;
  // A file that cannot be read starts an empty history (the UI still works).
  explicit PromptHistory(std::filesystem::path file);
  // The file for a project (its cwd) under SeppHome().
  static std::filesystem::path FileFor(const std::filesystem::path& cwd);

  // Appends (and saves) a prompt, with registered secrets (provider keys)
  // redacted; an immediate repeat is kept once. Errors
  // writing the file are returned as a message ("" when saved).
  std::string Add(const std::string& text);
  const std::vector<std::string>& entries() const { return entries_; }

  // Browsing with Up/Down: draft is the editor's text when browsing starts
  // (Down past the newest entry gives it back). nullopt: nothing further.
  std::optional<std::string> Older(const std::string& draft);
  std::optional<std::string> Newer();
  void ResetBrowse() { browse_ = -1; }

  // The newest entry containing query (case-insensitive), older than
  // before (an index; entries().size() for the newest); its index, or -1.
  int Search(const std::string& query, int before) const;

 private:
  std::filesystem::path file_;
  std::vector<std::string> entries_;
  std::vector<std::string> lower_;  // entries_ folded, for Search
  int browse_ = -1;  // index being shown, -1: not browsing
  std::string draft_;
};

}  // namespace sepp::front::tui
