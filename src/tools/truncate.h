// Output truncation: every tool result is limited before it enters the
// model's context.
//
// Limits are lines and bytes (default 2000 lines, 50 KB), whichever is hit
// first. Two shapes: the head (read, grep, find, ls: "use offset=N to
// continue") and head plus tail (bash: the end of a build log matters as much
// as its start). Cuts never split a UTF-8 sequence. The caller writes the
// note that tells the model how to see more; this file only reports what was
// cut.
#pragma once
#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>

#include "tools/tool.h"

namespace sepp::tools {

struct TruncateLimits {
  size_t max_lines = 2000;
  size_t max_bytes = 50 * 1024;
};

// Longest line grep and read show before cutting it.
inline constexpr size_t kMaxLineBytes = 2000;

struct Truncation {
  std::string text;          // what is kept; for head+tail a marker line in between
  bool truncated = false;
  size_t total_lines = 0;
  size_t total_bytes = 0;
  size_t head_lines = 0;     // complete lines kept from the start
  size_t tail_lines = 0;     // complete lines kept from the end (head+tail only)
  size_t omitted_lines = 0;  // approximate when a line was cut in the middle
  size_t omitted_bytes = 0;
};

// Lines in text: '\n' count, plus one for an unterminated last line.
size_t CountLines(std::string_view text);

// Keeps whole lines from the start. If even the first line is too long, its
// UTF-8-safe prefix is kept (head_lines = 0).
Truncation TruncateHead(std::string_view text, const TruncateLimits& limits = {});

// Keeps about half the budget from the start and half from the end, with a
// marker "[... N lines (X) omitted ...]" between them.
Truncation TruncateHeadTail(std::string_view text, const TruncateLimits& limits = {});

// line cut to max_bytes (UTF-8-safe) with "… [N more bytes]" appended.
std::string CutLine(std::string_view line, size_t max_bytes = kMaxLineBytes);

// Clamp for results of tools that do not truncate themselves (extensions,
// MCP): cuts text to limits by its head, adds a note, sets truncated.
void LimitResult(ToolResult& result, const TruncateLimits& limits = {});

// Collects a stream (bash output) of any size in bounded memory: it keeps
// the head and a tail window, and once the output exceeds the limits it
// writes the stream to spill_path (mode 0600, redacted, at most
// kMaxSavedBytes, then a note of how much more there was).
// Makes `dir` (mode 0700) if needed and checks that it is a folder of this
// user's that nobody else can write and not a link; removes saved outputs
// (*.log) older than a week in it, once per folder and process. Empty, or why not.
std::string PrepareOutputFolder(const std::filesystem::path& dir);

class OutputCollector {
 public:
  static constexpr size_t kMaxSavedBytes = 64u << 20;

  OutputCollector(TruncateLimits limits, std::filesystem::path spill_path);
  ~OutputCollector();
  OutputCollector(const OutputCollector&) = delete;
  OutputCollector& operator=(const OutputCollector&) = delete;

  void Append(std::string_view chunk);
  // The head+tail view of everything appended. Call once.
  Truncation Finish();

  // True when the full output was written to spill_path.
  bool spilled() const { return spilled_ && spill_error_.empty(); }
  const std::filesystem::path& spill_path() const { return spill_path_; }
  // Why the full output could not be saved (empty if it could).
  const std::string& spill_error() const { return spill_error_; }

 private:
  void Spill();
  void SaveChunk(std::string_view chunk, bool last);

  TruncateLimits limits_;
  std::filesystem::path spill_path_;
  std::string all_;    // everything, until spilled
  std::string head_;   // after spilling: the first max_bytes bytes
  std::string tail_;   // after spilling: a window of the last bytes
  size_t total_bytes_ = 0;
  size_t newlines_ = 0;
  char last_ = '\n';
  bool spilled_ = false;
  std::FILE* file_ = nullptr;
  size_t saved_bytes_ = 0, unsaved_bytes_ = 0;
  std::string pending_save_;  // saved output waiting for the rest of its line
  std::string spill_error_;
};

}  // namespace sepp::tools
