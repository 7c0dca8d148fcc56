// context_list, context_stats and context_purge: what is in the output
// sidecar, what it saved, and taking it out (pi-context's names and
// schemas, ../shared/research/sage.md §4). The scope rules are the other
// context tools': this session, or with global:true (or a session_id of
// the project) every session of this project, never another project: a
// project_path that is not this project is refused, not searched.
#include <algorithm>
#include <cmath>
#include <filesystem>

#include "base/clock.h"
#include "base/strings.h"
#include "tools/args.h"
#include "tools/context_tool.h"

namespace sepp::tools::context {
namespace {

using sidecar::Sidecar;

constexpr double kMaxDays = 36500;
constexpr int64_t kDayMs = 86400000;
// context_purge expired:true on a store that keeps sources forever.
constexpr int64_t kExpiredFallbackDays = 14;

// A day count (fractional allowed) 0..kMaxDays, as the epoch ms it reaches
// back to; nullopt when absent.
Result<std::optional<int64_t>> DaysAgoArg(const Json& args, const char* name) {
  if (!args.contains(name) || args[name].is_null()) return std::optional<int64_t>();
  const Json& v = args[name];
  if (!v.is_number())
    return Error::Make(std::string("Invalid argument \"") + name + "\": expected a number of days, got " +
                       JsonTypeName(v) + ".");
  double d = v.get<double>();
  if (!(d >= 0 && d <= kMaxDays))
    return Error::Make(std::string("Invalid argument \"") + name + "\": " + v.dump() +
                       " days; give a number from 0 to " + std::to_string(static_cast<int>(kMaxDays)) + ".");
  return std::optional<int64_t>(NowMs() - static_cast<int64_t>(std::llround(d * kDayMs)));
}

// project_path may only name this project: the sidecar of another project
// is not this session's to see or delete.
Status ProjectArg(Sidecar& sc, const Json& args) {
  auto p = OptionalPath(args, "project_path");
  if (!p.ok()) return p.error();
  if (!*p) return Ok();
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path given = fs::path(**p);
  fs::path canonical = given.is_absolute() ? fs::weakly_canonical(given, ec) : fs::path();
  const std::string& project = sc.scope().project;
  if (ec || canonical.empty() ||
      (canonical.lexically_normal() != fs::path(project).lexically_normal()))
    return Error::Make("Invalid argument \"project_path\": \"" + (*p)->substr(0, 200) +
                       "\" is not this session's project (" + project +
                       "): the context tools see only this project's sidecar. Leave project_path out.");
  return Ok();
}

// session_id names a session of this project; giving one looks at the
// project's sessions (as global:true does), filtered to it.
Result<std::string> SessionArg(const Json& args) {
  auto s = OptionalString(args, "session_id");
  if (!s.ok()) return s.error();
  std::string id = s->value_or("");
  if (id.size() > 200 || id.find('\0') != std::string::npos)
    return Error::Make("Invalid argument \"session_id\": not a session id (at most 200 bytes, no NUL).");
  return id;
}

std::string OneLine(std::string_view text) {
  std::string out;
  for (char c : text) out += (c == '\n' || c == '\r' || c == '\t') ? ' ' : c;
  return out;
}

std::string DaysText(int64_t days) { return days > 0 ? std::to_string(days) + " days" : "kept (no age limit)"; }
std::string CapText(int64_t bytes) { return bytes > 0 ? HumanBytes(static_cast<uint64_t>(bytes)) : "no size cap"; }

ToolResult RunList(Sidecar& sc, const Json& args) {
  if (Status st = ProjectArg(sc, args); !st.ok()) return ErrorResult(st.error().message);
  auto global = GlobalArg(args);
  if (!global.ok()) return ErrorResult(global.error().message);
  auto source = OptionalString(args, "source_id");
  if (!source.ok()) return ErrorResult(source.error().message);
  auto tool = OptionalString(args, "tool_name");
  if (!tool.ok()) return ErrorResult(tool.error().message);
  auto session = SessionArg(args);
  if (!session.ok()) return ErrorResult(session.error().message);
  auto newer = DaysAgoArg(args, "newer_than_days");
  if (!newer.ok()) return ErrorResult(newer.error().message);
  auto older = DaysAgoArg(args, "older_than_days");
  if (!older.ok()) return ErrorResult(older.error().message);
  auto offset = OptionalInt(args, "offset", 0, INT64_MAX);
  if (!offset.ok()) return ErrorResult(offset.error().message);
  auto limit = LimitArg(args, 10, 50);
  if (!limit.ok()) return ErrorResult(limit.error().message);
  sidecar::ListOptions o;
  o.limit = *limit;
  o.source_id = source->value_or("");
  o.tool_name = tool->value_or("");
  o.session_id = *session;
  o.newer_than_ms = newer->value_or(0);
  o.older_than_ms = older->value_or(0);
  o.offset = offset->value_or(0);
  o.whole_project = *global || !session->empty();
  auto page = sc.store().List(sc.scope(), o);
  if (!page.ok()) return ErrorResult("context_list failed: " + page.error().message);
  ToolResult r;
  Json ids = Json::array();
  std::string where = ScopeName(o.whole_project) + ", project " + sc.scope().project;
  if (page->sources.empty()) {
    r.text = "No context sources " + std::string(page->total ? "on this page" : "matched") + " (" + where + ").";
    if (!o.whole_project) r.text += " global:true lists the project's other sessions.";
  } else {
    r.text = "Context sources in " + where + ", newest first:\n";
    int64_t i = o.offset;
    for (const auto& s : page->sources) {
      const auto& info = s.info;
      r.text += "\n" + std::to_string(++i) + ". " + info.id + " • " + info.tool_name + " • " +
                Iso8601(info.created_ms) + " • " + HumanBytes(static_cast<uint64_t>(info.byte_count)) +
                ", " + std::to_string(info.line_count) + " lines, " + std::to_string(info.chunk_count) +
                " chunks\n   Session: " + (info.session_id.empty() ? "(none)" : info.session_id) +
                (info.input_summary.empty() ? "" : " • Input: " + OneLine(info.input_summary)) +
                "\n   Title: " + OneLine(s.title) + "\n   Preview: " + OneLine(s.preview) + "\n";
      ids.push_back(info.id);
    }
    int64_t last = o.offset + static_cast<int64_t>(page->sources.size());
    r.text += "\nShowing " + std::to_string(o.offset + 1) + "-" + std::to_string(last) + " of " +
              std::to_string(page->total) + "." +
              (last < page->total ? " Next page: offset:" + std::to_string(last) + "." : "");
  }
  r.details = {{"count", page->sources.size()}, {"total", page->total}, {"offset", o.offset},
               {"source_ids", ids}};
  return r;
}

ToolResult RunStats(Sidecar& sc, const Json& args) {
  auto global = GlobalArg(args);
  if (!global.ok()) return ErrorResult(global.error().message);
  auto st = sc.store().Stats(sc.scope(), *global);
  if (!st.ok()) return ErrorResult("context_stats failed: " + st.error().message);
  int64_t kept_out = std::max<int64_t>(0, st->captured_bytes - st->returned_bytes);
  double reduction = st->captured_bytes > 0 ? 100.0 * static_cast<double>(kept_out) /
                                                  static_cast<double>(st->captured_bytes)
                                            : 0.0;
  char pct[16];
  std::snprintf(pct, sizeof pct, "%.1f%%", reduction);
  ToolResult r;
  r.text = "Context sidecar: enabled\nScope: " + ScopeName(*global) + ", project " + sc.scope().project +
           "\nSources: " + std::to_string(st->sources) + " • Chunks: " + std::to_string(st->chunks) +
           "\nStored: " + HumanBytes(static_cast<uint64_t>(st->stored_bytes)) +
           " (this scope's sources; the same output is stored once, whoever captures it)" +
           "\nCaptured: " + HumanBytes(static_cast<uint64_t>(st->captured_bytes)) +
           " • Returned to the context (receipts): " + HumanBytes(static_cast<uint64_t>(st->returned_bytes)) +
           " • Kept out: " + HumanBytes(static_cast<uint64_t>(kept_out)) + " (reduction " + pct + ")";
  if (st->sources > 0)
    r.text += "\nOldest: " + Iso8601(st->oldest_ms) + " • Newest: " + Iso8601(st->newest_ms);
  r.text += "\nDatabase: " + sc.store().file() + ", " + HumanBytes(static_cast<uint64_t>(st->db_file_bytes)) +
            " + WAL " + HumanBytes(static_cast<uint64_t>(st->wal_file_bytes)) + " (all projects)" +
            "\nRetention: " + DaysText(st->retention.max_age_days) + ", " +
            CapText(st->retention.max_total_bytes) +
            " (SEPP_CONTEXT_RETENTION_DAYS, SEPP_CONTEXT_MAX_MB)";
  r.details = {{"enabled", true},
               {"scope", *global ? "project" : "session"},
               {"sources", st->sources},
               {"chunks", st->chunks},
               {"bytes_stored", st->stored_bytes},
               {"bytes_captured", st->captured_bytes},
               {"bytes_returned", st->returned_bytes},
               {"bytes_saved", kept_out},
               {"reduction_pct", reduction},
               {"oldest_ms", st->oldest_ms},
               {"newest_ms", st->newest_ms},
               {"db_bytes", st->db_file_bytes},
               {"wal_bytes", st->wal_file_bytes},
               {"retention_days", st->retention.max_age_days},
               {"max_bytes", st->retention.max_total_bytes}};
  return r;
}

ToolResult RunPurge(Sidecar& sc, const Json& args) {
  if (Status st = ProjectArg(sc, args); !st.ok()) return ErrorResult(st.error().message);
  auto global = GlobalArg(args);
  if (!global.ok()) return ErrorResult(global.error().message);
  auto source = OptionalString(args, "source_id");
  if (!source.ok()) return ErrorResult(source.error().message);
  auto session = SessionArg(args);
  if (!session.ok()) return ErrorResult(session.error().message);
  auto expired = OptionalBool(args, "expired");
  if (!expired.ok()) return ErrorResult(expired.error().message);
  auto older = DaysAgoArg(args, "older_than_days");
  if (!older.ok()) return ErrorResult(older.error().message);

  sidecar::PurgeOptions o;
  o.source_id = source->value_or("");
  o.session_id = *session;
  o.whole_project = *global || !session->empty();
  std::vector<std::string> filters = {"scope=" + std::string(o.whole_project ? "project" : "session")};
  if (older->has_value()) {
    o.older_than_ms = **older;
    filters.push_back("older_than_days=" + args["older_than_days"].dump());
  } else if (expired->value_or(false)) {
    int64_t days = sc.store().retention().max_age_days;
    if (days <= 0) days = kExpiredFallbackDays;
    o.older_than_ms = NowMs() - days * kDayMs;
    filters.push_back("expired (older than " + std::to_string(days) + " days)");
  }
  if (!o.source_id.empty()) filters.push_back("source_id=" + o.source_id.substr(0, 80));
  if (!o.session_id.empty()) filters.push_back("session_id=" + o.session_id.substr(0, 80));
  // A call that names nothing would empty the session: it must say so.
  if (o.source_id.empty() && o.session_id.empty() && o.older_than_ms == 0 && !*global) {
    std::string self = sc.scope().session_id;
    return ErrorResult("context_purge needs a filter: source_id, expired:true, older_than_days, "
                       "session_id" + (self.empty() ? std::string() : " (this session's is \"" + self + "\")") +
                       ", or global:true for every source of this project.");
  }
  if (!o.source_id.empty()) {
    auto visible = sc.store().Source(sc.scope(), o.source_id, o.whole_project);
    if (!visible.ok()) return ErrorResult("context_purge failed: " + visible.error().message);
    if (!*visible) return ErrorResult(NotFound(o.source_id, o.whole_project));
  }
  auto n = sc.store().PurgeWhere(sc.scope(), o);
  if (!n.ok()) return ErrorResult("context_purge failed: " + n.error().message);
  ToolResult r;
  r.text = "Deleted " + std::to_string(*n) + " context source(s). Filters: " + Join(filters, ", ") + ".";
  r.details = {{"deleted", *n}, {"filters", filters}};
  return r;
}

}  // namespace

const ContextToolSpec kListSpec = {
    "context_list",
    "List the large tool outputs stored in the local context sidecar, newest first: id, tool, "
    "time, size, input, the first chunk's title and a preview. This session's by default; "
    "global:true (or a session_id) lists this project's other sessions. Page with limit/offset.",
    R"({
      "type": "object",
      "properties": {
        "source_id": {"type": "string"},
        "tool_name": {"type": "string"},
        "project_path": {"type": "string", "description": "Only this project's sidecar is visible; any other path is refused."},
        "session_id": {"type": "string", "description": "A session of this project."},
        "newer_than_days": {"type": "number", "minimum": 0},
        "older_than_days": {"type": "number", "minimum": 0},
        "limit": {"type": "number", "description": "Sources per page, default 10, at most 50."},
        "offset": {"type": "number", "minimum": 0},
        "global": {"type": "boolean"}
      },
      "additionalProperties": false
    })",
    "tool_name", RunList};

const ContextToolSpec kStatsSpec = {
    "context_stats",
    "How much the context sidecar kept out of the context: sources, chunks, bytes stored, "
    "captured and returned as receipts (the reduction), the oldest and newest source, the "
    "database size and the retention. This session's by default; global:true for the project.",
    R"({
      "type": "object",
      "properties": {"global": {"type": "boolean"}},
      "additionalProperties": false
    })",
    "", RunStats};

const ContextToolSpec kPurgeSpec = {
    "context_purge",
    "Delete stored outputs from the context sidecar: one source (source_id), the expired ones "
    "(expired:true: older than the retention), those older_than_days, one session's "
    "(session_id), or every source of this project (global:true alone). Filters combine; at "
    "least one is needed.",
    R"({
      "type": "object",
      "properties": {
        "expired": {"type": "boolean"},
        "older_than_days": {"type": "number", "minimum": 0},
        "source_id": {"type": "string"},
        "project_path": {"type": "string", "description": "Only this project; any other path is refused."},
        "session_id": {"type": "string"},
        "global": {"type": "boolean"}
      },
      "additionalProperties": false
    })",
    "source_id", RunPurge};

}  // namespace sepp::tools::context
