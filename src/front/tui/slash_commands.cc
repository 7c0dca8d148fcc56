#include "front/tui/slash_commands.h"

#include <algorithm>
#include <cctype>

namespace sepp::front::tui {
namespace {

char Fold(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

}  // namespace

bool CommandTable::Add(SlashCommand command, bool replace) {
  for (auto& c : commands_) {
    if (c.name != command.name) continue;
    if (!replace) return false;
    c = std::move(command);
    return true;
  }
  commands_.push_back(std::move(command));
  return true;
}

const SlashCommand* CommandTable::Find(std::string_view name) const {
  for (const auto& c : commands_)
    if (c.name == name) return &c;
  return nullptr;
}

std::vector<const SlashCommand*> CommandTable::Matching(std::string_view typed) const {
  std::vector<std::pair<int, const SlashCommand*>> scored;
  for (const auto& c : commands_) {
    int s = FuzzyScore(typed, c.name);
    if (s >= 0) scored.push_back({s, &c});
  }
  std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<const SlashCommand*> out;
  for (const auto& [s, c] : scored) out.push_back(c);
  return out;
}

bool ParseSlash(std::string_view text, std::string* name, std::string* args) {
  if (text.size() < 2 || text[0] != '/' || text[1] == '/') return false;
  size_t end = text.find_first_of(" \t\n", 1);
  *name = std::string(text.substr(1, end == std::string_view::npos ? std::string_view::npos : end - 1));
  std::string_view rest = end == std::string_view::npos ? std::string_view() : text.substr(end);
  size_t a = rest.find_first_not_of(" \t\n");
  size_t b = rest.find_last_not_of(" \t\n");
  *args = a == std::string_view::npos ? "" : std::string(rest.substr(a, b - a + 1));
  return !name->empty();
}

int FuzzyScore(std::string_view query, std::string_view candidate) {
  if (query.empty()) return 0;
  int score = 0;
  size_t at = 0;
  size_t last = std::string_view::npos;
  for (char q : query) {
    size_t found = std::string_view::npos;
    for (size_t i = at; i < candidate.size(); ++i) {
      if (Fold(candidate[i]) == Fold(q)) {
        found = i;
        break;
      }
    }
    if (found == std::string_view::npos) return -1;
    if (last != std::string_view::npos && found == last + 1) score += 5;  // contiguous
    if (found == 0 || !std::isalnum(static_cast<unsigned char>(candidate[found - 1]))) score += 3;
    last = found;
    at = found + 1;
  }
  if (candidate.size() >= query.size() &&
      std::equal(query.begin(), query.end(), candidate.begin(), [](char a, char b) { return Fold(a) == Fold(b); }))
    score += 100;  // a prefix
  score -= static_cast<int>(candidate.size() - query.size()) / 4;  // shorter first
  return std::max(score, 0);
}

}  // namespace sepp::front::tui
