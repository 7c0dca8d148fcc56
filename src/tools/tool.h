// Tool: what the model can call. A tool validates its own arguments and
// reports every failure as a result the model can read (is_error), never by
// throwing. Output is truncated (truncate.h) before it enters the context.
#pragma once
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/cancel.h"
#include "base/json.h"
#include "sandbox/denial.h"
#include "sandbox/policy.h"

namespace sepp::tools {

class FileAccess;
class PathGuard;
class ToolWorker;

struct ToolContext {
  std::filesystem::path cwd;                          // the workspace
  CancelToken* cancel = nullptr;                      // may be null
  std::function<void(std::string_view)> on_output;    // partial output (bash); may be empty
  const sandbox::Policy* policy = nullptr;            // null: the built-in default
  // The model's id for this call ("" outside the agent loop): a sub-agent
  // nests its events under it.
  std::string call_id;
  // Where a tool saves the full text of an output it had to truncate (bash),
  // so the model can read the rest. Empty: $TMPDIR/sepp-UID-output (else
  // /tmp/sepp-UID-output), private to the user; saved outputs older than a
  // week are removed. The agent may point it at the session's folder.
  std::filesystem::path output_dir;
  // The session sandbox's tool worker (tool_worker.h): when set, RunTool()
  // runs the built-in tools in it, so the kernel confines their work.
  ToolWorker* worker = nullptr;
  // The front end's file access (file_access.h), e.g. an editor's buffers:
  // when set, read, write and edit use it for the directions it offers, in
  // this process (RunTool), after the same PathGuard checks.
  FileAccess* file_access = nullptr;
  // The file tools' PathGuard (access.h) for ctx.policy, made once and
  // shared by the calls: resolving the policy's ~60 paths is most of a small
  // call's cost. The tool worker sets it (its policy and the kernel's view
  // of the paths are fixed when the session sandbox is set up); null: each
  // call resolves the policy anew.
  const PathGuard* guard = nullptr;
};

struct ToolResult {
  std::string text;        // what the model sees
  bool is_error = false;
  bool truncated = false;
  Json details;            // for front ends (diff, exit code, ...), not the model
  // What the sandbox or the PathGuard refused, typed by the code that
  // refused (denial.h); details.denied is true when this is not empty.
  std::vector<sandbox::Denial> denials;
};

class Tool {
 public:
  virtual ~Tool() = default;
  // Fixed for the tool's life: the system prompt lists them once, and the
  // agent reads them once per registry (not at every model call).
  virtual std::string name() const = 0;
  virtual std::string description() const = 0;
  virtual Json parameters() const = 0;  // JSON Schema
  // Short one-line summary of a call for humans: "read src/main.cpp".
  virtual std::string Summary(const Json& args) const = 0;
  // Thread-safe (calls run in parallel). Expected failures (bad arguments,
  // missing files, a failing command) are results with is_error. An internal
  // fault may throw std::exception: call tools through RunTool().
  virtual ToolResult Run(const Json& args, ToolContext& ctx) = 0;
  // True for the built-in tools that touch the filesystem or run commands:
  // RunTool() sends them to the session's tool worker (ctx.worker).
  virtual bool runs_in_worker() const { return false; }
  // True when this tool's files go through access (read, write, edit):
  // RunTool() then runs it here instead of in the worker.
  virtual bool uses(const FileAccess& access) const { (void)access; return false; }
};

// Runs tool, in the session's tool worker when ctx.worker is set and covers
// the call (see ToolWorker::Covers) and the tool does not use
// ctx.file_access, else in this process; an exception it
// throws becomes an error result ("read failed: ..."), so one faulty tool can
// never take down the agent. Never throws.
ToolResult RunTool(Tool& tool, const Json& args, ToolContext& ctx);

// tool.Summary(args) for any argument shape the model sends: a summary that
// throws falls back to the tool's name. Never throws. Everything the agent
// computes from a call's arguments outside RunTool goes through a guard
// like this one.
std::string SummarizeCall(const Tool& tool, const Json& args) noexcept;

class ToolRegistry {
 public:
  void Add(std::unique_ptr<Tool> tool);
  Tool* Find(std::string_view name) const;
  std::vector<Tool*> All() const;
  // Keeps only the named tools (for sub-agents with a restricted set).
  void Retain(const std::vector<std::string>& names);

 private:
  std::vector<std::unique_ptr<Tool>> tools_;
};

// read, write, edit, bash, ls, find, grep.
std::unique_ptr<ToolRegistry> MakeBuiltinTools();

// The built-in tools one by one (for registries with a custom set).
std::unique_ptr<Tool> MakeReadTool();
std::unique_ptr<Tool> MakeWriteTool();
std::unique_ptr<Tool> MakeEditTool();
std::unique_ptr<Tool> MakeBashTool();
std::unique_ptr<Tool> MakeLsTool();
std::unique_ptr<Tool> MakeFindTool();
std::unique_ptr<Tool> MakeGrepTool();

}  // namespace sepp::tools
