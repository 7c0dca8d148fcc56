#include "tools/memory_tools.h"

#include <cstdio>

#include "base/secrets.h"
#include "tools/args.h"

namespace sepp::tools {
namespace {

using memory::Memory;

constexpr const char* kScopeSchema =
    R"({"type": "string", "enum": ["project", "global", "session"], "description": "project: this project only (default); global: all of your projects; session: this session only."})";

class MemoryTool : public Tool {
 public:
  explicit MemoryTool(std::shared_ptr<const MemoryBinding> b) : b_(std::move(b)) {}

 protected:
  memory::Store& store() const { return *b_->store; }
  memory::MemoryView view() const { return b_->view(); }
  const MemoryBinding& binding() const { return *b_; }

 private:
  std::shared_ptr<const MemoryBinding> b_;
};

Result<std::string> ScopeArg(const Json& args, const std::string& fallback) {
  auto s = OptionalString(args, "scope");
  if (!s.ok()) return s.error();
  if (!*s) return fallback;
  return memory::CheckLevel(**s);
}

Result<std::string> TextArg(const Json& args) {
  auto t = RequiredString(args, "text");
  if (!t.ok()) return t.error();
  std::string_view trimmed = *t;
  while (!trimmed.empty() && (trimmed.front() == ' ' || trimmed.front() == '\n')) trimmed.remove_prefix(1);
  if (trimmed.empty()) return Error::Make("Invalid argument \"text\": it is empty.");
  if (t->size() > 16 * 1024)
    return Error::Make("Invalid argument \"text\": a memory is at most 16 KiB; keep one fact per memory.");
  if (t->find('\0') != std::string::npos) return Error::Make("Invalid argument \"text\": it holds a NUL byte.");
  if (ContainsSecret(*t))
    return Error::Make("Refused: the text holds a secret (an API key or token from the environment); "
                       "memories are kept on disk, so store the fact without it.");
  return *t;
}

Result<Json> MetadataArg(const Json& args) {
  if (!args.contains("metadata") || args["metadata"].is_null()) return Json::object();
  if (!args["metadata"].is_object())
    return Error::Make("Invalid argument \"metadata\": expected an object, got " +
                       JsonTypeName(args["metadata"]) + ".");
  std::string dumped;
  try {
    dumped = args["metadata"].dump();
  } catch (const std::exception&) {
    return Error::Make("Invalid argument \"metadata\": it is not valid UTF-8.");
  }
  if (dumped.size() > 4096) return Error::Make("Invalid argument \"metadata\": at most 4 KiB.");
  if (ContainsSecret(dumped)) return Error::Make("Refused: the metadata holds a secret.");
  return args["metadata"];
}

std::string Line(const Memory& m) { return m.id + " [" + m.level + "]\n" + m.text; }

class StatusTool : public MemoryTool {
 public:
  using MemoryTool::MemoryTool;
  std::string name() const override { return "memory_status"; }
  std::string description() const override {
    return "Show sepp's durable memory: where it is stored, how it searches (BM25, plus "
           "embeddings when configured), this session's scope and how many memories it sees.";
  }
  Json parameters() const override {
    return Json::parse(R"({"type": "object", "properties": {}, "additionalProperties": false})");
  }
  std::string Summary(const Json&) const override { return "memory_status"; }
  ToolResult Run(const Json& args, ToolContext&) override {
    if (auto st = CheckArgsObject(args); !st.ok()) return ErrorResult(st.error().message);
    memory::MemoryView v = view();
    auto c = store().Count(v);
    if (!c.ok()) return ErrorResult("memory_status failed: " + c.error().message);
    ToolResult r;
    r.text = "provider: local (SQLite FTS5)\n"
             "database: " + store().file().string() + "\n"
             "search: BM25 (porter stemming)" +
             (binding().embeddings.empty() ? std::string(", offline; no embeddings configured")
                                           : " + embeddings (" + binding().embeddings + "), hybrid") +
             "\nscope: user=" + v.user + " project=" + v.project +
             " session=" + (v.session_id.empty() ? "(none)" : v.session_id) +
             "\nmemories visible: global " + std::to_string(c->global) + ", project " +
             std::to_string(c->project) + ", session " + std::to_string(c->session) +
             (binding().embeddings.empty() ? "" : ", embedded " + std::to_string(c->embedded));
    r.details = {{"global", c->global}, {"project", c->project}, {"session", c->session}};
    return r;
  }
};

class AddTool : public MemoryTool {
 public:
  using MemoryTool::MemoryTool;
  std::string name() const override { return "memory_add"; }
  std::string description() const override {
    return "Store a durable memory fact or preference for future sessions (one fact per call, "
           "stored verbatim; the same text is stored once). scope project (default) keeps it to "
           "this project; global shares it with all of the user's projects; session keeps it to "
           "this session.";
  }
  Json parameters() const override {
    Json p = Json::parse(R"({
      "type": "object",
      "properties": {
        "text": {"type": "string", "description": "The fact, in a self-contained sentence."},
        "infer": {"type": "boolean", "description": "Must be false or absent: sepp stores the text as given."},
        "metadata": {"type": "object"}
      },
      "required": ["text"],
      "additionalProperties": false
    })");
    p["properties"]["scope"] = Json::parse(kScopeSchema);
    return p;
  }
  std::string Summary(const Json& args) const override {
    return SummaryLine("memory_add", StringOr(args, "text").substr(0, 60));
  }
  ToolResult Run(const Json& args, ToolContext&) override {
    if (auto st = CheckArgsObject(args); !st.ok()) return ErrorResult(st.error().message);
    auto text = TextArg(args);
    if (!text.ok()) return ErrorResult(text.error().message);
    auto scope = ScopeArg(args, "project");
    if (!scope.ok()) return ErrorResult(scope.error().message);
    auto infer = OptionalBool(args, "infer");
    if (!infer.ok()) return ErrorResult(infer.error().message);
    if (infer->value_or(false))
      return ErrorResult("infer:true is not supported: sepp stores memories verbatim. Call memory_add "
                         "with the fact itself (and memory_update to change an existing one).");
    auto meta = MetadataArg(args);
    if (!meta.ok()) return ErrorResult(meta.error().message);
    auto m = store().Add(view(), *scope, *text, *meta);
    if (!m.ok()) return ErrorResult("memory_add failed: " + m.error().message);
    ToolResult r;
    r.text = "1. " + Line(*m) + (m->duplicate ? "\n(already stored: nothing added)" : "");
    r.details = {{"id", m->id}, {"duplicate", m->duplicate}};
    return r;
  }
};

class SearchTool : public MemoryTool {
 public:
  using MemoryTool::MemoryTool;
  std::string name() const override { return "memory_search"; }
  std::string description() const override {
    return "Search durable memory for relevant facts or preferences (this project's, the user's "
           "global ones, and this session's). Plain words; ranked by BM25 (hybrid with "
           "embeddings when configured).";
  }
  Json parameters() const override {
    Json p = Json::parse(R"({
      "type": "object",
      "properties": {
        "query": {"type": "string"},
        "topK": {"type": "number", "description": "Results, default 5, at most 50."},
        "threshold": {"type": "number", "minimum": 0, "maximum": 1, "description": "Lowest score (0-1) to show."}
      },
      "required": ["query"],
      "additionalProperties": false
    })");
    p["properties"]["scope"] = Json::parse(kScopeSchema);
    p["properties"]["scope"]["description"] = "Only memories of this scope (default: every scope this session sees).";
    return p;
  }
  std::string Summary(const Json& args) const override {
    return SummaryLine("memory_search", StringOr(args, "query"));
  }
  ToolResult Run(const Json& args, ToolContext&) override {
    if (auto st = CheckArgsObject(args); !st.ok()) return ErrorResult(st.error().message);
    auto query = RequiredString(args, "query");
    if (!query.ok()) return ErrorResult(query.error().message);
    auto scope = ScopeArg(args, "");
    if (!scope.ok()) return ErrorResult(scope.error().message);
    memory::SearchOptions o;
    o.level = *scope;
    if (args.contains("topK")) {
      if (!args["topK"].is_number()) return ErrorResult("Invalid argument \"topK\": expected a number.");
      o.top_k = static_cast<int64_t>(args["topK"].get<double>());
    }
    if (args.contains("threshold")) {
      if (!args["threshold"].is_number())
        return ErrorResult("Invalid argument \"threshold\": expected a number from 0 to 1.");
      o.threshold = args["threshold"].get<double>();
    }
    auto hits = store().Search(view(), *query, o);
    if (!hits.ok()) return ErrorResult("memory_search failed: " + hits.error().message);
    ToolResult r;
    r.details = {{"count", hits->size()}};
    if (hits->empty()) {
      r.text = "No matching memories.";
      return r;
    }
    int i = 0;
    for (const auto& m : *hits) {
      char score[32];
      std::snprintf(score, sizeof score, "%.3f", m.score);
      r.text += (i ? "\n" : "") + std::to_string(++i) + ". " + m.id + " score=" + score + " [" +
                m.level + "]\n" + m.text + "\n";
    }
    return r;
  }
};

Result<std::string> IdArg(const Json& args) {
  if (auto st = CheckArgsObject(args); !st.ok()) return st.error();
  auto id = RequiredString(args, "id");
  if (!id.ok()) return id.error();
  if (id->empty() || id->size() > 100) return Error::Make("Invalid argument \"id\": not a memory id.");
  return *id;
}

ToolResult NotFound(const std::string& id) {
  return ErrorResult("Memory not found: " + id.substr(0, 100) +
                     " (in this project's, this session's and your global memories)");
}

const char* kIdSchema = R"({"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"], "additionalProperties": false})";

class GetTool : public MemoryTool {
 public:
  using MemoryTool::MemoryTool;
  std::string name() const override { return "memory_get"; }
  std::string description() const override { return "Show one durable memory by id."; }
  Json parameters() const override { return Json::parse(kIdSchema); }
  std::string Summary(const Json& args) const override { return SummaryLine("memory_get", StringOr(args, "id")); }
  ToolResult Run(const Json& args, ToolContext&) override {
    auto id = IdArg(args);
    if (!id.ok()) return ErrorResult(id.error().message);
    auto m = store().Get(view(), *id);
    if (!m.ok()) return ErrorResult("memory_get failed: " + m.error().message);
    if (!*m) return NotFound(*id);
    ToolResult r;
    r.text = Line(**m);
    if (!(*m)->metadata.empty()) r.text += "\nmetadata: " + (*m)->metadata.dump();
    return r;
  }
};

class UpdateTool : public MemoryTool {
 public:
  using MemoryTool::MemoryTool;
  std::string name() const override { return "memory_update"; }
  std::string description() const override {
    return "Replace the text (and optionally the metadata) of a durable memory, keeping its id and scope.";
  }
  Json parameters() const override {
    return Json::parse(R"({"type": "object", "properties": {"id": {"type": "string"}, "text": {"type": "string"}, "metadata": {"type": "object"}}, "required": ["id", "text"], "additionalProperties": false})");
  }
  std::string Summary(const Json& args) const override { return SummaryLine("memory_update", StringOr(args, "id")); }
  ToolResult Run(const Json& args, ToolContext&) override {
    auto id = IdArg(args);
    if (!id.ok()) return ErrorResult(id.error().message);
    auto text = TextArg(args);
    if (!text.ok()) return ErrorResult(text.error().message);
    auto meta = MetadataArg(args);
    if (!meta.ok()) return ErrorResult(meta.error().message);
    bool has_meta = args.contains("metadata") && !args["metadata"].is_null();
    auto m = store().Update(view(), *id, *text, has_meta ? &*meta : nullptr);
    if (!m.ok()) return ErrorResult("memory_update failed: " + m.error().message);
    if (!*m) return NotFound(*id);
    ToolResult r;
    r.text = "Updated " + Line(**m);
    return r;
  }
};

class DeleteTool : public MemoryTool {
 public:
  using MemoryTool::MemoryTool;
  std::string name() const override { return "memory_delete"; }
  std::string description() const override { return "Delete one durable memory by id."; }
  Json parameters() const override { return Json::parse(kIdSchema); }
  std::string Summary(const Json& args) const override { return SummaryLine("memory_delete", StringOr(args, "id")); }
  ToolResult Run(const Json& args, ToolContext&) override {
    auto id = IdArg(args);
    if (!id.ok()) return ErrorResult(id.error().message);
    auto gone = store().Delete(view(), *id);
    if (!gone.ok()) return ErrorResult("memory_delete failed: " + gone.error().message);
    if (!*gone) return NotFound(*id);
    ToolResult r;
    r.text = "Deleted memory " + *id + ".";
    return r;
  }
};

class ListTool : public MemoryTool {
 public:
  using MemoryTool::MemoryTool;
  std::string name() const override { return "memory_list"; }
  std::string description() const override {
    return "List durable memories this session sees, newest first (paged with limit and offset).";
  }
  Json parameters() const override {
    Json p = Json::parse(R"({
      "type": "object",
      "properties": {
        "limit": {"type": "number", "description": "Default 20, at most 100."},
        "offset": {"type": "number", "minimum": 0}
      },
      "additionalProperties": false
    })");
    p["properties"]["scope"] = Json::parse(kScopeSchema);
    p["properties"]["scope"]["description"] = "Only memories of this scope (default: all this session sees).";
    return p;
  }
  std::string Summary(const Json&) const override { return "memory_list"; }
  ToolResult Run(const Json& args, ToolContext&) override {
    if (auto st = CheckArgsObject(args); !st.ok()) return ErrorResult(st.error().message);
    auto scope = ScopeArg(args, "");
    if (!scope.ok()) return ErrorResult(scope.error().message);
    auto limit = OptionalInt(args, "limit", 1, 100);
    if (!limit.ok()) return ErrorResult(limit.error().message);
    auto offset = OptionalInt(args, "offset", 0, INT64_MAX);
    if (!offset.ok()) return ErrorResult(offset.error().message);
    memory::ListOptions o{*scope, limit->value_or(20), offset->value_or(0)};
    auto list = store().List(view(), o);
    if (!list.ok()) return ErrorResult("memory_list failed: " + list.error().message);
    ToolResult r;
    r.details = {{"count", list->size()}};
    if (list->empty()) {
      r.text = o.offset ? "No more memories." : "No memories yet.";
      return r;
    }
    int64_t i = o.offset;
    for (const auto& m : *list) r.text += std::to_string(++i) + ". " + Line(m) + "\n";
    if (static_cast<int64_t>(list->size()) == o.limit)
      r.text += "(more may follow: offset " + std::to_string(i) + ")";
    return r;
  }
};

}  // namespace

void AddMemoryTools(ToolRegistry& registry, std::shared_ptr<const MemoryBinding> b) {
  if (!b || !b->store) return;
  registry.Add(std::make_unique<StatusTool>(b));
  registry.Add(std::make_unique<AddTool>(b));
  registry.Add(std::make_unique<SearchTool>(b));
  registry.Add(std::make_unique<GetTool>(b));
  registry.Add(std::make_unique<UpdateTool>(b));
  registry.Add(std::make_unique<DeleteTool>(b));
  registry.Add(std::make_unique<ListTool>(b));
}

}  // namespace sepp::tools
