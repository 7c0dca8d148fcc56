// A server's tool as a tools::Tool: arguments go out as tools/call, the
// result's content blocks come back as text for the model (images and
// audio as a note, since the tool result is text), structuredContent as
// JSON when there is no text, and in details for front ends.
#include <algorithm>

#include "ext/mcp/content_text.h"
#include "ext/mcp/servers.h"
#include "tools/truncate.h"

namespace sepp::ext::mcp {
namespace {

std::string Str(const Json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

class McpTool : public tools::Tool {
 public:
  McpTool(std::shared_ptr<McpServer> server, ToolInfo info)
      : server_(std::move(server)), info_(std::move(info)),
        name_(ToolName(server_->config().name, info_.name)) {}

  std::string name() const override { return name_; }
  std::string description() const override {
    std::string d = info_.description.empty() ? info_.title : info_.description;
    return "(MCP server " + server_->config().name + ") " + d;
  }
  Json parameters() const override {
    Json schema = info_.input_schema.is_object() ? info_.input_schema : Json::object();
    if (!schema.contains("type")) schema["type"] = "object";
    return schema;
  }
  std::string Summary(const Json& args) const override {
    std::string s = server_->config().name + ": " + info_.name;
    std::string a = DumpJson(args);
    if (a.size() > 80) a = a.substr(0, 77) + "...";
    return args.is_object() && !args.empty() ? s + " " + a : s;
  }

  tools::ToolResult Run(const Json& args, tools::ToolContext& ctx) override {
    tools::ToolResult result;
    auto fail = [&](const std::string& text) {
      result.text = text;
      result.is_error = true;
      return result;
    };
    if (!server_->client().connected())
      return fail("the MCP server " + server_->config().name + " is not running: " +
                  server_->client().closed_reason());
    // After list_changed: is this tool still offered?
    std::vector<ToolInfo> now = server_->Tools();
    if (std::none_of(now.begin(), now.end(), [&](const ToolInfo& t) { return t.name == info_.name; }))
      return fail("the MCP server " + server_->config().name + " no longer offers " + info_.name);
    RequestOptions opts;
    opts.timeout_s = server_->config().tool_timeout_s;
    opts.cancel = ctx.cancel;
    if (ctx.on_output)
      opts.on_progress = [&ctx](double progress, std::optional<double> total, const std::string& msg) {
        std::string line = "progress " + std::to_string(static_cast<long long>(progress));
        if (total) line += "/" + std::to_string(static_cast<long long>(*total));
        if (!msg.empty()) line += ": " + msg;
        ctx.on_output(line + "\n");
      };
    auto r = server_->client().Request(
        "tools/call", {{"name", info_.name}, {"arguments", args.is_object() ? args : Json::object()}}, opts);
    if (!r.ok()) return fail(r.error().message);
    std::string text = ContentText(r->value("content", Json::array()));
    auto structured = r->find("structuredContent");
    if (structured != r->end() && !structured->is_null()) {
      result.details["structured_content"] = *structured;
      if (text.empty()) text = DumpJson(*structured, 2);
    }
    result.is_error = r->value("isError", false);
    tools::Truncation cut = tools::TruncateHead(text, tools::TruncateLimits{});
    result.text = cut.text;
    result.truncated = cut.truncated;
    if (cut.truncated)
      result.text += "\n[output truncated: " + std::to_string(cut.omitted_bytes) + " bytes omitted]";
    if (result.text.empty()) result.text = result.is_error ? "(the tool failed without a message)" : "(no output)";
    result.details["server"] = server_->config().name;
    return result;
  }

 private:
  std::shared_ptr<McpServer> server_;
  ToolInfo info_;
  std::string name_;
};

}  // namespace

std::string ToolName(const std::string& server, const std::string& tool) {
  std::string n = "mcp__" + server + "__" + tool;
  for (char& c : n)
    if (!(isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) c = '_';
  if (n.size() > 64) n.resize(64);
  return n;
}

std::unique_ptr<tools::Tool> MakeMcpTool(std::shared_ptr<McpServer> server, ToolInfo info) {
  return std::make_unique<McpTool>(std::move(server), std::move(info));
}

}  // namespace sepp::ext::mcp
