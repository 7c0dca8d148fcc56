// What the six context_* tools share (context_tools.h registers them): one
// Tool class, told apart by a spec (name, description, schema, the argument
// its summary shows, the function that runs it), and the argument helpers
// every one of them needs. context_tools.cc has search, get and export;
// context_catalog_tools.cc has list, stats and purge.
#pragma once
#include <memory>
#include <string>

#include "base/json.h"
#include "base/result.h"
#include "sidecar/sidecar.h"
#include "tools/tool.h"

namespace sepp::tools::context {

struct ContextToolSpec {
  const char* name;
  const char* description;
  const char* schema;       // JSON Schema of the arguments
  const char* summary_arg;  // shown after the name in a call's summary ("" none)
  // Runs a call whose arguments are a JSON object (checked before).
  ToolResult (*run)(sidecar::Sidecar& sc, const Json& args);
};

class ContextTool : public Tool {
 public:
  ContextTool(std::shared_ptr<sidecar::Sidecar> sc, const ContextToolSpec& spec)
      : sc_(std::move(sc)), spec_(spec) {}
  std::string name() const override { return spec_.name; }
  std::string description() const override { return spec_.description; }
  Json parameters() const override { return Json::parse(spec_.schema); }
  std::string Summary(const Json& args) const override;
  ToolResult Run(const Json& args, ToolContext&) override;

 private:
  std::shared_ptr<sidecar::Sidecar> sc_;
  const ContextToolSpec& spec_;
};

// `global`: false when absent.
Result<bool> GlobalArg(const Json& args);
// `limit`: a number, clamped to 1..max (as pi-context does); fallback when
// absent.
Result<int64_t> LimitArg(const Json& args, int64_t fallback, int64_t max);
// The miss message of a source id this scope cannot see.
std::string NotFound(const std::string& id, bool global);
// "this session" / "this project (every session)": what a call looked at.
std::string ScopeName(bool global);

extern const ContextToolSpec kSearchSpec, kGetSpec, kExportSpec;  // context_tools.cc
extern const ContextToolSpec kListSpec, kStatsSpec, kPurgeSpec;   // context_catalog_tools.cc

}  // namespace sepp::tools::context
