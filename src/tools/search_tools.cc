#include "tools/search_tools.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <list>
#include <map>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <unordered_map>

#include "base/strings.h"
#include "tools/access.h"
#include "tools/args.h"
#include "tools/files.h"
#include "tools/frecency.h"
#include "tools/fuzzy.h"
#include "tools/glob.h"
#include "tools/path_index.h"
#include "tools/truncate.h"

namespace sepp::tools {
namespace {

using Clock = std::chrono::steady_clock;

// From this many entries on, fuzzy scoring runs on two threads (about 0.5 ms
// of scoring against some 50 µs to start a thread).
constexpr size_t kParallelFrom = 4096;

double MsSince(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// The indexes, one per searched root, the four used last kept.
class IndexCache {
 public:
  std::shared_ptr<PathIndex> Get(const std::filesystem::path& root, const PathGuard& guard,
                                 CancelToken* cancel, bool* built) {
    std::lock_guard<std::mutex> lock(mu_);
    *built = false;
    for (auto it = lru_.begin(); it != lru_.end(); ++it) {
      if ((*it)->root() == root) {
        auto idx = *it;
        lru_.erase(it);
        lru_.push_front(idx);
        return idx;
      }
    }
    auto idx = std::make_shared<PathIndex>(root, guard, cancel);
    *built = true;
    lru_.push_front(idx);
    if (lru_.size() > 4) lru_.pop_back();
    return idx;
  }

 private:
  std::mutex mu_;
  std::list<std::shared_ptr<PathIndex>> lru_;
};

// Where a search looks: the folder, its index and the entries' prefix in it.
struct Scope {
  std::filesystem::path base;     // the folder asked for
  std::shared_ptr<PathIndex> index;
  std::string prefix;             // "" or "sub/dir/": base below the index root
  bool built = false;             // this call built the index
};

// A folder inside the working directory uses the working directory's index
// (one index for the workspace, whatever part a call looks at).
// Nothing, with *fail set to the result to return, when the path is bad or denied.
std::optional<Scope> OpenScope(const Json& args, ToolContext& ctx, IndexCache& cache,
                               const PathGuard& guard, ToolResult* fail) {
  auto path_arg = OptionalPath(args, "path");
  if (!path_arg) {
    *fail = ErrorResult(path_arg.error().message);
    return std::nullopt;
  }
  Scope s;
  s.base = ResolveToolPath(ctx, path_arg->value_or("."));
  if (auto denial = guard.CheckRead(s.base)) {
    *fail = DeniedResult(std::move(*denial));
    return std::nullopt;
  }
  struct stat st;
  if (::stat(s.base.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    *fail = ErrorResult(::stat(s.base.c_str(), &st) != 0
                            ? NotFoundMessage(ctx, s.base)
                            : ShowPath(ctx, s.base) + " is a file, not a folder; give a folder as path.");
    return std::nullopt;
  }
  std::filesystem::path root = s.base;
  std::filesystem::path cwd = ctx.cwd.empty() ? std::filesystem::current_path() : ctx.cwd;
  std::string rel = s.base.lexically_relative(cwd).generic_string();
  if (!rel.empty() && rel != "." && rel.rfind("..", 0) != 0) {
    root = cwd;
    s.prefix = rel + "/";
  }
  s.index = cache.Get(root.lexically_normal(), guard, ctx.cancel, &s.built);
  return s;
}

std::string KindOf(const IndexedPath& e) {
  return e.is_symlink ? "symlink" : e.is_dir ? "directory" : "file";
}

std::string LowerAscii(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  return out;
}

inline char LowerChar(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }

// text equals lower (already lower case), ignoring ASCII case. These run on
// every matched path of a query, so they do not allocate.
bool EqualsLower(std::string_view text, std::string_view lower) {
  if (text.size() != lower.size()) return false;
  for (size_t i = 0; i < text.size(); ++i)
    if (LowerChar(text[i]) != lower[i]) return false;
  return true;
}

bool ContainsLower(std::string_view text, std::string_view lower) {
  if (lower.empty()) return true;
  for (size_t i = 0; i + lower.size() <= text.size(); ++i)
    if (LowerChar(text[i]) == lower[0] && EqualsLower(text.substr(i, lower.size()), lower)) return true;
  return false;
}

bool IsEntryPoint(std::string_view name) {
  // string_views: their sizes are known, so most names are ruled out by size.
  static constexpr std::string_view kNames[] = {"main.rs", "lib.rs", "mod.rs", "main.go", "main.c",
                                                "main.cc", "main.cpp", "__init__.py", "__main__.py",
                                                "index.js", "index.ts", "index.jsx", "index.tsx",
                                                "index.mjs", "main.py", "main.ts", "main.js"};
  for (std::string_view n : kNames)
    if (EqualsLower(name, n)) return true;
  return false;
}

// The session's used files below the index root, by their path in it.
std::unordered_map<std::string, double> FrecencyBelow(const PathIndex& index) {
  std::unordered_map<std::string, double> out;
  std::string root = index.root().string();
  if (root.empty() || root.back() != '/') root += '/';
  for (auto& [path, score] : FrecencySnapshot())
    if (path.size() > root.size() && path.compare(0, root.size(), root) == 0)
      out[path.substr(root.size())] = score;
  return out;
}

Json ItemStat(const PathIndex& index, const IndexedPath& e, Json item) {
  struct stat st;
  if (::lstat((index.root() / e.rel).c_str(), &st) == 0) {
    item["size"] = static_cast<int64_t>(st.st_size);
    item["modified"] = static_cast<int64_t>(st.st_mtim.tv_sec);
  }
  return item;
}

const char* const kPathDescription =
    "Folder to search. Defaults to the working directory (the workspace); relative paths are "
    "resolved under it. Any readable folder works (e.g. the session's scratch folder).";

// ---------------------------------------------------------------------------

class FileSearchTool : public Tool {
 public:
  explicit FileSearchTool(std::shared_ptr<IndexCache> cache) : cache_(std::move(cache)) {}
  std::string name() const override { return "file_search"; }
  bool runs_in_worker() const override { return true; }
  std::string description() const override {
    return "Search the workspace's paths fast: fuzzy, typo-tolerant matching of path names "
           "(mode=search; match=glob for glob patterns), ranked by matches in the file name, "
           "files changed in git and the files this session read or edited; or a bounded "
           "directory tree (mode=tree). Skips .git and what .gitignore ignores. Returns JSON; "
           "pass next_offset as offset for the next page.";
  }
  Json parameters() const override {
    Json p = Json::parse(R"({"type":"object","additionalProperties":false,"required":["mode"],"properties":{
  "mode":{"type":"string","enum":["tree","search"],"description":"tree lists a bounded directory tree; search matches paths under the base path."},
  "path":{"type":"string"},
  "query":{"type":"string","description":"Search query. Required when mode=search. Interpreted according to match."},
  "match":{"type":"string","enum":["fuzzy","glob"],"description":"Search matching mode. Defaults to fuzzy path search."},
  "type":{"type":"string","enum":["any","file","directory"],"description":"Filter search/tree entries by type. Defaults to any."},
  "maxDepth":{"type":"number","minimum":0,"maximum":25,"description":"Maximum traversal depth for tree mode. Defaults to 3."},
  "maxResults":{"type":"number","minimum":1,"maximum":1000,"description":"Maximum entries to return. Defaults to 200."},
  "includeHidden":{"type":"boolean","description":"Include dotfiles and dot-directories. Defaults to false, except the base path itself is always allowed."},
  "offset":{"type":"number","minimum":0,"description":"Skip this many ranked results (next_offset of the previous page). Defaults to 0."}}})");
    p["properties"]["path"]["description"] = kPathDescription;
    return p;
  }
  std::string Summary(const Json& args) const override {
    std::string mode = StringOr(args, "mode", "search");
    std::string s = mode == "tree" ? SummaryLine("file_search tree", StringOr(args, "path"))
                                   : SummaryLine("file_search", StringOr(args, "query"));
    return s;
  }

 private:
  ToolResult Run(const Json& args, ToolContext& ctx) override {
    auto start = Clock::now();
    if (auto st = CheckArgsObject(args); !st) return ErrorResult(st.error().message);
    auto mode = RequiredString(args, "mode");
    if (!mode) return ErrorResult(mode.error().message);
    if (*mode != "tree" && *mode != "search")
      return ErrorResult("Invalid argument \"mode\": use \"search\" or \"tree\", not \"" +
                         SanitizeUtf8(CutLine(*mode, 40)) + "\".");
    auto query = OptionalString(args, "query");
    if (!query) return ErrorResult(query.error().message);
    auto match = OptionalString(args, "match");
    if (!match) return ErrorResult(match.error().message);
    std::string match_mode = match->value_or("fuzzy");
    if (match_mode != "fuzzy" && match_mode != "glob")
      return ErrorResult("Invalid argument \"match\": use \"fuzzy\" or \"glob\".");
    auto type = OptionalString(args, "type");
    if (!type) return ErrorResult(type.error().message);
    std::string type_filter = type->value_or("any");
    if (type_filter != "any" && type_filter != "file" && type_filter != "directory")
      return ErrorResult("Invalid argument \"type\": use \"any\", \"file\" or \"directory\".");
    auto depth = OptionalInt(args, "maxDepth", 0, 25);
    if (!depth) return ErrorResult(depth.error().message);
    auto max = OptionalInt(args, "maxResults", 1, 1000);
    if (!max) return ErrorResult(max.error().message);
    auto offset = OptionalInt(args, "offset", 0, INT32_MAX);
    if (!offset) return ErrorResult(offset.error().message);
    auto hidden = OptionalBool(args, "includeHidden");
    if (!hidden) return ErrorResult(hidden.error().message);
    if (*mode == "search" && (!*query || Trim(**query).empty()))
      return ErrorResult("Missing argument \"query\": mode=search needs a query (a few characters "
                         "of the path, or a glob with match=glob).");

    std::optional<PathGuard> own_guard;
    const PathGuard& guard = GuardOf(ctx, &own_guard);
    ToolResult fail;
    auto scope = OpenScope(args, ctx, *cache_, guard, &fail);
    if (!scope) return fail;
    PathIndex& index = *scope->index;
    std::lock_guard<std::mutex> lock(index.mutex());
    if (!scope->built) index.Refresh(guard, ctx.cancel);
    if (ctx.cancel && ctx.cancel->cancelled()) return ErrorResult("aborted");

    auto& entries = index.entries();
    const std::string& prefix = scope->prefix;
    auto cmp = [](const IndexedPath& e, const std::string& key) { return e.rel < key; };
    size_t lo = std::lower_bound(entries.begin(), entries.end(), prefix, cmp) - entries.begin();
    size_t hi = entries.size();
    if (!prefix.empty()) {
      std::string end = prefix.substr(0, prefix.size() - 1) + "0";
      hi = std::lower_bound(entries.begin() + lo, entries.end(), end, cmp) - entries.begin();
    }
    bool include_hidden = hidden->value_or(false);
    // Asked of every entry of every query: no string compares in here.
    const bool files_only = type_filter == "file", dirs_only = type_filter == "directory";
    auto wanted = [&](const IndexedPath& e) {
      if (e.is_dir ? files_only : dirs_only) return false;
      return include_hidden || !HiddenBelow(e, prefix.size());
    };
    size_t limit = static_cast<size_t>(max->value_or(200));
    size_t skip = static_cast<size_t>(offset->value_or(0));
    std::string shown_base = ShowPath(ctx, scope->base);
    std::string show_prefix = shown_base == "." ? "" : shown_base + "/";

    Json result;
    if (*mode == "tree") {
      int max_depth = static_cast<int>(depth->value_or(3));
      Json items = Json::array();
      bool truncated = false;
      size_t seen = 0;
      for (size_t i = lo; i < hi; ++i) {
        IndexedPath& e = entries[i];
        std::string_view below = std::string_view(e.rel).substr(prefix.size());
        int d = static_cast<int>(std::count(below.begin(), below.end(), '/')) + 1;
        if (d > max_depth || !wanted(e)) continue;
        if (guard.CheckRead(index.root() / e.rel)) continue;  // a link to a denied place
        if (seen++ < skip) continue;
        if (items.size() == limit) {
          truncated = true;
          break;
        }
        items.push_back({{"path", SanitizeUtf8(show_prefix + std::string(below))},
                         {"name", SanitizeUtf8(e.rel.substr(e.name_start))},
                         {"kind", KindOf(e)},
                         {"depth", d}});
      }
      result = {{"path", shown_base}, {"entry_type", type_filter}, {"max_depth", max_depth},
                {"limit", limit}, {"include_hidden", include_hidden}, {"truncated", truncated},
                {"items", items}};
      if (truncated) result["next_offset"] = skip + limit;
    } else {
      result = Search(index, entries, lo, hi, prefix, show_prefix, **query, match_mode, wanted,
                      limit, skip, guard);
      if (result.contains("error")) return ErrorResult(result["error"].get<std::string>());
    }
    Json out = {{"command", *mode == "tree" ? "tree" : "find"},
                {"base_path", shown_base},
                {"elapsed_ms", MsSince(start)},
                {"index", {{"files", entries.size()}, {"watching", index.watching()},
                           {"built_now", scope->built}, {"build_ms", index.build_ms()}}},
                {"result", result}};
    ToolResult r;
    r.text = out.dump(1);
    r.details = out;
    LimitResult(r);
    return r;
  }

  template <typename Wanted>
  Json Search(PathIndex& index, std::vector<IndexedPath>& entries, size_t lo, size_t hi,
              const std::string& prefix, const std::string& show_prefix, const std::string& query,
              const std::string& match_mode, Wanted wanted, size_t limit, size_t skip,
              const PathGuard& guard, bool bounded = true) {
    struct Hit {
      size_t i;
      double total;
      int base;
      bool exact;
      const char* match_type;
    };
    std::vector<Hit> hits;
    size_t files = 0, dirs = 0;
    size_t matched = 0;     // hits is every match, or (pruned) the ones that could be shown
    bool pruned = false;
    const size_t want_at_most = skip + limit;
    std::string lower_query = LowerAscii(Trim(query));
    // The session's used files: their boost is looked up after the scan,
    // and the scan never leaves them out.
    auto frecency = FrecencyBelow(index);
    std::vector<size_t> boosted;
    for (const auto& [rel, unused] : frecency) {
      (void)unused;
      auto it = std::lower_bound(entries.begin() + static_cast<std::ptrdiff_t>(lo),
                                 entries.begin() + static_cast<std::ptrdiff_t>(hi), rel,
                                 [](const IndexedPath& e, const std::string& key) { return e.rel < key; });
      if (it != entries.begin() + static_cast<std::ptrdiff_t>(hi) && it->rel == rel)
        boosted.push_back(static_cast<size_t>(it - entries.begin()));
    }
    std::sort(boosted.begin(), boosted.end());
    if (match_mode == "glob") {
      auto glob = Glob::Compile(Trim(query));
      if (!glob) return {{"error", glob.error().message}};
      for (size_t i = lo; i < hi; ++i) {
        IndexedPath& e = entries[i];
        (e.is_dir ? dirs : files)++;
        if (!wanted(e) || !glob->Matches(std::string_view(e.rel).substr(prefix.size()))) continue;
        hits.push_back({i, 100, 100, false, "glob"});
      }
      matched = hits.size();
    } else {
      std::vector<FuzzyQuery> words;
      for (std::string_view w : Split(lower_query, ' '))
        if (w.size() >= 2) words.emplace_back(w);
      if (words.empty()) words.emplace_back(lower_query);  // only short parts: use them all
      // Scoring is pure: on a large index the two halves are scored on two
      // threads (each with its own scanners) and joined in order, so the
      // result is the one a single pass gives.
      //
      // Only the first skip + limit are shown, so (bounded) a match is
      // kept only while it could still be among them: `floor` holds the
      // best skip + limit totals so far (before the boosts that need more
      // than the path, which only raise a total), and a match whose total
      // with every boost it could get (the file name's +45 %, git's +15 %;
      // a used file is always kept) stays below the lowest of them can
      // never be shown. It is counted and dropped before its file-name
      // checks. Each half keeps its own floor (a lower one: still exact).
      struct Part {
        std::vector<Hit> hits;
        size_t files = 0, dirs = 0, matched = 0;
        bool pruned = false;
        std::vector<double> floor;  // a min-heap of at most want_at_most totals
      };
      auto scan = [&](size_t from, size_t to, Part& part) {
        std::vector<FuzzyScanner> scanners(words.begin(), words.end());
        auto next_boosted = std::lower_bound(boosted.begin(), boosted.end(), from);
        auto lowest_first = std::greater<double>();
        for (size_t i = from; i < to; ++i) {
          const IndexedPath& e = entries[i];
          (e.is_dir ? part.dirs : part.files)++;
          if (!wanted(e)) continue;
          std::string_view rel = std::string_view(e.rel).substr(prefix.size());
          size_t name_start = e.name_start - prefix.size();
          int base = 0;
          for (FuzzyScanner& q : scanners) {
            int s = q.Score(rel, name_start, e.mask);
            if (s <= 0) {
              base = 0;
              break;
            }
            base += s;
          }
          if (base <= 0) continue;
          ++part.matched;
          while (next_boosted != boosted.end() && *next_boosted < i) ++next_boosted;
          const bool used = next_boosted != boosted.end() && *next_boosted == i;
          if (bounded && !used && part.floor.size() == want_at_most &&
              1.60 * base - static_cast<double>(rel.size()) * 0.01 + 1e-6 < part.floor.front()) {
            part.pruned = true;
            continue;
          }
          // Filename bonuses as FFF's: +40 % for the exact name (or the name
          // without its extension), +16 % for the query inside the name, +5 %
          // for entry points.
          std::string_view name = rel.substr(name_start);
          std::string_view stem = name.substr(0, name.rfind('.'));
          double total = base;
          bool exact = false;
          const char* type = "fuzzy_path";
          if (EqualsLower(name, lower_query) || EqualsLower(stem, lower_query)) {
            total += 0.40 * base;
            exact = true;
            type = "exact_filename";
          } else if (ContainsLower(name, lower_query)) {
            total += 0.16 * base;
            type = "fuzzy_filename";
          }  // "exact_path" (a label, no score) is told for the shown items only
          if (IsEntryPoint(name)) total += 0.05 * base;
          total -= static_cast<double>(rel.size()) * 0.01;  // shorter first among equals
          part.hits.push_back({i, total, base, exact, type});
          if (part.floor.size() < want_at_most) {
            part.floor.push_back(total);
            std::push_heap(part.floor.begin(), part.floor.end(), lowest_first);
          } else if (total > part.floor.front()) {
            std::pop_heap(part.floor.begin(), part.floor.end(), lowest_first);
            part.floor.back() = total;
            std::push_heap(part.floor.begin(), part.floor.end(), lowest_first);
          }
        }
      };
      Part first, second;
      size_t mid = hi;
      std::thread helper;
      if (hi - lo >= kParallelFrom) {
        mid = lo + (hi - lo) / 2;
        try {
          helper = std::thread(scan, mid, hi, std::ref(second));
        } catch (const std::system_error&) {  // no thread to be had (a pids limit): one pass
          mid = hi;
        }
      }
      scan(lo, mid, first);
      if (helper.joinable()) helper.join();
      hits = std::move(first.hits);
      hits.insert(hits.end(), second.hits.begin(), second.hits.end());
      files = first.files + second.files;
      dirs = first.dirs + second.dirs;
      matched = first.matched + second.matched;
      pruned = first.pruned || second.pruned;
    }
    // The boosts that need more than the path, on the matched entries only.
    if (!frecency.empty())
      for (Hit& h : hits)
        if (auto f = frecency.find(entries[h.i].rel); f != frecency.end()) {
          double boost = h.base * std::min(f->second, 100.0) / 100.0;
          h.total += boost;
          if (boost > h.base * 0.5 && std::strcmp(h.match_type, "fuzzy_path") == 0) h.match_type = "frecency";
        }
    auto better = [&](const Hit& a, const Hit& b) {
      if (a.total != b.total) return a.total > b.total;
      return entries[a.i].rel < entries[b.i].rel;
    };
    // Only the first `want` are shown. The git boost (+15 % of the base,
    // which needs a stat the first time an entry is asked) can only raise a
    // score, so an entry whose score with the boost stays below the
    // want-th best without it can never be among the first `want`: git is
    // asked for the others only, and only they are sorted. The rest is
    // ranked only if links to denied places, which are skipped, leave the
    // page short.
    size_t want = std::min(hits.size(), skip + limit);
    size_t kept = hits.size();
    if (want < hits.size()) {
      std::nth_element(hits.begin(), hits.begin() + static_cast<std::ptrdiff_t>(want - 1), hits.end(), better);
      double cut = hits[want - 1].total;
      kept = 0;
      for (size_t k = 0; k < hits.size(); ++k) {
        Hit& h = hits[k];
        if (k >= want && h.total + 0.15 * h.base < cut) continue;
        if (index.GitChanged(entries[h.i])) h.total += 0.15 * h.base;
        std::swap(hits[kept++], h);
      }
      std::partial_sort(hits.begin(), hits.begin() + static_cast<std::ptrdiff_t>(want),
                        hits.begin() + static_cast<std::ptrdiff_t>(kept), better);
    } else {
      for (Hit& h : hits)
        if (index.GitChanged(entries[h.i])) h.total += 0.15 * h.base;
      std::sort(hits.begin(), hits.end(), better);
    }
    auto rank_the_rest = [&] {
      for (size_t k = kept; k < hits.size(); ++k)
        if (index.GitChanged(entries[hits[k].i])) hits[k].total += 0.15 * hits[k].base;
      std::sort(hits.begin() + static_cast<std::ptrdiff_t>(want), hits.end(), better);
      want = kept = hits.size();
    };
    Json items = Json::array();
    size_t at = skip, shown = 0;
    for (; at < hits.size() && items.size() < limit; ++at) {
      if (at >= want) {
        // Links to denied places left the page short: the rest must be
        // ranked, and a bounded scan dropped some of it.
        if (pruned)
          return Search(index, entries, lo, hi, prefix, show_prefix, query, match_mode, wanted, limit,
                        skip, guard, false);
        rank_the_rest();
      }
      const Hit& h = hits[at];
      IndexedPath& e = entries[h.i];
      if (guard.CheckRead(index.root() / e.rel)) continue;  // a link to a denied place
      ++shown;
      std::string_view below = std::string_view(e.rel).substr(prefix.size());
      const char* match_type = h.match_type;
      // (a frecency label only ever replaced fuzzy_path, which this precedes)
      if ((std::strcmp(match_type, "fuzzy_path") == 0 || std::strcmp(match_type, "frecency") == 0) &&
          ContainsLower(below, lower_query))
        match_type = "exact_path";
      Json item = {{"path", SanitizeUtf8(show_prefix + std::string(below))},
                   {"name", SanitizeUtf8(e.rel.substr(e.name_start))},
                   {"kind", KindOf(e)},
                   {"git_status", !index.in_git() || e.is_dir ? Json(nullptr)
                                  : Json(index.GitChanged(e) ? "modified" : "clean")},
                   {"score", {{"total", static_cast<int64_t>(h.total)}, {"base_score", h.base},
                              {"exact_match", h.exact}, {"match_type", match_type}}}};
      items.push_back(ItemStat(index, e, std::move(item)));
    }
    Json result = {{"query", query}, {"mode", match_mode}, {"total_matched", matched},
                   {"total_files", files}, {"total_dirs", dirs}, {"offset", skip},
                   {"limit", limit}, {"items", items}};
    result["next_offset"] = at < matched ? Json(at) : Json(nullptr);
    return result;
  }

  std::shared_ptr<IndexCache> cache_;
};

// ---------------------------------------------------------------------------

struct CodeFree {
  void operator()(pcre2_code* c) const { pcre2_code_free(c); }
};
struct DataFree {
  void operator()(pcre2_match_data* d) const { pcre2_match_data_free(d); }
};
struct ContextFree {
  void operator()(pcre2_match_context* m) const { pcre2_match_context_free(m); }
};

// A line that defines something (FFF's is_definition): a keyword of the
// common languages at its start, after modifiers.
bool IsDefinition(std::string_view line) {
  line = Trim(line);
  static const char* const kModifiers[] = {"export ", "pub ", "pub(crate) ", "public ", "private ",
                                           "protected ", "static ", "async ", "inline ",
                                           "virtual ", "abstract ", "default ", "unsafe "};
  for (bool again = true; again;) {
    again = false;
    for (const char* m : kModifiers)
      if (line.rfind(m, 0) == 0) {
        line.remove_prefix(std::strlen(m));
        again = true;
      }
  }
  static const char* const kKeywords[] = {"fn ", "def ", "class ", "struct ", "enum ", "interface ",
                                          "trait ", "type ", "func ", "function ", "impl ",
                                          "module ", "namespace ", "union ", "#define ",
                                          "macro_rules!", "const ", "let ", "var "};
  for (const char* k : kKeywords)
    if (line.rfind(k, 0) == 0) return true;
  return false;
}

class ContentSearchTool : public Tool {
 public:
  explicit ContentSearchTool(std::shared_ptr<IndexCache> cache) : cache_(std::move(cache)) {}
  std::string name() const override { return "content_search"; }
  bool runs_in_worker() const override { return true; }
  std::string description() const override {
    return "Search inside the workspace's files for text or a regular expression (smart case "
           "by default), skipping .git, what .gitignore ignores, binary and oversized files. "
           "Results are ranked (definitions, files changed in git and files this session used "
           "first), bounded by maxResults, and paginated by file: pass next_file_offset as "
           "offset. Returns JSON with line, column, text and optional context lines.";
  }
  Json parameters() const override {
    Json p = Json::parse(R"({"type":"object","additionalProperties":false,"required":["query"],"properties":{
  "query":{"type":"string","description":"Text or regular expression to search for inside files."},
  "path":{"type":"string"},
  "match":{"type":"string","enum":["substring","regex"],"description":"Content matching mode. Defaults to substring."},
  "ignoreCase":{"type":"boolean","description":"Use smart-case matching when true. Defaults to true. Set false for case-sensitive matching."},
  "maxResults":{"type":"number","minimum":1,"maximum":1000,"description":"Maximum matches to return. Defaults to 200."},
  "maxFileBytes":{"type":"number","minimum":1,"maximum":50000000,"description":"Skip files larger than this many bytes. Defaults to 10000000."},
  "contextLines":{"type":"number","minimum":0,"maximum":5,"description":"Include this many lines before and after each match. Defaults to 0; maximum 5."},
  "offset":{"type":"number","minimum":0,"description":"Skip this many ranked files with matches (next_file_offset of the previous page). Defaults to 0."}}})");
    p["properties"]["path"]["description"] = kPathDescription;
    return p;
  }
  std::string Summary(const Json& args) const override {
    std::string s = SummaryLine("content_search", StringOr(args, "query"));
    std::string path = StringOr(args, "path");
    return path.empty() ? s : s + " in " + path;
  }

 private:
  struct Match {
    size_t line;
    size_t column;
    size_t byte_offset;
    std::string text;
    size_t start, end;  // in the line
    bool definition;
    std::vector<std::string> before, after;
  };
  struct FileHits {
    size_t entry;
    std::vector<Match> matches;
    size_t total = 0;
    bool definition = false;
    bool changed = false;
    double frecency = 0;
  };

  ToolResult Run(const Json& args, ToolContext& ctx) override {
    auto start = Clock::now();
    if (auto st = CheckArgsObject(args); !st) return ErrorResult(st.error().message);
    auto query = RequiredString(args, "query");
    if (!query) return ErrorResult(query.error().message);
    if (query->empty()) return ErrorResult("Invalid argument \"query\": give the text to search for.");
    auto match = OptionalString(args, "match");
    if (!match) return ErrorResult(match.error().message);
    std::string mode = match->value_or("substring");
    if (mode != "substring" && mode != "regex")
      return ErrorResult("Invalid argument \"match\": use \"substring\" or \"regex\".");
    auto ignore_case = OptionalBool(args, "ignoreCase");
    if (!ignore_case) return ErrorResult(ignore_case.error().message);
    auto max = OptionalInt(args, "maxResults", 1, 1000);
    if (!max) return ErrorResult(max.error().message);
    auto max_bytes = OptionalInt(args, "maxFileBytes", 1, 50'000'000);
    if (!max_bytes) return ErrorResult(max_bytes.error().message);
    auto context = OptionalInt(args, "contextLines", 0, 5);
    if (!context) return ErrorResult(context.error().message);
    auto offset = OptionalInt(args, "offset", 0, INT32_MAX);
    if (!offset) return ErrorResult(offset.error().message);

    // Smart case: case-insensitive unless the query has upper case.
    bool has_upper = std::any_of(query->begin(), query->end(), [](char c) { return c >= 'A' && c <= 'Z'; });
    bool caseless = ignore_case->value_or(true) && !has_upper;
    std::unique_ptr<pcre2_code, CodeFree> code;
    std::string regex_error;
    if (mode == "regex") {
      int err = 0;
      PCRE2_SIZE err_at = 0;
      uint32_t flags = PCRE2_MULTILINE | PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | (caseless ? PCRE2_CASELESS : 0);
      code.reset(pcre2_compile(reinterpret_cast<PCRE2_SPTR>(query->data()), query->size(), flags,
                               &err, &err_at, nullptr));
      if (!code) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(err, msg, sizeof msg);
        // As sage: an invalid expression is searched for as plain text, and the result says why.
        regex_error = "invalid regular expression at offset " + std::to_string(err_at) + ": " +
                      reinterpret_cast<char*>(msg) + "; searched as plain text";
      } else {
        pcre2_jit_compile(code.get(), PCRE2_JIT_COMPLETE);
      }
    }
    std::unique_ptr<pcre2_match_data, DataFree> data;
    std::unique_ptr<pcre2_match_context, ContextFree> mctx;
    if (code) {
      data.reset(pcre2_match_data_create_from_pattern(code.get(), nullptr));
      mctx.reset(pcre2_match_context_create(nullptr));
      pcre2_set_match_limit(mctx.get(), 5'000'000);
      pcre2_set_depth_limit(mctx.get(), 100'000);
    }
    std::string needle = caseless ? LowerAscii(*query) : *query;
    std::string filter_key = LowerAscii(*query);

    std::optional<PathGuard> own_guard;
    const PathGuard& guard = GuardOf(ctx, &own_guard);
    ToolResult fail;
    auto scope = OpenScope(args, ctx, *cache_, guard, &fail);
    if (!scope) return fail;
    PathIndex& index = *scope->index;
    std::lock_guard<std::mutex> lock(index.mutex());
    if (!scope->built) index.Refresh(guard, ctx.cancel);

    auto& entries = index.entries();
    const std::string& prefix = scope->prefix;
    auto cmp = [](const IndexedPath& e, const std::string& key) { return e.rel < key; };
    size_t lo = std::lower_bound(entries.begin(), entries.end(), prefix, cmp) - entries.begin();
    size_t hi = entries.size();
    if (!prefix.empty())
      hi = std::lower_bound(entries.begin() + lo, entries.end(), prefix.substr(0, prefix.size() - 1) + "0", cmp) -
           entries.begin();

    size_t limit = static_cast<size_t>(max->value_or(200));
    size_t per_file = std::min<size_t>(limit, 200);
    size_t ctx_lines = static_cast<size_t>(context->value_or(0));
    size_t file_cap = static_cast<size_t>(max_bytes->value_or(10'000'000));
    constexpr size_t kMaxFilesKept = 5000;  // files whose matches are kept for ranking
    std::vector<FileHits> found;
    size_t total_matched = 0, files_with_matches = 0, searched = 0, skipped_filter = 0;
    size_t considered = 0;
    std::string content, lowered;
    PathIndex::DirCache dirs;
    for (size_t i = lo; i < hi; ++i) {
      if (ctx.cancel && ctx.cancel->cancelled()) return ErrorResult("aborted");
      IndexedPath& e = entries[i];
      if (e.is_dir || e.is_symlink || HiddenBelow(e, prefix.size())) continue;
      ++considered;
      if (!code && !PathIndex::MayHold(e, filter_key)) {
        ++skipped_filter;
        continue;
      }
      UniqueFd fd = index.OpenBeneath(e, &dirs);
      if (!fd.valid()) continue;
      struct stat st;
      if (::fstat(fd.get(), &st) != 0 || static_cast<size_t>(st.st_size) > file_cap) continue;
      content.resize(static_cast<size_t>(st.st_size));
      size_t got = 0;
      while (got < content.size()) {
        ssize_t n = ::read(fd.get(), content.data() + got, content.size() - got);
        if (n <= 0) break;
        got += static_cast<size_t>(n);
      }
      content.resize(got);
      ++searched;
      if (e.filter_state == 0) PathIndex::FillFilter(e, content);
      if (LooksBinary(std::string_view(content).substr(0, std::min(content.size(), kSniffBytes)))) continue;
      const std::string* hay = &content;
      if (caseless && !code) {
        lowered = LowerAscii(content);
        hay = &lowered;
      }
      FileHits fh;
      fh.entry = i;
      LineCursor cursor;
      auto add = [&](size_t at, size_t len) {
        ++fh.total;
        if (fh.matches.size() >= per_file || found.size() >= kMaxFilesKept) return;
        fh.matches.push_back(MakeMatch(content, at, len, ctx_lines, cursor));
        fh.definition |= fh.matches.back().definition;
      };
      if (code) {
        size_t at = 0;
        while (at <= content.size()) {
          int rc = pcre2_match(code.get(), reinterpret_cast<PCRE2_SPTR>(content.data()), content.size(),
                               at, 0, data.get(), mctx.get());
          if (rc < 0) break;
          PCRE2_SIZE* ov = pcre2_get_ovector_pointer(data.get());
          add(ov[0], ov[1] - ov[0]);
          // One match per line, as grep: continue after the line.
          size_t nl = content.find('\n', std::max<size_t>(ov[1], ov[0] + 1) - 1);
          if (nl == std::string::npos) break;
          at = nl + 1;
        }
      } else {
        size_t at = 0;
        while ((at = hay->find(needle, at)) != std::string::npos) {
          add(at, needle.size());
          size_t nl = hay->find('\n', at + needle.size());
          if (nl == std::string::npos) break;
          at = nl + 1;
        }
      }
      if (fh.total == 0) continue;
      ++files_with_matches;
      total_matched += fh.total;
      if (found.size() < kMaxFilesKept) found.push_back(std::move(fh));
    }
    // Rank the files: definitions, then changed in git, then used by this session, then path.
    auto frecency = FrecencyBelow(index);
    for (FileHits& f : found) {
      IndexedPath& e = entries[f.entry];
      f.changed = index.GitChanged(e);
      if (auto it = frecency.find(e.rel); it != frecency.end()) f.frecency = it->second;
    }
    std::stable_sort(found.begin(), found.end(), [](const FileHits& a, const FileHits& b) {
      if (a.definition != b.definition) return a.definition;
      double sa = a.frecency + (a.changed ? 16 : 0), sb = b.frecency + (b.changed ? 16 : 0);
      return sa > sb;
    });
    std::string shown_base = ShowPath(ctx, scope->base);
    std::string show_prefix = shown_base == "." ? "" : shown_base + "/";
    Json matches = Json::array();
    size_t skip = static_cast<size_t>(offset->value_or(0));
    size_t f = skip;
    for (; f < found.size() && matches.size() < limit; ++f) {
      const FileHits& fh = found[f];
      IndexedPath& e = entries[fh.entry];
      if (guard.CheckRead(index.root() / e.rel)) continue;
      std::string shown = SanitizeUtf8(show_prefix + e.rel.substr(prefix.size()));
      for (const Match& m : fh.matches) {
        if (matches.size() == limit) break;
        Json j = {{"path", shown}, {"name", SanitizeUtf8(e.rel.substr(e.name_start))},
                  {"line", m.line}, {"column", m.column}, {"byte_offset", m.byte_offset},
                  {"text", m.text}, {"ranges", Json::array({Json::array({m.start, m.end})})},
                  {"is_definition", m.definition},
                  {"git_status", !index.in_git() ? Json(nullptr) : Json(fh.changed ? "modified" : "clean")}};
        if (ctx_lines) {
          j["before"] = m.before;
          j["after"] = m.after;
        }
        matches.push_back(std::move(j));
      }
    }
    Json result = {{"query", *query}, {"mode", code ? "Regex" : "PlainText"},
                   {"ignore_case", caseless}, {"path", shown_base},
                   {"total_matched", total_matched}, {"files_with_matches", files_with_matches},
                   {"total_files", considered}, {"total_files_searched", searched},
                   {"filtered_file_count", skipped_filter},
                   {"next_file_offset", f < found.size() ? Json(f) : Json(nullptr)},
                   {"regex_fallback_error", regex_error.empty() ? Json(nullptr) : Json(regex_error)},
                   {"matches", matches}};
    if (files_with_matches > found.size())
      result["note"] = "matches in more than " + std::to_string(kMaxFilesKept) +
                       " files: only the first are ranked and paged; narrow the query or path";
    Json out = {{"command", "grep"}, {"base_path", shown_base}, {"elapsed_ms", MsSince(start)},
                {"result", result}};
    ToolResult r;
    r.text = out.dump(1);
    r.details = out;
    LimitResult(r);
    return r;
  }

  static std::string LineText(std::string_view line) {
    return SanitizeUtf8(CutLine(line, 300));
  }

  // Where the last match's line was counted to: matches come in order, so
  // counting lines is linear in the file.
  struct LineCursor {
    size_t pos = 0;
    size_t line = 1;
  };

  static Match MakeMatch(const std::string& content, size_t at, size_t len, size_t ctx_lines,
                         LineCursor& cursor) {
    Match m;
    size_t nl = at == 0 ? std::string::npos : content.rfind('\n', at - 1);
    size_t line_start = nl == std::string::npos ? 0 : nl + 1;
    size_t line_end = content.find('\n', at);
    if (line_end == std::string::npos) line_end = content.size();
    if (line_start < cursor.pos) cursor = {};  // never: matches come in order
    cursor.line += static_cast<size_t>(
        std::count(content.begin() + cursor.pos, content.begin() + line_start, '\n'));
    cursor.pos = line_start;
    m.line = cursor.line;
    m.column = at - line_start + 1;
    m.byte_offset = at;
    std::string_view line(content.data() + line_start, line_end - line_start);
    m.text = LineText(line);
    m.start = at - line_start;
    m.end = std::min(m.start + len, line.size());
    m.definition = IsDefinition(line);
    size_t b = line_start;
    for (size_t k = 0; k < ctx_lines && b > 0; ++k) {
      size_t end = b - 1;  // the '\n' that ends the line before
      size_t p = end == 0 ? std::string::npos : content.rfind('\n', end - 1);
      size_t s = p == std::string::npos ? 0 : p + 1;
      m.before.insert(m.before.begin(), LineText(std::string_view(content.data() + s, end - s)));
      b = s;
    }
    size_t a = line_end;
    for (size_t k = 0; k < ctx_lines && a < content.size(); ++k) {
      size_t s = a + 1, t = content.find('\n', s);
      if (t == std::string::npos) t = content.size();
      m.after.push_back(LineText(std::string_view(content.data() + s, t - s)));
      a = t;
    }
    return m;
  }

  std::shared_ptr<IndexCache> cache_;
};

}  // namespace

void AddSearchTools(ToolRegistry& registry) {
  auto cache = std::make_shared<IndexCache>();
  registry.Add(std::make_unique<FileSearchTool>(cache));
  registry.Add(std::make_unique<ContentSearchTool>(cache));
}

}  // namespace sepp::tools
