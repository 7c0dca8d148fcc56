#include "sidecar/sidecar.h"

#include <algorithm>
#include <vector>

#include "base/secrets.h"
#include "base/strings.h"

namespace sepp::sidecar {
namespace {

constexpr size_t kPreviewLines = 40;
constexpr size_t kPreviewBytes = 8 * 1024;
constexpr size_t kPreviewLineBytes = 400;

std::vector<std::string_view> SplitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    lines.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return lines;
}

std::string CutPreviewLine(std::string_view line) {
  if (line.size() <= kPreviewLineBytes) return std::string(line);
  size_t keep = Utf8SafePrefix(line, kPreviewLineBytes);
  return std::string(line.substr(0, keep)) + "… [" + std::to_string(line.size() - keep) +
         " more bytes]";
}

}  // namespace

bool OverThreshold(std::string_view text) {
  if (text.size() > kCaptureBytes) return true;
  size_t lines = static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
  if (!text.empty() && text.back() != '\n') ++lines;
  return lines > kCaptureLines;
}

bool Exempt(const std::string& tool_name, const Json& args) {
  if (tool_name.rfind("context_", 0) == 0 || tool_name.rfind("memory_", 0) == 0) return true;
  if (tool_name == "read" && args.is_object() && (args.contains("offset") || args.contains("limit")))
    return true;
  return false;
}

std::string Preview(std::string_view text) {
  std::vector<std::string_view> lines = SplitLines(text);
  std::string head, tail;
  size_t half = kPreviewBytes / 2;
  size_t h = 0;
  for (; h < lines.size() && h < kPreviewLines; ++h) {
    std::string l = CutPreviewLine(lines[h]) + "\n";
    if (head.size() + l.size() > half) break;
    head += l;
  }
  size_t t = lines.size();
  std::vector<std::string> tail_lines;
  size_t tail_bytes = 0;
  while (t > h && lines.size() - t < kPreviewLines) {
    std::string l = CutPreviewLine(lines[t - 1]) + "\n";
    if (tail_bytes + l.size() > half) break;
    tail_bytes += l.size();
    tail_lines.push_back(std::move(l));
    --t;
  }
  for (auto it = tail_lines.rbegin(); it != tail_lines.rend(); ++it) tail += *it;
  std::string out = head;
  if (t > h)
    out += "[... " + std::to_string(t - h) + " lines omitted; indexed in context sidecar ...]\n";
  return out + tail;
}

Sidecar::Sidecar(std::shared_ptr<Store> store, std::string project,
                 std::function<std::string()> session_id, std::filesystem::path export_root)
    : store_(std::move(store)),
      project_(std::move(project)),
      session_id_(std::move(session_id)),
      export_root_(std::move(export_root)) {}

Scope Sidecar::scope() const { return {project_, session_id_ ? session_id_() : std::string()}; }

std::optional<std::string> Sidecar::Capture(const std::string& tool_name, const Json& args,
                                            std::string_view full_text, std::string_view trailer,
                                            std::string* error) {
  if (Exempt(tool_name, args) || !OverThreshold(full_text)) return std::nullopt;
  if (full_text.find(kReceiptMark) != std::string_view::npos) return std::nullopt;
  // Redacted here, whatever the tool did: the stream may have split a
  // secret between two pieces that were redacted one by one.
  std::string text = Redact(SanitizeUtf8(full_text));
  std::string summary;
  try {
    summary = args.is_null() ? std::string() : RedactJson(args).dump();
  } catch (const std::exception&) {
    summary = "";  // arguments that are not valid UTF-8: no summary
  }
  if (summary.size() > 500) summary.resize(Utf8SafePrefix(summary, 500));
  auto put = store_->Put(scope(), tool_name, summary, text);
  if (!put.ok()) {
    if (error) *error = put.error().message;
    return std::nullopt;
  }
  const SourceInfo& s = *put;
  std::string r = std::string(kReceiptMark) + " " +
                  (s.duplicate ? "Duplicate large " + tool_name + " output: reused the existing local index"
                               : "Large " + tool_name + " output indexed locally") +
                  "\n\nSource: " + s.id + "\nSize: " + HumanBytes(static_cast<uint64_t>(s.byte_count)) +
                  ", " + std::to_string(s.line_count) + " lines, " + std::to_string(s.chunk_count) +
                  " chunks\nUse context_search query:\"...\" source_id:\"" + s.id +
                  "\" to inspect it.\nUse context_get source_id:\"" + s.id +
                  "\" chunk_id:N with before/after for exact chunks; context_export source_id:\"" +
                  s.id + "\" writes it to a file for rg/jq.\n\n" + Preview(text);
  if (!trailer.empty()) {
    if (r.back() != '\n') r += '\n';
    r += trailer;
  }
  // For context_stats; a failure to count is not a failure to capture.
  (void)store_->NoteCapture(s.id, static_cast<int64_t>(text.size()), static_cast<int64_t>(r.size()));
  return r;
}

}  // namespace sepp::sidecar
