// grep: a PCRE2 (JIT) search through files, skipping binary files and what
// .gitignore ignores.
//
// Each file is read whole and searched as one buffer in multiline mode (^ and
// $ match at line ends), which is much faster than matching line by line;
// after a match the search resumes at the next line, so a line is reported
// once. Output: "path:line: text" for matches and "path-line- text" for
// context lines, with "--" between separate groups, paths relative to the
// working directory. Patterns are compiled with UTF mode tolerant of invalid
// UTF-8 in files; match and depth limits stop catastrophic backtracking.
#include <pcre2.h>
#include <optional>
#include <sys/stat.h>

#include <algorithm>
#include <memory>

#include "base/fd.h"
#include "base/file.h"
#include "base/secrets.h"
#include "base/strings.h"
#include "tools/access.h"
#include "tools/args.h"
#include "tools/files.h"
#include "tools/safe_open.h"
#include "tools/glob.h"
#include "tools/truncate.h"
#include "tools/walk.h"

namespace sepp::tools {
namespace {

constexpr int64_t kDefaultLimit = 100;
constexpr size_t kMaxShownLine = 500;
constexpr uint64_t kMaxFileBytes = 64ull << 20;

struct CodeDeleter {
  void operator()(pcre2_code* c) const { pcre2_code_free(c); }
};
struct MatchDataDeleter {
  void operator()(pcre2_match_data* m) const { pcre2_match_data_free(m); }
};
struct MatchContextDeleter {
  void operator()(pcre2_match_context* m) const { pcre2_match_context_free(m); }
};
struct JitStackDeleter {
  void operator()(pcre2_jit_stack* s) const { pcre2_jit_stack_free(s); }
};

struct Options {
  size_t context = 0;
  size_t limit = kDefaultLimit;
};

// One search: the compiled pattern and the state to run it, owned by one
// call (tools run in parallel; nothing here is shared).
class Matcher {
 public:
  static Result<std::unique_ptr<Matcher>> Make(const std::string& pattern, bool ignore_case,
                                               bool literal) {
    // PCRE2_LITERAL allows no MULTILINE (nor needs it: no ^ or $).
    uint32_t flags = PCRE2_UTF | PCRE2_MATCH_INVALID_UTF;
    flags |= literal ? PCRE2_LITERAL : PCRE2_MULTILINE;
    if (ignore_case) flags |= PCRE2_CASELESS;
    int err = 0;
    PCRE2_SIZE offset = 0;
    pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                                     flags, &err, &offset, nullptr);
    if (!code) {
      PCRE2_UCHAR msg[256];
      pcre2_get_error_message(err, msg, sizeof msg);
      return Error::Make("Invalid regular expression: " + std::string(reinterpret_cast<char*>(msg)) +
                             " at offset " + std::to_string(offset) + " of the pattern. Escape "
                             "special characters, or set literal=true to search for the text as "
                             "it is.",
                         "invalid_args");
    }
    auto m = std::make_unique<Matcher>();
    m->code_.reset(code);
    m->jit_ = pcre2_jit_compile(code, PCRE2_JIT_COMPLETE) == 0;
    m->data_.reset(pcre2_match_data_create_from_pattern(code, nullptr));
    m->mctx_.reset(pcre2_match_context_create(nullptr));
    pcre2_set_match_limit(m->mctx_.get(), 5'000'000);
    pcre2_set_depth_limit(m->mctx_.get(), 100'000);
    if (m->jit_) {
      m->stack_.reset(pcre2_jit_stack_create(32 * 1024, 4 * 1024 * 1024, nullptr));
      if (m->stack_) pcre2_jit_stack_assign(m->mctx_.get(), nullptr, m->stack_.get());
    }
    return m;
  }

  // The start offset of the next match at or after start; npos for none;
  // an error code (< 0, not NOMATCH) in *rc when matching gave up.
  size_t Next(std::string_view text, size_t start, int* rc) {
    *rc = pcre2_match(code_.get(), reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(), start,
                      0, data_.get(), mctx_.get());
    if (*rc < 0) return std::string_view::npos;
    return pcre2_get_ovector_pointer(data_.get())[0];
  }

 private:
  std::unique_ptr<pcre2_code, CodeDeleter> code_;
  std::unique_ptr<pcre2_match_data, MatchDataDeleter> data_;
  std::unique_ptr<pcre2_match_context, MatchContextDeleter> mctx_;
  std::unique_ptr<pcre2_jit_stack, JitStackDeleter> stack_;
  bool jit_ = false;
};

class GrepTool : public Tool {
 public:
  std::string name() const override { return "grep"; }
  bool runs_in_worker() const override { return true; }

  std::string description() const override {
    return "Search file contents with a regular expression (PCRE2/Perl syntax), or plain text "
           "with literal=true. Searches a file, or a folder recursively, skipping binary files, "
           ".git and everything .gitignore ignores. Output lines are \"path:line: text\" "
           "(context lines \"path-line- text\"). Stops after 100 matching lines unless limit "
           "says otherwise; long lines are cut to 500 bytes.";
  }

  Json parameters() const override {
    return Json::parse(R"({
      "type": "object",
      "properties": {
        "pattern": {"type": "string", "description": "Regular expression (PCRE2), or the text itself when literal is true."},
        "path": {"type": "string", "description": "File or folder to search. Default: the working directory."},
        "glob": {"type": "string", "description": "Only search files matching this glob, e.g. \"*.ts\" or \"src/**/*.{h,cc}\"."},
        "ignore_case": {"type": "boolean", "description": "Case-insensitive search. Default false."},
        "literal": {"type": "boolean", "description": "Treat pattern as plain text, not a regex. Default false."},
        "context": {"type": "integer", "minimum": 0, "maximum": 20, "description": "Lines of context to show before and after each match. Default 0."},
        "limit": {"type": "integer", "minimum": 1, "description": "Maximum number of matching lines to return. Default 100."}
      },
      "required": ["pattern"],
      "additionalProperties": false
    })");
  }

  std::string Summary(const Json& args) const override {
    std::string s = SummaryLine("grep", FirstLine(StringOr(args, "pattern")));
    std::string path = StringOr(args, "path");
    return path.empty() ? s : s + " " + path;
  }

 private:
  static std::string FirstLine(const std::string& s) {
    std::string line = s.substr(0, s.find('\n'));
    if (line.size() > 60) line = line.substr(0, Utf8SafePrefix(line, 60)) + "…";
    return line;
  }

  ToolResult Run(const Json& args, ToolContext& ctx) override {
    if (auto st = CheckArgsObject(args); !st) return ErrorResult(st.error().message);
    auto pattern = RequiredString(args, "pattern");
    if (!pattern) return ErrorResult(pattern.error().message);
    auto path_arg = OptionalPath(args, "path");
    if (!path_arg) return ErrorResult(path_arg.error().message);
    auto glob_arg = OptionalString(args, "glob");
    if (!glob_arg) return ErrorResult(glob_arg.error().message);
    auto ignore_case = OptionalBool(args, "ignore_case");
    if (!ignore_case) return ErrorResult(ignore_case.error().message);
    auto literal = OptionalBool(args, "literal");
    if (!literal) return ErrorResult(literal.error().message);
    auto context = OptionalInt(args, "context", 0, 20);
    if (!context) return ErrorResult(context.error().message);
    auto limit = OptionalInt(args, "limit", 1, INT64_MAX);
    if (!limit) return ErrorResult(limit.error().message);

    std::optional<Glob> glob;
    if (*glob_arg) {
      auto g = Glob::Compile(**glob_arg);
      if (!g) return ErrorResult("Invalid argument \"glob\": " + g.error().message);
      glob = std::move(*g);
    }
    auto matcher = Matcher::Make(*pattern, ignore_case->value_or(false), literal->value_or(false));
    if (!matcher) return ErrorResult(matcher.error().message);

    std::filesystem::path root = ResolveToolPath(ctx, path_arg->value_or("."));
    std::optional<PathGuard> own_guard;
    const PathGuard& guard = GuardOf(ctx, &own_guard);
    if (auto denial = guard.CheckRead(root)) return DeniedResult(std::move(*denial));
    std::string shown_root = ShowPath(ctx, root);
    struct stat st;
    if (::stat(root.c_str(), &st) != 0) {
      if (errno == ENOENT || errno == ENOTDIR) return ErrorResult(NotFoundMessage(ctx, root));
      return ErrorResult("Cannot search " + shown_root + ": " + ErrnoText(errno) + ".");
    }

    Options opt;
    opt.context = static_cast<size_t>(context->value_or(0));
    opt.limit = static_cast<size_t>(limit->value_or(kDefaultLimit));
    Search search(ctx, **matcher, opt);
    if (S_ISDIR(st.st_mode)) {
      WalkOptions wo;
      wo.cancel = ctx.cancel;
      WalkHider hider(guard, root);
      Walk(root, wo, [&](const WalkEntry& e) {
        if (hider.Hidden(e.rel, e.is_dir) || e.is_dir) return true;
        if (glob && !glob->Matches(e.rel)) return true;
        // A link may point anywhere: search it only if its target may be read.
        if (e.is_symlink && guard.CheckRead(e.path).has_value()) return true;
        return search.File(e.path);
      });
    } else {
      search.File(root);  // an explicit file is searched even if ignored
    }

    ToolResult r;
    if (ctx.cancel && ctx.cancel->cancelled()) {
      r.is_error = true;
      r.text = "aborted";
      return r;
    }
    if (search.matches == 0) {
      r.text = "No matches for " + SanitizeUtf8(CutLine(*pattern, 200)) + " in " + shown_root +
               (glob ? " (files matching " + **glob_arg + ")" : std::string()) + ".";
    } else {
      r.text = Redact(search.out);
    }
    std::vector<std::string> notes;
    if (search.stopped)
      notes.push_back("Stopped at the limit of " + std::to_string(opt.limit) +
                      " matching lines; there may be more. Use a narrower pattern, path or glob, "
                      "or a larger limit.");
    if (search.gave_up > 0)
      notes.push_back("The pattern was too expensive to finish in " + std::to_string(search.gave_up) +
                      " file(s) (" + search.gave_up_example + "); simplify it.");
    if (search.too_big > 0)
      notes.push_back("Skipped " + std::to_string(search.too_big) + " file(s) over " +
                      HumanBytes(kMaxFileBytes) + ".");
    Truncation t = TruncateHead(r.text);
    if (t.truncated) {
      r.text = t.text;
      notes.push_back("Output cut at " + std::to_string(t.head_lines) +
                      " lines; narrow the search or use a smaller context.");
    }
    if (!notes.empty()) {
      if (!r.text.empty() && r.text.back() != '\n') r.text += '\n';
      r.text += "[" + Join(notes, " ") + "]";
    }
    r.truncated = search.stopped || t.truncated;
    r.details = {{"matches", search.matches}, {"files", search.files_with_matches}};
    return r;
  }

  struct Search {
    Search(ToolContext& c, Matcher& m, Options o) : ctx(c), matcher(m), opt(o) {}
    ToolContext& ctx;
    Matcher& matcher;
    Options opt;
    std::string out;
    size_t matches = 0;
    size_t files_with_matches = 0;
    size_t too_big = 0;
    size_t gave_up = 0;
    std::string gave_up_example;
    bool stopped = false;

    // Returns false once the limit is reached (stop the walk).
    bool File(const std::filesystem::path& path) {
      if (ctx.cancel && ctx.cancel->cancelled()) return false;
      // Regular files only, opened without blocking and read up to the limit
      // (a file swapped for a FIFO or grown since the walk saw it is skipped).
      auto data = ReadRegularFile(path, kMaxFileBytes);
      if (!data.ok()) {
        if (data.error().kind == "too_large") ++too_big;
        return true;
      }
      std::string_view text = *data;
      if (text.substr(0, kSniffBytes).find('\0') != std::string_view::npos) return true;

      std::vector<size_t> hit_lines;  // 0-based line numbers of matching lines
      size_t pos = 0, line = 0, counted_to = 0;
      while (pos <= text.size() && matches + hit_lines.size() < opt.limit) {
        int rc = 0;
        size_t at = matcher.Next(text, pos, &rc);
        if (rc == PCRE2_ERROR_NOMATCH) break;
        if (rc < 0) {
          if (gave_up++ == 0) gave_up_example = ShowPath(ctx, path);
          break;
        }
        // An empty match after the final newline is not a line.
        if (at >= text.size() && (text.empty() || text.back() == '\n')) break;
        line += static_cast<size_t>(std::count(text.begin() + static_cast<long>(counted_to),
                                                text.begin() + static_cast<long>(at), '\n'));
        counted_to = at;
        hit_lines.push_back(line);
        size_t nl = text.find('\n', at);
        if (nl == std::string_view::npos) break;
        // Resume on the next line; count the newline we skip over.
        pos = nl + 1;
        counted_to = pos;
        ++line;
      }
      if (hit_lines.empty()) return true;
      ++files_with_matches;
      matches += hit_lines.size();
      Print(path, text, hit_lines);
      if (matches >= opt.limit) {
        stopped = true;  // there may be more: the search ends here
        return false;
      }
      return true;
    }

    void Print(const std::filesystem::path& path, std::string_view text,
               const std::vector<size_t>& hits) {
      std::string shown = SanitizeUtf8(ShowPath(ctx, path));
      // Line starts, only as far as the last line we need.
      size_t need = hits.back() + opt.context;
      std::vector<size_t> starts{0};
      for (size_t p = 0; starts.size() <= need + 1;) {
        size_t nl = text.find('\n', p);
        if (nl == std::string_view::npos) break;
        p = nl + 1;
        if (p >= text.size()) break;
        starts.push_back(p);
      }
      size_t last_line = starts.size() - 1;
      auto line_text = [&](size_t i) {
        size_t b = starts[i];
        size_t e = i + 1 < starts.size() ? starts[i + 1] - 1 : text.find('\n', b);
        if (e == std::string_view::npos) e = text.size();
        std::string_view l = text.substr(b, e - b);
        if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
        return SanitizeUtf8(CutLine(l, kMaxShownLine));
      };
      if (opt.context == 0) {
        for (size_t h : hits) out += shown + ":" + std::to_string(h + 1) + ": " + line_text(h) + "\n";
        return;
      }
      if (!out.empty()) out += "--\n";  // groups of different files
      size_t printed_to = 0;  // one past the last printed line
      bool any = false;
      for (size_t k = 0; k < hits.size(); ++k) {
        size_t h = hits[k];
        size_t from = h >= opt.context ? h - opt.context : 0;
        size_t to = std::min(h + opt.context, last_line);
        if (any && from > printed_to) out += "--\n";
        from = std::max(from, any ? printed_to : 0);
        for (size_t i = from; i <= to; ++i) {
          bool is_hit = std::binary_search(hits.begin(), hits.end(), i);
          out += shown + (is_hit ? ":" : "-") + std::to_string(i + 1) + (is_hit ? ": " : "- ") +
                 line_text(i) + "\n";
        }
        printed_to = to + 1;
        any = true;
      }
    }
  };
};

}  // namespace

std::unique_ptr<Tool> MakeGrepTool() { return std::make_unique<GrepTool>(); }

}  // namespace sepp::tools
