// edit: exact-text replacements in one file, all or nothing.
//
// Each edit's old_string must occur exactly once in the text as it stands
// after the edits before it; otherwise nothing is written and the error says
// why in a way the model can act on: for no match, the closest line(s) of the
// file (and whether only whitespace differs); for several, their count and
// line numbers. A file with CRLF line ends accepts old_string written with
// '\n'. The result carries a unified diff (text and details.diff).
// With a front end's file access that reads and writes (an editor's
// buffers), the text is read from there and written back there, so unsaved
// changes in the editor are the ones edited.
#include <algorithm>
#include <optional>
#include <cstdio>
#include <sys/stat.h>
#include <unordered_map>

#include "base/fd.h"
#include "base/file.h"
#include "base/secrets.h"
#include "base/strings.h"
#include "tools/access.h"
#include "tools/args.h"
#include "tools/diff.h"
#include "tools/file_access.h"
#include "tools/files.h"
#include "tools/frecency.h"
#include "tools/safe_open.h"
#include "tools/truncate.h"

namespace sepp::tools {
namespace {

// Larger files are edited with bash: edit holds the file and its new text
// in memory.
constexpr size_t kMaxEditBytes = 64u << 20;

struct Edit {
  std::string old_string;
  std::string new_string;
};

size_t LineOf(std::string_view text, size_t pos) {
  return 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + pos, '\n'));
}

// Every start position of needle (overlapping ones too), at most max_hits.
std::vector<size_t> FindAll(std::string_view hay, std::string_view needle, size_t max_hits) {
  std::vector<size_t> hits;
  for (size_t p = hay.find(needle); p != std::string_view::npos && hits.size() < max_hits;
       p = hay.find(needle, p + 1))
    hits.push_back(p);
  return hits;
}

std::string CollapseSpace(std::string_view s) {
  std::string out;
  bool space = false;
  for (char c : Trim(s)) {
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

// Dice coefficient of character bigrams: cheap, order-tolerant similarity.
double Similarity(std::string_view a, std::string_view b) {
  if (a.size() < 2 || b.size() < 2) return a == b ? 1.0 : 0.0;
  std::unordered_map<uint16_t, int> grams;
  for (size_t i = 0; i + 1 < a.size(); ++i)
    ++grams[static_cast<uint16_t>((static_cast<unsigned char>(a[i]) << 8) |
                                  static_cast<unsigned char>(a[i + 1]))];
  int common = 0;
  for (size_t i = 0; i + 1 < b.size(); ++i) {
    auto it = grams.find(static_cast<uint16_t>((static_cast<unsigned char>(b[i]) << 8) |
                                               static_cast<unsigned char>(b[i + 1])));
    if (it != grams.end() && it->second > 0) {
      --it->second;
      ++common;
    }
  }
  return 2.0 * common / static_cast<double>(a.size() + b.size() - 2);
}

std::string Numbered(const std::vector<std::string>& lines, size_t from, size_t count) {
  std::string out;
  for (size_t i = from; i < lines.size() && i < from + count; ++i) {
    char num[32];
    std::snprintf(num, sizeof num, "%6zu\t", i + 1);
    out += num + SanitizeUtf8(CutLine(lines[i], 300)) + "\n";
  }
  return out;
}

// True when every non-blank line of text starts like read's output
// ("   12\t"): the model copied line numbers into old_string.
bool HasReadLineNumbers(const std::string& text) {
  bool any = false;
  for (const auto& line : SplitLines(text)) {
    if (Trim(line).empty()) continue;
    size_t i = line.find_first_not_of(' ');
    size_t j = line.find_first_not_of("0123456789", i);
    if (i == std::string::npos || j == i || j == std::string::npos || line[j] != '\t') return false;
    any = true;
  }
  return any;
}

// The "not found" explanation: where the text nearly is.
std::string Closest(const std::string& content, const std::string& needle) {
  std::vector<std::string> file = SplitLines(content);
  std::vector<std::string> want = SplitLines(needle);
  if (file.empty() || want.empty()) return "";
  // Whitespace-only difference: a window of file lines equal to the wanted
  // lines once spaces are collapsed.
  std::vector<std::string> want_norm;
  for (auto& w : want) want_norm.push_back(CollapseSpace(w));
  for (size_t i = 0; i + want.size() <= file.size(); ++i) {
    bool same = true;
    for (size_t j = 0; j < want.size() && same; ++j) same = CollapseSpace(file[i + j]) == want_norm[j];
    if (same)
      return "A match that differs only in whitespace (indentation, tabs, trailing spaces) "
             "starts at line " + std::to_string(i + 1) + ":\n" +
             Numbered(file, i, std::min<size_t>(want.size(), 10)) +
             "Copy the text exactly as the file has it.";
  }
  // Otherwise the line most like the first non-blank wanted line.
  size_t first = 0;
  while (first < want.size() && Trim(want[first]).empty()) ++first;
  if (first == want.size()) return "";
  std::string key = std::string(Trim(want[first]));
  double best = 0;
  size_t best_line = 0;
  for (size_t i = 0; i < file.size(); ++i) {
    double s = Similarity(key, Trim(file[i]));
    if (s > best) best = s, best_line = i;
  }
  if (best < 0.5) return "No line of the file is close to it; read the file to see its current text.";
  size_t from = best_line >= first ? best_line - first : 0;
  return "The closest text is at line " + std::to_string(best_line + 1) + ":\n" +
         Numbered(file, from, std::min<size_t>(want.size(), 10)) +
         "Read the file again if it may have changed.";
}

class EditTool : public Tool {
 public:
  std::string name() const override { return "edit"; }
  bool runs_in_worker() const override { return true; }

  std::string description() const override {
    return "Edit a file by exact text replacement. Give old_string and new_string, or edits: "
           "a list of {old_string, new_string} applied in order. Each old_string must match the "
           "file's current text exactly (whitespace included) and exactly once; add surrounding "
           "lines to make it unique. Either every edit applies or none does. Returns a unified "
           "diff of the change.";
  }

  Json parameters() const override {
    return Json::parse(R"({
      "type": "object",
      "properties": {
        "path": {"type": "string", "description": "File to edit, relative to the working directory or absolute."},
        "old_string": {"type": "string", "description": "Exact text to replace; must occur exactly once."},
        "new_string": {"type": "string", "description": "Replacement text."},
        "edits": {
          "type": "array",
          "description": "Several replacements, applied in order (instead of old_string/new_string).",
          "items": {
            "type": "object",
            "properties": {
              "old_string": {"type": "string"},
              "new_string": {"type": "string"}
            },
            "required": ["old_string", "new_string"]
          }
        }
      },
      "required": ["path"],
      "additionalProperties": false
    })");
  }

  bool uses(const FileAccess& access) const override { return access.reads() && access.writes(); }

  std::string Summary(const Json& args) const override {
    return SummaryLine("edit", StringOr(args, "path"));
  }

 private:
  static Result<std::vector<Edit>> ParseEdits(const Json& args) {
    bool has_single = args.is_object() && (args.contains("old_string") || args.contains("new_string"));
    bool has_list = args.is_object() && args.contains("edits") && !args["edits"].is_null();
    if (has_single && has_list)
      return Error::Make("Give either old_string/new_string or edits, not both.");
    std::vector<Edit> edits;
    if (has_list) {
      const Json& list = args["edits"];
      if (!list.is_array())
        return Error::Make("Invalid argument \"edits\": expected an array of {old_string, "
                           "new_string} objects, got " + JsonTypeName(list) + ".");
      if (list.empty()) return Error::Make("Invalid argument \"edits\": the list is empty.");
      for (size_t i = 0; i < list.size(); ++i) {
        std::string where = "edits[" + std::to_string(i) + "]";
        if (!list[i].is_object())
          return Error::Make("Invalid argument \"" + where + "\": expected an object with "
                             "old_string and new_string, got " + JsonTypeName(list[i]) + ".");
        auto o = RequiredString(list[i], "old_string");
        if (!o) return Error::Make(where + ": " + o.error().message);
        auto n = RequiredString(list[i], "new_string");
        if (!n) return Error::Make(where + ": " + n.error().message);
        edits.push_back({*o, *n});
      }
    } else {
      auto o = RequiredString(args, "old_string");
      if (!o) return Error::Make(o.error().message + " Give old_string and new_string, or edits.");
      auto n = RequiredString(args, "new_string");
      if (!n) return n.error();
      edits.push_back({*o, *n});
    }
    return edits;
  }

  ToolResult Run(const Json& args, ToolContext& ctx) override {
    if (auto st = CheckArgsObject(args); !st) return ErrorResult(st.error().message);
    auto path_arg = RequiredPath(args, "path");
    if (!path_arg) return ErrorResult(path_arg.error().message);
    auto edits = ParseEdits(args);
    if (!edits) return ErrorResult(edits.error().message);

    std::filesystem::path path = ResolveToolPath(ctx, *path_arg);
    std::optional<PathGuard> own_guard;
    const PathGuard& guard = GuardOf(ctx, &own_guard);
    if (auto denial = guard.CheckWrite(path)) return DeniedResult(std::move(*denial));
    std::string shown = ShowPath(ctx, path);
    path = WriteDestination(path);
    // From reading the file to replacing it: another write or edit of it in
    // the same batch waits, so neither change is lost.
    auto update_lock = LockFileForUpdate(path);
    FileAccess* access = ctx.file_access && uses(*ctx.file_access) ? ctx.file_access : nullptr;
    struct stat st {};
    Result<std::string> original = std::string();
    if (access) {
      original = access->ReadText(path, ctx.cancel);
      if (!original)
        return ErrorResult("Cannot read " + shown + ": " + original.error().message + ".");
    } else {
      if (::stat(path.c_str(), &st) != 0) {
        if (errno == ENOENT || errno == ENOTDIR)
          return ErrorResult(NotFoundMessage(ctx, path) + " To create a file use write.");
        return ErrorResult("Cannot edit " + shown + ": " + ErrnoText(errno) + ".");
      }
      original = ReadRegularFile(path, kMaxEditBytes);
    }
    if (!original) {
      if (original.error().kind == "not_regular")
        return ErrorResult(shown + " " + original.error().message + ".");
      if (original.error().kind == "too_large")
        return ErrorResult("Cannot edit " + shown + ": " + original.error().message +
                           ". Edit a file this large with bash (sed, a script).");
      return ErrorResult("Cannot read " + shown + ": " + original.error().message + ".");
    }
    if (LooksBinary(std::string_view(*original).substr(0, kSniffBytes)))
      return ErrorResult(shown + " is a binary file; edit works on text files only.");
    bool crlf = original->find("\r\n") != std::string::npos;

    std::string text = *original;
    size_t first_changed = 0;
    for (size_t i = 0; i < edits->size(); ++i) {
      Edit e = (*edits)[i];
      std::string where = edits->size() > 1 ? "edits[" + std::to_string(i) + "]: " : "";
      if (e.old_string.empty())
        return ErrorResult(where + "old_string is empty; give the exact text to replace (to "
                           "write a whole file use write).");
      if (e.old_string == e.new_string)
        return ErrorResult(where + "old_string and new_string are the same; nothing to change.");
      std::vector<size_t> hits = FindAll(text, e.old_string, 50);
      if (hits.empty() && crlf && e.old_string.find('\r') == std::string::npos) {
        e.old_string = ReplaceAll(e.old_string, "\n", "\r\n");
        e.new_string = ReplaceAll(e.new_string, "\n", "\r\n");
        hits = FindAll(text, e.old_string, 50);
      }
      if (hits.empty()) {
        std::string msg = where + "old_string was not found in " + shown + ". No changes were made.";
        if (i > 0 && original->find((*edits)[i].old_string) != std::string::npos)
          msg += " (It is in the original file: an earlier edit changed that text; edits apply "
                 "in order to the result of the ones before.)";
        if (HasReadLineNumbers((*edits)[i].old_string))
          msg += " old_string seems to include the line numbers that read shows (\"  12<tab>\"); "
                 "they are not part of the file. Remove them.";
        std::string hint = Closest(text, (*edits)[i].old_string);
        if (!hint.empty()) msg += "\n" + hint;
        return ErrorResult(std::move(msg));
      }
      if (hits.size() > 1) {
        std::vector<std::string> lines;
        for (size_t h = 0; h < hits.size() && h < 10; ++h)
          lines.push_back(std::to_string(LineOf(text, hits[h])));
        std::string count = hits.size() >= 50 ? "50 or more" : std::to_string(hits.size());
        return ErrorResult(where + "old_string matches " + count + " times in " + shown +
                           " (at lines " + Join(lines, ", ") + (hits.size() > 10 ? ", ..." : "") +
                           "). Include more surrounding lines in old_string so that it matches "
                           "exactly once. No changes were made.");
      }
      size_t line = LineOf(text, hits[0]);
      if (i == 0 || line < first_changed) first_changed = line;
      text.replace(hits[0], e.old_string.size(), e.new_string);
    }

    if (access) {
      if (auto w = access->WriteText(path, text, ctx.cancel); !w)
        return ErrorResult("Cannot write " + shown + ": " + w.error().message +
                           ". No changes were made.");
    } else {
      int mode = static_cast<int>(st.st_mode & 07777);
      if (auto w = WriteFileAtomic(path, text, mode); !w)
        return ErrorResult("Cannot write " + shown + ": " + w.error().message +
                           ". No changes were made.");
      ::chmod(path.c_str(), static_cast<mode_t>(mode));
    }

    DiffStats stats;
    std::string diff = Redact(SanitizeUtf8(UnifiedDiff(*original, text, shown, shown, 3, &stats)));
    RecordFileUse(path.string(), FileUse::kChange);  // file_search ranks by it
    ToolResult r;
    r.text = "Edited " + shown + " (" + std::to_string(edits->size()) +
             (edits->size() == 1 ? " edit" : " edits") + ", +" + std::to_string(stats.added) +
             " -" + std::to_string(stats.removed) + " lines).\n";
    Truncation shown_diff = TruncateHead(diff);
    r.text += shown_diff.text;
    if (shown_diff.truncated) {
      r.truncated = true;
      r.text += "\n[Diff truncated: " + std::to_string(shown_diff.omitted_lines) +
                " more lines. Read the file to see the result.]";
    }
    r.details = {{"path", shown},
                 {"diff", diff},
                 {"edits", edits->size()},
                 {"first_changed_line", first_changed},
                 {"added", stats.added},
                 {"removed", stats.removed}};
    return r;
  }
};

}  // namespace

std::unique_ptr<Tool> MakeEditTool() { return std::make_unique<EditTool>(); }

}  // namespace sepp::tools
