// Named sub-agents: agents/NAME.md files with YAML front matter
// (description, tools, model) and the body as the system prompt — the shape
// Claude Code uses, so existing definitions work unchanged.
//
//   ---
//   name: reviewer              (optional; the file name otherwise)
//   description: Reviews diffs for bugs
//   tools: Read, Grep, Glob     (or a YAML list; absent = all tools)
//   model: inherit              (inherit/sonnet/opus/haiku mean the parent's model)
//   ---
//   You are a careful reviewer...
//
// Looked up in SeppHome()/agents, then the project's .claude/agents and
// .sepp/agents; a later definition of the same name wins.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace sepp::agent {

struct AgentDefinition {
  std::string name;
  std::string description;
  std::vector<std::string> tools;  // sepp tool names; empty = all
  std::string model;               // empty = the parent's
  std::string system_prompt;
  std::filesystem::path path;
};

// Error names the problem (no front matter, no description, ...).
Result<AgentDefinition> ParseAgentDefinition(std::string_view text, const std::string& file_name);

// Definitions that do not parse are skipped with a line in *warnings. The
// project's (.claude/agents, .sepp/agents) load only when the project is
// trusted as it is now (base/project_trust.h); else they are skipped with a
// note saying how to trust it.
std::vector<AgentDefinition> LoadAgentDefinitions(const std::filesystem::path& cwd,
                                                  std::vector<std::string>* warnings);

// Claude Code's tool names → sepp's ("Read" → "read", "Glob" → "find",
// "MultiEdit" → "edit", "LS" → "ls"); unknown names are returned lower-cased.
std::string MapToolName(std::string_view name);

}  // namespace sepp::agent
