// The slash-command table: what `/name args` in the editor runs, with the
// descriptions autocomplete and /help show. The table holds plain entries
// (name, argument hint, description, a function of the argument text), so
// commands from elsewhere — prompt templates, extensions — are added with
// Add() by whoever builds the table, the same way the built-ins are, and
// the TUI's editor, autocomplete and /help treat them all alike.
#pragma once
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace sepp::front::tui {

struct SlashCommand {
  std::string name;         // without the '/'
  std::string args;         // a hint for the arguments ("[focus]"), may be empty
  std::string description;  // one line
  std::function<void(const std::string& args)> run;
};

class CommandTable {
 public:
  // A command whose name is taken replaces the earlier one only when
  // replace is set (a built-in is not shadowed by accident); returns false
  // when it was not added.
  bool Add(SlashCommand command, bool replace = false);
  const SlashCommand* Find(std::string_view name) const;
  // Commands whose name fuzzily matches typed (without '/'), best first;
  // all of them, in table order, for an empty query.
  std::vector<const SlashCommand*> Matching(std::string_view typed) const;
  const std::vector<SlashCommand>& all() const { return commands_; }

 private:
  std::vector<SlashCommand> commands_;
};

// "/name rest": name and the rest (trimmed); false when text is not a slash
// command (does not start with '/', or "//" which sends a literal '/').
bool ParseSlash(std::string_view text, std::string* name, std::string* args);

// How well query matches candidate: its characters in order, case-insensitive
// (-1: not a match). Higher is better: a prefix, then contiguous runs, then
// matches at word starts, and shorter candidates.
int FuzzyScore(std::string_view query, std::string_view candidate);

}  // namespace sepp::front::tui
