// Prompt templates: Markdown files that become slash commands (`/review
// src/` sends the file's body with the arguments put in).
//
// Two argument dialects, chosen by the folder a file comes from, never by
// guessing (docs/extensions.md, "Prompt templates"):
//   pi (sepp's own folders and pi's): $1 $2 ... 1-based, $@ and $ARGUMENTS
//     all of them, ${@:N} from the Nth on, ${@:N:L} L of them from the Nth;
//     arguments no placeholder asks for are dropped.
//   Claude (.claude/commands, Claude skills): $0 $1 ... 0-based,
//     $ARGUMENTS[N] 0-based, $ARGUMENTS the whole argument text, $name for
//     each name in the front matter's `arguments`, \$ a literal '$'; when
//     the body uses no placeholder, "\n\nARGUMENTS: <args>" is appended.
// Arguments are split like a shell would (single and double quotes,
// backslash escapes); an unclosed quote falls back to splitting on spaces.
// Front matter (optional): description (else the body's first non-empty
// line), argument-hint, arguments (Claude: names, a list or a space-
// separated text).
#pragma once
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace sepp::ext {

enum class ArgumentRules { kPi, kClaude };
const char* ToString(ArgumentRules rules);

struct PromptTemplate {
  std::string name;  // the file name without .md
  std::string description;
  std::string argument_hint;
  std::vector<std::string> argument_names;  // Claude's `arguments`
  std::string body;
  ArgumentRules rules = ArgumentRules::kPi;
  std::filesystem::path file;
  std::string scope;   // "project" or "user"
  std::string origin;  // the folder, for people (".claude/commands")
};

constexpr uint64_t kMaxPromptFileBytes = 256 * 1024;

Result<PromptTemplate> ParsePromptTemplate(std::string_view text, const std::filesystem::path& file,
                                           ArgumentRules rules);

std::vector<std::string> SplitArguments(std::string_view args);

// The body with args (the text after "/name ") put in by t.rules.
std::string ExpandTemplate(const PromptTemplate& t, std::string_view args);

}  // namespace sepp::ext
