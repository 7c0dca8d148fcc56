#include "front/tui/file_index.h"

#include <fnmatch.h>

#include <algorithm>
#include <cctype>
#include <fstream>

#include "front/tui/slash_commands.h"

namespace sepp::front::tui {
namespace {

namespace fs = std::filesystem;

struct IgnoreFile {
  std::string base;  // the folder of the .gitignore, relative to the root ("" or "src/")
  std::vector<std::string> patterns;
};

std::vector<std::string> ReadPatterns(const fs::path& file) {
  std::vector<std::string> out;
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    while (!line.empty() && line.back() == ' ') line.pop_back();
    if (line.empty() || line[0] == '#' || line[0] == '!') continue;
    out.push_back(line);
  }
  return out;
}

bool Ignored(const std::vector<IgnoreFile>& stack, const std::string& rel, bool is_dir) {
  for (const auto& f : stack) {
    if (rel.compare(0, f.base.size(), f.base) != 0) continue;
    std::string_view sub = std::string_view(rel).substr(f.base.size());
    for (const auto& p : f.patterns)
      if (GitignoreMatches(p, sub, is_dir)) return true;
  }
  return false;
}

}  // namespace

bool GitignoreMatches(std::string_view pattern_in, std::string_view rel, bool is_dir) {
  std::string pattern(pattern_in);
  if (pattern.empty()) return false;
  bool dir_only = pattern.back() == '/';
  if (dir_only) pattern.pop_back();
  if (dir_only && !is_dir) return false;
  bool anchored = pattern.find('/') != std::string::npos;
  if (!pattern.empty() && pattern[0] == '/') pattern.erase(0, 1);
  if (pattern.rfind("**/", 0) == 0) {
    pattern.erase(0, 3);
    anchored = pattern.find('/') != std::string::npos;
  }
  std::string path(rel);
  if (anchored) return fnmatch(pattern.c_str(), path.c_str(), FNM_PATHNAME) == 0;
  size_t slash = path.rfind('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  return fnmatch(pattern.c_str(), name.c_str(), 0) == 0;
}

const std::vector<std::string>& FileIndex::paths() {
  if (!built_) Build();
  return paths_;
}

void FileIndex::Build() {
  built_ = true;
  std::vector<IgnoreFile> ignores;
  // Depth first; a folder's .gitignore applies below it only.
  struct Dir {
    fs::path path;
    std::string rel;  // "" or "src/"
  };
  std::vector<Dir> todo = {{root_, ""}};
  while (!todo.empty() && paths_.size() < kMaxFiles) {
    Dir d = std::move(todo.back());
    todo.pop_back();
    // Ignore files of folders that are not above d no longer apply.
    std::erase_if(ignores, [&](const IgnoreFile& f) { return d.rel.compare(0, f.base.size(), f.base) != 0; });
    if (auto p = ReadPatterns(d.path / ".gitignore"); !p.empty()) ignores.push_back({d.rel, std::move(p)});
    std::error_code ec;
    std::vector<std::pair<std::string, bool>> children;
    for (fs::directory_iterator it(d.path, fs::directory_options::skip_permission_denied, ec), end;
         !ec && it != end; it.increment(ec)) {
      std::string name = it->path().filename().string();
      if (name == ".git") continue;
      std::error_code type_ec;
      bool is_dir = it->is_directory(type_ec) && !it->is_symlink(type_ec);
      children.push_back({name, is_dir});
    }
    std::sort(children.begin(), children.end());
    std::vector<Dir> below;
    for (const auto& [name, is_dir] : children) {
      std::string rel = d.rel + name;
      if (Ignored(ignores, rel, is_dir)) continue;
      if (is_dir) {
        paths_.push_back(rel + "/");
        below.push_back({d.path / name, rel + "/"});
      } else {
        paths_.push_back(rel);
      }
      if (paths_.size() >= kMaxFiles) break;
    }
    for (auto it = below.rbegin(); it != below.rend(); ++it) todo.push_back(std::move(*it));
  }
  lower_.reserve(paths_.size());
  for (const auto& p : paths_) {
    std::string l = p;
    for (char& c : l) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    lower_.push_back(std::move(l));
  }
}

std::vector<std::string> FileIndex::Matching(std::string_view query, size_t limit) {
  paths();
  if (query.empty()) {  // '@' alone: the first paths, in listing order
    last_query_.clear();
    return {paths_.begin(), paths_.begin() + static_cast<long>(std::min(limit, paths_.size()))};
  }
  std::string q(query);
  for (char& c : q) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // Candidates: the previous matches when the query only grew, else all.
  std::vector<size_t> candidates;
  bool narrowing = !last_query_.empty() && q.size() >= last_query_.size() && q.compare(0, last_query_.size(), last_query_) == 0;
  if (narrowing) {
    candidates = std::move(last_matches_);
  } else {
    candidates.resize(paths_.size());
    for (size_t i = 0; i < candidates.size(); ++i) candidates[i] = i;
  }
  // The cheap test first: the query's characters in order.
  std::vector<size_t> matches;
  for (size_t i : candidates) {
    const std::string& p = lower_[i];
    size_t at = 0;
    for (char c : q) {
      at = p.find(c, at);
      if (at == std::string::npos) break;
      ++at;
    }
    if (at != std::string::npos) matches.push_back(i);
  }
  last_query_ = q;
  last_matches_ = matches;
  std::vector<std::pair<int, size_t>> scored;
  scored.reserve(matches.size());
  for (size_t i : matches) {
    const std::string& p = paths_[i];
    int s = FuzzyScore(query, p);
    // The file name matching counts more than the folders above it.
    size_t slash = p.find_last_of('/', p.size() >= 2 ? p.size() - 2 : 0);
    std::string_view name = slash == std::string::npos ? std::string_view(p) : std::string_view(p).substr(slash + 1);
    if (!query.empty() && FuzzyScore(query, name) >= 0) s += 50;
    scored.push_back({s, i});
  }
  size_t n = std::min(limit, scored.size());
  std::partial_sort(scored.begin(), scored.begin() + static_cast<long>(n), scored.end(),
                    [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
  std::vector<std::string> out;
  for (size_t i = 0; i < n; ++i) out.push_back(paths_[scored[i].second]);
  return out;
}

}  // namespace sepp::front::tui
