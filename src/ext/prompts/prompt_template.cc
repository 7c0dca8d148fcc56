#include "ext/prompts/prompt_template.h"

#include "base/strings.h"
#include "ext/front_matter.h"
#include "ext/skills/skill.h"

namespace sepp::ext {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsIdent(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || IsDigit(c) || c == '_' || c == '-';
}

// Reads digits at s[i...]; returns the number (capped) and advances i.
size_t Number(std::string_view s, size_t* i) {
  size_t n = 0;
  while (*i < s.size() && IsDigit(s[*i])) {
    if (n < 100000) n = n * 10 + static_cast<size_t>(s[*i] - '0');
    ++*i;
  }
  return n;
}

std::string JoinFrom(const std::vector<std::string>& args, size_t from, size_t count) {
  std::vector<std::string> part;
  for (size_t k = from; k < args.size() && part.size() < count; ++k) part.push_back(args[k]);
  return Join(part, " ");
}

std::string ExpandPi(std::string_view body, const std::vector<std::string>& args) {
  std::string out;
  for (size_t i = 0; i < body.size();) {
    if (body[i] != '$') {
      out += body[i++];
      continue;
    }
    size_t j = i + 1;
    if (j < body.size() && IsDigit(body[j])) {
      size_t n = Number(body, &j);
      if (n >= 1 && n <= args.size()) out += args[n - 1];
      i = j;
    } else if (j < body.size() && body[j] == '@') {
      out += Join(args, " ");
      i = j + 1;
    } else if (body.substr(j, 9) == "ARGUMENTS") {
      out += Join(args, " ");
      i = j + 9;
    } else if (body.substr(j, 3) == "{@:" && j + 3 < body.size() && IsDigit(body[j + 3])) {
      size_t k = j + 3;
      size_t from = Number(body, &k);
      size_t count = args.size();
      if (k < body.size() && body[k] == ':' && k + 1 < body.size() && IsDigit(body[k + 1])) {
        ++k;
        count = Number(body, &k);
      }
      if (k < body.size() && body[k] == '}') {
        out += JoinFrom(args, from == 0 ? 0 : from - 1, count);
        i = k + 1;
      } else {
        out += body[i++];  // not a placeholder after all
      }
    } else {
      out += body[i++];
    }
  }
  return out;
}

std::string ExpandClaude(const PromptTemplate& t, std::string_view raw,
                         const std::vector<std::string>& args) {
  std::string_view body = t.body;
  std::string out;
  bool used = false;
  for (size_t i = 0; i < body.size();) {
    char c = body[i];
    if (c == '\\' && i + 1 < body.size() && body[i + 1] == '$') {
      out += '$';
      i += 2;
      continue;
    }
    if (c != '$') {
      out += c;
      ++i;
      continue;
    }
    size_t j = i + 1;
    if (body.substr(j, 9) == "ARGUMENTS") {
      size_t k = j + 9;
      used = true;
      if (k < body.size() && body[k] == '[' && k + 1 < body.size() && IsDigit(body[k + 1])) {
        size_t m = k + 1;
        size_t n = Number(body, &m);
        if (m < body.size() && body[m] == ']') {
          if (n < args.size()) out += args[n];
          i = m + 1;
          continue;
        }
      }
      out += raw;
      i = k;
      continue;
    }
    if (j < body.size() && IsDigit(body[j])) {
      size_t n = Number(body, &j);
      if (n < args.size()) out += args[n];
      used = true;
      i = j;
      continue;
    }
    // $name: the longest declared name that matches here.
    size_t best = 0, best_index = 0;
    for (size_t a = 0; a < t.argument_names.size(); ++a) {
      const std::string& name = t.argument_names[a];
      if (name.size() > best && body.substr(j, name.size()) == name &&
          (j + name.size() >= body.size() || !IsIdent(body[j + name.size()]))) {
        best = name.size();
        best_index = a;
      }
    }
    if (best > 0) {
      if (best_index < args.size()) out += args[best_index];
      used = true;
      i = j + best;
      continue;
    }
    out += c;
    ++i;
  }
  if (!used && !raw.empty()) out += "\n\nARGUMENTS: " + std::string(raw);
  return out;
}

}  // namespace

const char* ToString(ArgumentRules rules) { return rules == ArgumentRules::kPi ? "pi" : "claude"; }

Result<PromptTemplate> ParsePromptTemplate(std::string_view text, const std::filesystem::path& file,
                                           ArgumentRules rules) {
  auto fm = ParseFrontMatter(text, file.string());
  if (!fm.ok()) return fm.error();
  PromptTemplate t;
  t.file = file;
  t.rules = rules;
  t.name = file.stem().string();
  if (!IsUsableSkillName(t.name))
    return Error::Make(file.string() + ": \"" + t.name +
                           "\" cannot be a command name: rename the file to letters, digits, "
                           "'-', '_', '.' or ':' (at most 64)",
                       "parse");
  for (const char* key : {"description", "argument-hint"}) {
    const FrontMatterValue* v = fm->Find(key);
    if (v && v->kind != FrontMatterValue::Kind::kScalar)
      return Error::Make(file.string() + ":" + std::to_string(v->line) + ": \"" + key +
                             "\" must be a single text value",
                         "parse");
  }
  t.body = std::move(fm->body);
  t.description = std::string(Trim(fm->Get("description")));
  for (size_t pos = 0; t.description.empty() && pos < t.body.size();) {
    size_t nl = t.body.find('\n', pos);
    if (nl == std::string::npos) nl = t.body.size();
    t.description = std::string(Trim(std::string_view(t.body).substr(pos, nl - pos)));
    pos = nl + 1;
  }
  if (t.description.size() > 200)
    t.description = t.description.substr(0, Utf8SafePrefix(t.description, 200)) + "...";
  t.argument_hint = fm->Get("argument-hint");
  if (const FrontMatterValue* a = fm->Find("arguments")) {
    if (a->kind == FrontMatterValue::Kind::kList) {
      t.argument_names = a->list;
    } else if (a->kind == FrontMatterValue::Kind::kScalar) {
      for (const std::string& n : Split(a->scalar, ' '))
        if (!Trim(n).empty()) t.argument_names.emplace_back(Trim(n));
    } else {
      return Error::Make(file.string() + ":" + std::to_string(a->line) +
                             ": \"arguments\" must be a list of names",
                         "parse");
    }
    for (const std::string& n : t.argument_names) {
      bool ok = !n.empty() && !IsDigit(n[0]);
      for (char c : n) ok = ok && IsIdent(c);
      if (!ok)
        return Error::Make(file.string() + ":" + std::to_string(a->line) + ": the argument name \"" +
                               n + "\" is not a name (letters, digits, '_', '-')",
                           "parse");
    }
  }
  return t;
}

std::vector<std::string> SplitArguments(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  bool in_word = false;
  char quote = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (quote) {
      if (c == quote) quote = 0;
      else if (c == '\\' && quote == '"' && i + 1 < s.size() &&
               (s[i + 1] == '"' || s[i + 1] == '\\'))
        cur += s[++i];
      else cur += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == '\\' && i + 1 < s.size()) {
      cur += s[++i];
      in_word = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) out.push_back(std::move(cur));
      cur.clear();
      in_word = false;
    } else {
      cur += c;
      in_word = true;
    }
  }
  if (quote) {  // unclosed: split on white space as written
    out.clear();
    for (const std::string& w : Split(std::string(s), ' '))
      if (!Trim(w).empty()) out.emplace_back(Trim(w));
    return out;
  }
  if (in_word) out.push_back(std::move(cur));
  return out;
}

std::string ExpandTemplate(const PromptTemplate& t, std::string_view args) {
  std::string_view raw = Trim(args);
  std::vector<std::string> list = SplitArguments(raw);
  if (t.rules == ArgumentRules::kPi) return ExpandPi(t.body, list);
  return ExpandClaude(t, raw, list);
}

}  // namespace sepp::ext
