// read: a text file with line numbers (cat -n style), a window at a time.
//
// The file is streamed, so a huge log costs only the window shown plus one
// pass counting its lines, and a huge line only what is shown of it. Only
// regular files are opened (never blocking: safe_open.h). Lines longer than kMaxLineBytes are cut, ill-formed
// UTF-8 becomes U+FFFD, a trailing '\r' (CRLF files) is not shown. Binary
// files and images are described, never dumped.
#include <cstdio>
#include <cstring>
#include <optional>
#include <sys/stat.h>

#include "base/fd.h"
#include "base/secrets.h"
#include "base/strings.h"
#include "tools/access.h"
#include "tools/args.h"
#include "tools/file_access.h"
#include "tools/files.h"
#include "tools/frecency.h"
#include "tools/safe_open.h"
#include "tools/truncate.h"

namespace sepp::tools {
namespace {

constexpr int64_t kDefaultLimit = 2000;

class ReadTool : public Tool {
 public:
  std::string name() const override { return "read"; }
  bool runs_in_worker() const override { return true; }
  bool uses(const FileAccess& access) const override { return access.reads(); }

  std::string description() const override {
    return "Read a text file. Output has line numbers (cat -n style: number, tab, text). "
           "Shows up to 2000 lines or 50 KB per call; use offset (1-based line) and limit to "
           "page through larger files. Lines longer than 2000 bytes are cut. Binary files and "
           "images are described, not shown.";
  }

  Json parameters() const override {
    return Json::parse(R"({
      "type": "object",
      "properties": {
        "path": {"type": "string", "description": "File to read, relative to the working directory or absolute."},
        "offset": {"type": "integer", "minimum": 1, "description": "First line to show (1-based). Default 1."},
        "limit": {"type": "integer", "minimum": 1, "description": "Maximum number of lines to show. Default 2000."}
      },
      "required": ["path"],
      "additionalProperties": false
    })");
  }

  std::string Summary(const Json& args) const override {
    std::string s = SummaryLine("read", StringOr(args, "path"));
    if (args.is_object() && args.contains("offset") && args["offset"].is_number_integer())
      s += ":" + std::to_string(args["offset"].get<int64_t>());
    return s;
  }

 private:
  ToolResult Run(const Json& args, ToolContext& ctx) override {
    if (auto st = CheckArgsObject(args); !st) return ErrorResult(st.error().message);
    auto path_arg = RequiredPath(args, "path");
    if (!path_arg) return ErrorResult(path_arg.error().message);
    auto offset = OptionalInt(args, "offset", 1, INT64_MAX);
    if (!offset) return ErrorResult(offset.error().message);
    auto limit = OptionalInt(args, "limit", 1, INT64_MAX);
    if (!limit) return ErrorResult(limit.error().message);

    std::filesystem::path path = ResolveToolPath(ctx, *path_arg);
    std::optional<PathGuard> own_guard;
    const PathGuard& guard = GuardOf(ctx, &own_guard);
    if (auto denial = guard.CheckRead(path)) return DeniedResult(std::move(*denial));
    RecordFileUse(path.string(), FileUse::kRead);  // file_search ranks by it
    std::string shown = ShowPath(ctx, path);
    if (ctx.file_access && ctx.file_access->reads())
      return ReadThrough(*ctx.file_access, path, shown, ctx, offset->value_or(1),
                         limit->value_or(kDefaultLimit));
    auto fd = OpenRegularFile(path);
    if (!fd.ok()) {
      if (fd.error().kind == "not_found") return ErrorResult(NotFoundMessage(ctx, path));
      if (fd.error().kind == "not_regular") {
        std::string hint = fd.error().message.rfind("is a directory", 0) == 0
                               ? " Use ls to list it." : "";
        return ErrorResult(shown + " " + fd.error().message + "." + hint);
      }
      return ErrorResult("Cannot read " + shown + ": " + fd.error().message + ".");
    }
    struct stat st;
    if (::fstat(fd->get(), &st) != 0)
      return ErrorResult("Cannot read " + shown + ": " + ErrnoText(errno) + ".");
    uint64_t size = static_cast<uint64_t>(st.st_size);
    std::string sample = ReadPrefix(fd->get(), kSniffBytes);
    std::FILE* f = ::fdopen(fd->get(), "rb");
    if (!f) return ErrorResult("Cannot read " + shown + ": " + ErrnoText(errno) + ".");
    fd->release();  // f owns it now
    if (auto described = NotText(sample, shown, size)) {
      std::fclose(f);
      return *described;
    }
    ToolResult r = ReadLines(f, shown, offset->value_or(1), limit->value_or(kDefaultLimit));
    std::fclose(f);
    return r;
  }

  // The whole text from the front end (an editor's buffer), shown the same
  // way as a file: the window is cut here, so the line count stays exact.
  static ToolResult ReadThrough(FileAccess& access, const std::filesystem::path& path,
                                const std::string& shown, ToolContext& ctx, int64_t first,
                                int64_t max_lines) {
    // The path the guard resolved (symlinks followed), so the other side
    // opens exactly what was allowed.
    std::error_code ec;
    std::filesystem::path real = std::filesystem::weakly_canonical(path, ec);
    auto text = access.ReadText(ec ? path : real, ctx.cancel);
    if (!text) return ErrorResult("Cannot read " + shown + ": " + text.error().message + ".");
    if (text->empty()) {
      ToolResult r;
      r.text = shown + " is empty.";
      r.details = {{"path", shown}, {"total_lines", 0}};
      return r;
    }
    if (auto described = NotText(std::string_view(*text).substr(0, kSniffBytes), shown,
                                 text->size()))
      return *described;
    std::FILE* f = ::fmemopen(text->data(), text->size(), "rb");
    if (!f) return ErrorResult("Cannot read " + shown + ": " + ErrnoText(errno) + ".");
    ToolResult r = ReadLines(f, shown, first, max_lines);
    std::fclose(f);
    return r;
  }

  // Images and binary files are described, never dumped.
  static std::optional<ToolResult> NotText(std::string_view sample, const std::string& shown,
                                           uint64_t size) {
    if (std::string image = ImageType(sample); !image.empty()) {
      ToolResult r = ErrorResult(shown + " is a " + image + " image (" + HumanBytes(size) +
                                 "). Reading images is not supported; only text files can be "
                                 "read.");
      r.details = {{"path", shown}, {"image", image}, {"bytes", size}};
      return r;
    }
    if (LooksBinary(sample)) {
      ToolResult r;
      r.text = shown + " is a binary file (" + HumanBytes(size) +
               "); its bytes are not shown. Use bash (e.g. `file`, `xxd | head`) to inspect it.";
      r.details = {{"path", shown}, {"binary", true}, {"bytes", size}};
      return r;
    }
    return std::nullopt;
  }

  static ToolResult ReadLines(std::FILE* f, const std::string& shown, int64_t first,
                              int64_t max_lines) {
    const TruncateLimits limits;
    std::string out;
    int64_t line_no = 0, last_shown = 0;
    bool byte_cut = false, more = false;
    // Each line costs at most a little more than what is shown of it, however
    // long it is (a 1.5 GiB one-line file is read through, not held).
    std::string buf;
    uint64_t len = 0;
    while (ReadBoundedLine(f, kMaxLineBytes + 8, &buf, &len)) {
      ++line_no;
      if (line_no < first) continue;
      if (line_no - first >= max_lines || byte_cut) {
        more = true;
        break;
      }
      std::string_view line(buf);
      bool whole = len == buf.size();
      if (whole && !line.empty() && line.back() == '\r') line.remove_suffix(1);
      char num[32];
      std::snprintf(num, sizeof num, "%6lld\t", static_cast<long long>(line_no));
      std::string shown_line = CutLine(line);
      if (!whole) {
        size_t kept = Utf8SafePrefix(line, kMaxLineBytes);
        shown_line = std::string(line.substr(0, kept)) + "… [" + std::to_string(len - kept) +
                     " more bytes]";
      }
      std::string text = num + SanitizeUtf8(shown_line) + "\n";
      if (last_shown > 0 && out.size() + text.size() > limits.max_bytes) {
        byte_cut = true;
        more = true;
        break;
      }
      out += text;
      last_shown = line_no;
    }
    int64_t total = line_no;
    if (more) total += CountRest(f);  // the line that stopped us is counted already
    if (total == 0) {
      ToolResult r;
      r.text = shown + " is empty.";
      r.details = {{"path", shown}, {"total_lines", 0}};
      return r;
    }
    if (first > total)
      return ErrorResult("offset " + std::to_string(first) + " is past the end of " + shown +
                         " (" + std::to_string(total) + (total == 1 ? " line" : " lines") + ").");
    ToolResult r;
    r.text = Redact(out);
    if (last_shown < total) {
      r.truncated = true;
      r.text += "[Showing lines " + std::to_string(first) + "-" + std::to_string(last_shown) +
                " of " + std::to_string(total) + ". Use offset=" + std::to_string(last_shown + 1) +
                " to continue.]";
    }
    r.details = {{"path", shown},
                 {"start_line", first},
                 {"end_line", last_shown},
                 {"total_lines", total}};
    return r;
  }

  // Lines after the current position (an unterminated last line counts).
  static int64_t CountRest(std::FILE* f) {
    int64_t n = 0;
    char buf[65536];
    size_t got;
    char last = '\n';
    bool any = false;
    while ((got = std::fread(buf, 1, sizeof buf, f)) > 0) {
      any = true;
      for (const char* p = buf; (p = static_cast<const char*>(
                                     std::memchr(p, '\n', static_cast<size_t>(buf + got - p))));
           ++p)
        ++n;
      last = buf[got - 1];
    }
    return any && last != '\n' ? n + 1 : n;
  }
};

}  // namespace

std::unique_ptr<Tool> MakeReadTool() { return std::make_unique<ReadTool>(); }

}  // namespace sepp::tools
