// A plugin's tool as a tools::Tool (plugins.h): the call goes to the
// plugin under its limits; a trap, a failure or a refusal is an error result
// the model can read. The plugin's log lines go to details for front ends.
#include "ext/plugins/plugins.h"
#include "tools/truncate.h"

namespace sepp::ext::plugins {
namespace {

class PluginTool : public tools::Tool {
 public:
  PluginTool(std::shared_ptr<Plugin> plugin, PluginToolInfo info)
      : plugin_(std::move(plugin)), info_(std::move(info)),
        name_(ToolName(plugin_->manifest().name, info_.name)) {}

  std::string name() const override { return name_; }
  std::string description() const override {
    return "(plugin " + plugin_->manifest().name + ") " + info_.description;
  }
  Json parameters() const override {
    Json schema = info_.input_schema;
    if (!schema.contains("type")) schema["type"] = "object";
    return schema;
  }
  std::string Summary(const Json& args) const override {
    std::string s = plugin_->manifest().name + ": " + info_.name;
    std::string a = DumpJson(args);
    if (a.size() > 80) a = a.substr(0, 77) + "...";
    return args.is_object() && !args.empty() ? s + " " + a : s;
  }

  tools::ToolResult Run(const Json& args, tools::ToolContext& ctx) override {
    CallOutcome r = plugin_->CallTool(info_.name, args, ctx.call_id, ctx.cancel);
    tools::ToolResult result;
    result.is_error = !r.ok;
    tools::Truncation cut = tools::TruncateHead(r.text, tools::TruncateLimits{});
    result.text = cut.text;
    result.truncated = cut.truncated;
    if (cut.truncated)
      result.text += "\n[output truncated: " + std::to_string(cut.omitted_bytes) + " bytes omitted]";
    if (result.text.empty()) result.text = r.ok ? "(no output)" : "(the tool failed without a message)";
    result.details["plugin"] = plugin_->manifest().name;
    if (!r.log.empty()) result.details["log"] = r.log;
    return result;
  }

 private:
  std::shared_ptr<Plugin> plugin_;
  PluginToolInfo info_;
  std::string name_;
};

}  // namespace

std::string ToolName(const std::string& plugin, const std::string& tool) {
  std::string n = "plugin__" + plugin + "__" + tool;
  for (char& c : n)
    if (!(isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) c = '_';
  if (n.size() > 64) n.resize(64);
  return n;
}

std::unique_ptr<tools::Tool> MakePluginTool(std::shared_ptr<Plugin> plugin, PluginToolInfo info) {
  return std::make_unique<PluginTool>(std::move(plugin), std::move(info));
}

}  // namespace sepp::ext::plugins
