#include "ext/mcp/resource_tools.h"

#include "tools/truncate.h"

namespace sepp::ext::mcp {
namespace {

using Servers = std::vector<std::shared_ptr<McpServer>>;

std::string Str(const Json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string ServerNames(const Servers& servers) {
  std::string out;
  for (const auto& s : servers) out += (out.empty() ? "" : ", ") + s->config().name;
  return out;
}

tools::ToolResult Fail(const std::string& text) {
  tools::ToolResult r;
  r.text = text;
  r.is_error = true;
  return r;
}

tools::ToolResult Finish(std::string text, tools::ToolResult r = {}) {
  tools::Truncation cut = tools::TruncateHead(text, tools::TruncateLimits{});
  r.text = cut.text;
  r.truncated = cut.truncated;
  if (cut.truncated) r.text += "\n[output truncated: " + std::to_string(cut.omitted_bytes) + " bytes omitted]";
  return r;
}

RequestOptions Options(const McpServer& s, tools::ToolContext& ctx) {
  RequestOptions o;
  o.timeout_s = s.config().tool_timeout_s;
  o.cancel = ctx.cancel;
  return o;
}

class ListResources : public tools::Tool {
 public:
  explicit ListResources(Servers servers) : servers_(std::move(servers)) {}
  std::string name() const override { return "mcp_list_resources"; }
  std::string description() const override {
    return "List the resources (files, documents, records) the MCP servers offer (" + ServerNames(servers_) +
           "); read one with mcp_read_resource.";
  }
  Json parameters() const override {
    return {{"type", "object"},
            {"properties", {{"server", {{"type", "string"}, {"description", "only this server's"}}}}}};
  }
  std::string Summary(const Json& args) const override {
    return "MCP resources" + (args.is_object() && args.contains("server") ? " of " + Str(args, "server") : "");
  }
  tools::ToolResult Run(const Json& args, tools::ToolContext& ctx) override {
    std::string only = args.is_object() ? Str(args, "server") : "";
    std::string text;
    Json listed = Json::array();
    bool found = only.empty();
    for (const auto& s : servers_) {
      if (!only.empty() && s->config().name != only) continue;
      found = true;
      auto list = s->client().ListResources(Options(*s, ctx));
      if (!list.ok()) {
        text += s->config().name + ": " + list.error().message + "\n";
        continue;
      }
      for (const auto& r : *list) {
        text += s->config().name + " " + r.uri + (r.name.empty() ? "" : "  " + r.name) +
                (r.mime_type.empty() ? "" : " (" + r.mime_type + ")") +
                (r.description.empty() ? "" : ": " + r.description) + "\n";
        listed.push_back({{"server", s->config().name}, {"uri", r.uri}, {"name", r.name}});
      }
    }
    if (!found) return Fail("no MCP server named " + only + " offers resources (those that do: " + ServerNames(servers_) + ")");
    tools::ToolResult r;
    r.details["resources"] = listed;
    return Finish(text.empty() ? "(no resources)" : text, std::move(r));
  }

 private:
  Servers servers_;
};

class ReadResource : public tools::Tool {
 public:
  explicit ReadResource(Servers servers) : servers_(std::move(servers)) {}
  std::string name() const override { return "mcp_read_resource"; }
  std::string description() const override {
    return "Read a resource of an MCP server (" + ServerNames(servers_) + ") by its URI (see mcp_list_resources).";
  }
  Json parameters() const override {
    return {{"type", "object"},
            {"properties", {{"server", {{"type", "string"}, {"description", "the server's name"}}},
                            {"uri", {{"type", "string"}, {"description", "the resource's URI"}}}}},
            {"required", {"server", "uri"}}};
  }
  std::string Summary(const Json& args) const override {
    return "MCP resource " + (args.is_object() ? Str(args, "server") + " " + Str(args, "uri") : "");
  }
  tools::ToolResult Run(const Json& args, tools::ToolContext& ctx) override {
    std::string server = args.is_object() ? Str(args, "server") : "", uri = args.is_object() ? Str(args, "uri") : "";
    if (server.empty() || uri.empty()) return Fail("mcp_read_resource needs server and uri (strings)");
    for (const auto& s : servers_) {
      if (s->config().name != server) continue;
      if (!s->client().connected())
        return Fail("the MCP server " + server + " is not running: " + s->client().closed_reason());
      auto r = s->client().Request("resources/read", {{"uri", uri}}, Options(*s, ctx));
      if (!r.ok()) return Fail(r.error().message);
      std::string text;
      for (const auto& c : r->value("contents", Json::array())) {
        if (!c.is_object()) continue;
        if (!text.empty()) text += "\n";
        if (c.contains("text"))
          text += Str(c, "text");
        else  // binary: the model gets what it is, not base64
          text += "[binary " + Str(c, "uri") + " " + Str(c, "mimeType") + ", " +
                  std::to_string(Str(c, "blob").size() * 3 / 4) + " bytes]";
      }
      tools::ToolResult out;
      out.details["server"] = server;
      out.details["uri"] = uri;
      return Finish(text.empty() ? "(empty resource)" : text, std::move(out));
    }
    return Fail("no MCP server named " + server + " offers resources (those that do: " + ServerNames(servers_) + ")");
  }

 private:
  Servers servers_;
};

}  // namespace

std::vector<std::unique_ptr<tools::Tool>> MakeResourceTools(const Servers& servers) {
  Servers with;
  for (const auto& s : servers)
    if (s->client().server().capabilities.contains("resources")) with.push_back(s);
  std::vector<std::unique_ptr<tools::Tool>> out;
  if (with.empty()) return out;
  out.push_back(std::make_unique<ListResources>(with));
  out.push_back(std::make_unique<ReadResource>(with));
  return out;
}

}  // namespace sepp::ext::mcp
