#include "tools/context_tools.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/fd.h"
#include "base/sha256.h"
#include "base/strings.h"
#include "tools/args.h"
#include "tools/context_tool.h"

namespace sepp::tools {
namespace context {

using sidecar::Sidecar;
using sidecar::StoredChunk;

std::string ContextTool::Summary(const Json& args) const {
  return SummaryLine(spec_.name, *spec_.summary_arg ? StringOr(args, spec_.summary_arg) : std::string());
}

ToolResult ContextTool::Run(const Json& args, ToolContext&) {
  if (auto st = CheckArgsObject(args); !st.ok()) return ErrorResult(st.error().message);
  return spec_.run(*sc_, args.is_null() ? Json::object() : args);
}

std::string ScopeName(bool global) { return global ? "this project (every session)" : "this session"; }

Result<bool> GlobalArg(const Json& args) {
  auto g = OptionalBool(args, "global");
  if (!g.ok()) return g.error();
  return g->value_or(false);
}

Result<int64_t> LimitArg(const Json& args, int64_t fallback, int64_t max) {
  if (!args.contains("limit") || args["limit"].is_null()) return fallback;
  if (!args["limit"].is_number()) return Error::Make("Invalid argument \"limit\": expected a number.");
  // Clamped as a double: a huge number cast to an integer first is undefined.
  return static_cast<int64_t>(std::clamp(args["limit"].get<double>(), 1.0, static_cast<double>(max)));
}

std::string NotFound(const std::string& id, bool global) {
  return "Source " + id + " was not found in this " + std::string(global ? "project" : "session") +
         "'s context sidecar: it may have expired, been purged, or belong to another " +
         (global ? "project" : "session (try global:true for this project's other sessions)") + ".";
}

namespace {

constexpr int64_t kMaxNeighbours = 3;
// Most a context_get without chunk_id returns in one go: the rest is for
// context_export (the point of the sidecar is to keep bulk out).
constexpr size_t kMaxGetBytes = 48 * 1024;

// "ctx_…_0007", "7" or 7: the ordinal of a chunk of source_id.
Result<int64_t> ChunkOrdinal(const Json& args, const std::string& source_id) {
  const Json& v = args["chunk_id"];
  if (v.is_number_integer()) return v.get<int64_t>();
  if (!v.is_string())
    return Error::Make("Invalid argument \"chunk_id\": expected a chunk id or an ordinal, got " +
                       JsonTypeName(v) + ".");
  std::string s = v;
  std::string digits = s;
  if (s.rfind(source_id + "_", 0) == 0) digits = s.substr(source_id.size() + 1);
  else if (s.rfind(source_id + ":chunk:", 0) == 0) digits = s.substr(source_id.size() + 7);
  bool ok = !digits.empty() && digits.size() <= 9 &&
            digits.find_first_not_of("0123456789") == std::string::npos;
  if (!ok)
    return Error::Make("Invalid argument \"chunk_id\": \"" + s.substr(0, 80) +
                       "\" is not a chunk of " + source_id + " (give \"" +
                       sidecar::ChunkId(source_id, 1) + "\" or an ordinal like 1).");
  return std::stoll(digits);
}

struct Range {
  std::string source_id;
  sidecar::SourceInfo source;
  int64_t first = 1, last = 1;
  bool whole = false;
  bool global = false;
};

// The source and chunk range a get or export names; an error result text
// otherwise.
Result<Range> ResolveRange(Sidecar& sc, const Json& args) {
  auto id = RequiredString(args, "source_id");
  if (!id.ok()) return id.error();
  auto global = GlobalArg(args);
  if (!global.ok()) return global.error();
  auto before = OptionalInt(args, "before", 0, kMaxNeighbours);
  if (!before.ok()) return before.error();
  auto after = OptionalInt(args, "after", 0, kMaxNeighbours);
  if (!after.ok()) return after.error();
  Range r;
  r.source_id = *id;
  r.global = *global;
  auto src = sc.store().Source(sc.scope(), *id, *global);
  if (!src.ok()) return src.error();
  if (!*src) return Error::Make(NotFound(*id, *global));
  r.source = **src;
  if (!args.contains("chunk_id") || args["chunk_id"].is_null()) {
    r.whole = true;
    r.first = 1;
    r.last = r.source.chunk_count;
    return r;
  }
  auto ord = ChunkOrdinal(args, *id);
  if (!ord.ok()) return ord.error();
  if (*ord < 1 || *ord > r.source.chunk_count)
    return Error::Make("Chunk " + std::to_string(*ord) + " is not in " + *id + ": its chunks are " +
                       sidecar::ChunkId(*id, 1) + " to " +
                       sidecar::ChunkId(*id, r.source.chunk_count) + " (ordinals 1-" +
                       std::to_string(r.source.chunk_count) + ").");
  r.first = std::max<int64_t>(1, *ord - before->value_or(0));
  r.last = std::min<int64_t>(r.source.chunk_count, *ord + after->value_or(0));
  return r;
}

std::string ChunkHeader(const StoredChunk& c) {
  return "Source: " + c.source_id + " • Chunk: " + sidecar::ChunkId(c.source_id, c.ordinal) +
         " • Tool: " + c.tool_name;
}

ToolResult RunSearch(Sidecar& sc, const Json& args) {
  auto query = RequiredString(args, "query");
  if (!query.ok()) return ErrorResult(query.error().message);
  auto source = OptionalString(args, "source_id");
  if (!source.ok()) return ErrorResult(source.error().message);
  auto tool = OptionalString(args, "tool_name");
  if (!tool.ok()) return ErrorResult(tool.error().message);
  auto full = OptionalBool(args, "full_content");
  if (!full.ok()) return ErrorResult(full.error().message);
  auto global = GlobalArg(args);
  if (!global.ok()) return ErrorResult(global.error().message);
  auto limit = LimitArg(args, 5, 25);
  if (!limit.ok()) return ErrorResult(limit.error().message);
  sidecar::SearchOptions o;
  o.limit = *limit;
  o.source_id = source->value_or("");
  o.tool_name = tool->value_or("");
  o.whole_project = *global;
  auto hits = sc.store().Search(sc.scope(), *query, o);
  if (!hits.ok()) return ErrorResult("context_search failed: " + hits.error().message);
  ToolResult r;
  r.details = {{"count", hits->size()}};
  if (hits->empty()) {
    r.text = "No indexed context matched.";
    if (!*global) r.text += " (This session only; global:true searches the project's other sessions.)";
    return r;
  }
  int i = 0;
  for (const auto& h : *hits) {
    if (i) r.text += "\n---\n";
    r.text += "## " + std::to_string(++i) + ". " + (h.title.empty() ? "(untitled)" : h.title) + "\n" +
              ChunkHeader(h) + "\n" + (full->value_or(false) ? h.content : h.snippet) + "\n";
  }
  r.text += "\nNext: context_get source_id:\"…\" chunk_id:\"…\" before/after (≤ 3) for exact text.";
  return r;
}

ToolResult RunGet(Sidecar& sc, const Json& args) {
  auto range = ResolveRange(sc, args);
  if (!range.ok()) return ErrorResult(range.error().message);
  auto chunks = sc.store().Chunks(sc.scope(), range->source_id, range->first, range->last,
                                    range->global);
  if (!chunks.ok()) return ErrorResult("context_get failed: " + chunks.error().message);
  ToolResult r;
  size_t bytes = 0;
  int64_t shown = 0;
  for (const auto& c : *chunks) {
    if (shown > 0 && range->whole && bytes + c.content.size() > kMaxGetBytes) break;
    r.text += "### " + ChunkHeader(c) + "\n" + c.content;
    if (!c.content.empty() && c.content.back() != '\n') r.text += '\n';
    bytes += c.content.size();
    ++shown;
  }
  if (shown < static_cast<int64_t>(chunks->size()))
    r.text += "[... chunks " + std::to_string(range->first + shown) + "-" +
              std::to_string(range->last) + " not shown: give chunk_id, or use context_export]\n";
  r.details = {{"count", shown}, {"source_id", range->source_id}};
  return r;
}

// Opens root/rel for writing (mode 0600, truncated), making folders on the
// way (0700), without following any link and never leaving root: each
// component is opened relative to the last with O_NOFOLLOW.
Result<UniqueFd> OpenInside(const std::filesystem::path& root, const std::filesystem::path& rel) {
  UniqueFd dir(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir.valid()) return Error::Make("cannot open the export folder " + root.string() + ": " + std::strerror(errno));
  std::vector<std::string> parts;
  for (const auto& p : rel) parts.push_back(p.string());
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    ::mkdirat(dir.get(), parts[i].c_str(), 0700);
    UniqueFd next(::openat(dir.get(), parts[i].c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!next.valid())
      return Error::Make("cannot use folder \"" + parts[i] + "\" in " + root.string() + ": " +
                         (errno == ELOOP || errno == ENOTDIR ? "it is a link or not a folder"
                                                             : std::strerror(errno)));
    dir = std::move(next);
  }
  UniqueFd f(::openat(dir.get(), parts.back().c_str(),
                      O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0600));
  if (!f.valid())
    return Error::Make("cannot write \"" + rel.string() + "\" in " + root.string() + ": " +
                       (errno == ELOOP ? "it is a link" : std::strerror(errno)));
  struct stat st;
  if (::fstat(f.get(), &st) != 0 || !S_ISREG(st.st_mode))
    return Error::Make("\"" + rel.string() + "\" is not a regular file");
  return f;
}

ToolResult RunExport(Sidecar& sc, const Json& args) {
  auto range = ResolveRange(sc, args);
  if (!range.ok()) return ErrorResult(range.error().message);
  auto path_arg = OptionalPath(args, "file_path");
  if (!path_arg.ok()) return ErrorResult(path_arg.error().message);
  std::filesystem::path rel;
  if (*path_arg) {
    rel = std::filesystem::path(**path_arg).lexically_normal();
    if (rel.is_absolute() || rel.empty() || *rel.begin() == ".." || rel.filename().empty())
      return ErrorResult("Invalid argument \"file_path\": \"" + **path_arg +
                         "\" must be a file path relative to the export folder " +
                         sc.export_root().string() + ", inside it.");
  } else {
    rel = std::filesystem::path("context-exports") /
          (range->source_id +
           (range->whole ? std::string() : "-" + std::to_string(range->first)) + ".txt");
  }
  const std::filesystem::path& root = sc.export_root();
  if (root.empty()) return ErrorResult("context_export: this session has no folder to export to.");
  auto chunks = sc.store().Chunks(sc.scope(), range->source_id, range->first, range->last,
                                    range->global);
  if (!chunks.ok()) return ErrorResult("context_export failed: " + chunks.error().message);
  auto fd = OpenInside(root, rel);
  if (!fd.ok()) return ErrorResult("context_export: " + fd.error().message);
  Sha256 hash;
  size_t bytes = 0;
  for (const auto& c : *chunks) {
    hash.Update(c.content);
    if (Status st = WriteAll(fd->get(), c.content); !st.ok())
      return ErrorResult("context_export: writing " + rel.string() + " failed: " + st.error().message);
    bytes += c.content.size();
  }
  bool verified = range->whole && hash.HexDigest() == range->source.content_hash;
  std::filesystem::path out = root / rel;
  ToolResult r;
  r.text = "Exported " + std::to_string(chunks->size()) + " chunk(s) from " + range->source_id +
           " to " + out.string() + " (" + HumanBytes(bytes) + ").";
  if (range->whole && !verified)
    r.text += " Warning: the export does not match the stored sha256.";
  r.details = {{"count", chunks->size()}, {"exported", true}, {"file_path", out.string()},
               {"bytes", bytes},           {"verified", verified}};
  return r;
}

}  // namespace

const ContextToolSpec kSearchSpec = {
    "context_search",
    "Search large tool output stored in the local SQLite context sidecar (outputs over "
    "24 KiB or 300 lines are stored whole and replaced by a receipt naming their source). "
    "Use this snippet-first before retrieving chunks; reserve full_content:true for small "
    "matched chunks, not broad retrieval. Words are all required; \"a quoted phrase\" "
    "matches as a phrase; a trailing * matches a prefix.",
    R"({
      "type": "object",
      "properties": {
        "query": {"type": "string", "description": "FTS search query"},
        "source_id": {"type": "string", "description": "Only this source (ctx_…)."},
        "tool_name": {"type": "string", "description": "Only outputs of this tool."},
        "limit": {"type": "number", "description": "Results, default 5, at most 25."},
        "full_content": {"type": "boolean", "description": "Whole chunks instead of snippets."},
        "global": {"type": "boolean", "description": "Search every session of this project, not only this one."}
      },
      "required": ["query"],
      "additionalProperties": false
    })",
    "query", RunSearch};

const ContextToolSpec kGetSpec = {
    "context_get",
    "Retrieve focused chunks of a source in the context sidecar, in order. Normally pass "
    "source_id plus chunk_id and use before/after neighbours (at most 3 each); omitting "
    "chunk_id retrieves the source from its start (up to 48 KiB; use context_export for "
    "more).",
    R"({
      "type": "object",
      "properties": {
        "source_id": {"type": "string"},
        "chunk_id": {"type": ["string", "integer"], "description": "Chunk id (ctx_…_0003) or ordinal (3)."},
        "before": {"type": "number", "minimum": 0, "maximum": 3},
        "after": {"type": "number", "minimum": 0, "maximum": 3},
        "global": {"type": "boolean"}
      },
      "required": ["source_id"],
      "additionalProperties": false
    })",
    "source_id", RunGet};

const ContextToolSpec kExportSpec = {
    "context_export",
    "Export stored chunks of a context sidecar source to a file without returning chunk "
    "content. Prefer this for broad or full JSON/log/script processing: the file is in the "
    "session's scratch folder (else the workspace), where bash with rg or jq can read it. "
    "Without chunk_id the whole source is exported and checked against its sha256.",
    R"({
      "type": "object",
      "properties": {
        "source_id": {"type": "string"},
        "file_path": {"type": "string", "description": "Relative to the scratch folder (default context-exports/<source>[-<chunk>].txt)."},
        "chunk_id": {"type": ["string", "integer"]},
        "before": {"type": "number", "minimum": 0, "maximum": 3},
        "after": {"type": "number", "minimum": 0, "maximum": 3},
        "global": {"type": "boolean"}
      },
      "required": ["source_id"],
      "additionalProperties": false
    })",
    "source_id", RunExport};

}  // namespace context

void AddContextTools(ToolRegistry& registry, std::shared_ptr<sidecar::Sidecar> sidecar) {
  if (!sidecar) return;
  for (const context::ContextToolSpec* spec :
       {&context::kSearchSpec, &context::kGetSpec, &context::kExportSpec, &context::kListSpec,
        &context::kStatsSpec, &context::kPurgeSpec})
    registry.Add(std::make_unique<context::ContextTool>(sidecar, *spec));
}

}  // namespace sepp::tools
