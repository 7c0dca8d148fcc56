// The system prompt: who the agent is, its tools, where it works, today's
// date, and the project's context files (AGENTS.md, CLAUDE.md).
#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace sepp::agent {

struct ContextFile {
  std::filesystem::path path;
  std::string content;
};

// AGENTS.md (and CLAUDE.md) of SeppHome() (global), then of every folder from
// the filesystem root down to cwd, outermost first, so nearer files can
// refine farther ones. Unreadable files are skipped. Caps: a file over 64 KB
// is cut with a note; over 128 KB together, the farthest files are replaced
// by a note saying they were left out (the nearest are kept).
std::vector<ContextFile> FindContextFiles(const std::filesystem::path& cwd);

struct ToolLine {
  std::string name;
  std::string description;
};

std::string BuildSystemPrompt(const std::filesystem::path& cwd, const std::string& date,
                              const std::vector<ToolLine>& tools,
                              const std::vector<ContextFile>& context);

}  // namespace sepp::agent
