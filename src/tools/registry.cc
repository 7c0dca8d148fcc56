#include <algorithm>

#include "tools/tool.h"
#include "tools/tool_worker.h"

namespace sepp::tools {

void ToolRegistry::Add(std::unique_ptr<Tool> tool) {
  if (!tool) return;
  // A later tool with the same name replaces the earlier one (an extension
  // may override a built-in).
  std::string n = tool->name();
  auto it = std::find_if(tools_.begin(), tools_.end(), [&](const auto& t) { return t->name() == n; });
  if (it != tools_.end()) {
    *it = std::move(tool);
  } else {
    tools_.push_back(std::move(tool));
  }
}

Tool* ToolRegistry::Find(std::string_view name) const {
  for (const auto& t : tools_)
    if (t->name() == name) return t.get();
  return nullptr;
}

std::vector<Tool*> ToolRegistry::All() const {
  std::vector<Tool*> out;
  out.reserve(tools_.size());
  for (const auto& t : tools_) out.push_back(t.get());
  return out;
}

void ToolRegistry::Retain(const std::vector<std::string>& names) {
  std::erase_if(tools_, [&](const auto& t) {
    return std::find(names.begin(), names.end(), t->name()) == names.end();
  });
}

std::unique_ptr<ToolRegistry> MakeBuiltinTools() {
  auto r = std::make_unique<ToolRegistry>();
  r->Add(MakeReadTool());
  r->Add(MakeWriteTool());
  r->Add(MakeEditTool());
  r->Add(MakeBashTool());
  r->Add(MakeLsTool());
  r->Add(MakeFindTool());
  r->Add(MakeGrepTool());
  return r;
}

ToolResult RunTool(Tool& tool, const Json& args, ToolContext& ctx) {
  try {
    bool via_access = ctx.file_access && tool.uses(*ctx.file_access);
    if (!via_access && ctx.worker && tool.runs_in_worker() && ctx.worker->Covers(tool.name(), ctx))
      return ctx.worker->Call(tool.name(), args, ctx);
    return tool.Run(args, ctx);
  } catch (const std::exception& e) {
    ToolResult r;
    r.text = tool.name() + " failed: " + e.what();
    r.is_error = true;
    return r;
  }
}

std::string SummarizeCall(const Tool& tool, const Json& args) noexcept {
  try {
    return tool.Summary(args);
  } catch (...) {
  }
  try {
    return tool.name();
  } catch (...) {
    return "tool";
  }
}

}  // namespace sepp::tools
