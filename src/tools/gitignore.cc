#include "tools/gitignore.h"

#include "tools/glob.h"

namespace sepp::tools {

void IgnoreRules::AddFile(std::string_view text, std::string_view base) {
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) nl = text.size();
    std::string line(text.substr(start, nl - start));
    start = nl + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    // Trailing spaces go unless the last one is escaped.
    while (!line.empty() && line.back() == ' ' &&
           !(line.size() >= 2 && line[line.size() - 2] == '\\'))
      line.pop_back();
    if (line.size() >= 2 && line[line.size() - 2] == '\\' && line.back() == ' ')
      line.erase(line.size() - 2, 1);
    if (line.empty() || line[0] == '#') continue;
    Rule r;
    r.base = std::string(base);
    if (line[0] == '!') {
      r.negate = true;
      line.erase(0, 1);
    } else if (line.size() >= 2 && line[0] == '\\' && (line[1] == '!' || line[1] == '#')) {
      line.erase(0, 1);
    }
    if (!line.empty() && line.back() == '/') {
      r.dir_only = true;
      while (!line.empty() && line.back() == '/') line.pop_back();
    }
    if (line.empty()) continue;
    r.name_only = line.find('/') == std::string::npos;
    for (auto seg : SplitPath(line)) r.segments.emplace_back(seg);
    if (r.segments.empty()) continue;
    rules_.push_back(std::move(r));
  }
}

bool IgnoreRules::Ignored(std::string_view rel_path, bool is_dir) const {
  std::vector<std::string_view> full;  // split lazily, once
  bool split = false;
  size_t slash = rel_path.rfind('/');
  std::string_view name = slash == std::string_view::npos ? rel_path : rel_path.substr(slash + 1);
  for (auto it = rules_.rbegin(); it != rules_.rend(); ++it) {
    const Rule& r = *it;
    if (r.dir_only && !is_dir) continue;
    std::string_view rel = rel_path;
    if (!r.base.empty()) {
      if (rel.size() <= r.base.size() || rel.compare(0, r.base.size(), r.base) != 0 ||
          rel[r.base.size()] != '/')
        continue;
      rel.remove_prefix(r.base.size() + 1);
    }
    bool hit;
    if (r.name_only) {
      hit = MatchSegment(r.segments[0], name);
    } else if (r.base.empty()) {
      if (!split) full = SplitPath(rel_path), split = true;
      hit = MatchSegments(r.segments, full);
    } else {
      hit = MatchSegments(r.segments, SplitPath(rel));
    }
    if (hit) return !r.negate;
  }
  return false;
}

}  // namespace sepp::tools
