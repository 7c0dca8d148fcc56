#include "ext/mcp/client.h"

#include <algorithm>
#include <atomic>
#include <chrono>

#include "base/clock.h"

namespace sepp::ext::mcp {
namespace {

constexpr int kMaxPages = 100;

std::string Str(const Json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

Json ErrorReply(const Json& id, int code, const std::string& message) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
}

std::string FileUri(const std::string& path) {
  std::string out = "file://";
  for (unsigned char c : path) {
    if (isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      char buf[4];
      snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

}  // namespace

const std::vector<std::string>& SupportedProtocols() {
  static const std::vector<std::string> v = {"2025-11-25", "2025-06-18", "2025-03-26"};
  return v;
}

McpClient::McpClient(std::unique_ptr<Transport> transport, ClientHooks hooks)
    : transport_(std::move(transport)), hooks_(std::move(hooks)) {
  transport_->Start([this](Json m) { OnMessage(std::move(m)); },
                    [this](const std::string& r) { OnClosed(r); });
}

McpClient::~McpClient() { transport_->Close(); }

bool McpClient::connected() const {
  std::lock_guard lock(mu_);
  return !closed_;
}

std::string McpClient::closed_reason() const {
  std::lock_guard lock(mu_);
  return closed_reason_;
}

void McpClient::OnClosed(const std::string& reason) {
  std::lock_guard lock(mu_);
  closed_ = true;
  closed_reason_ = reason;
  cv_.notify_all();
}

void McpClient::OnMessage(Json msg) {
  auto method = msg.find("method");
  auto id = msg.find("id");
  if (method != msg.end() && method->is_string()) {
    if (id != msg.end() && (id->is_string() || id->is_number_integer())) {
      AnswerRequest(msg);
      return;
    }
    const std::string m = method->get<std::string>();
    const Json params = msg.value("params", Json::object());
    if (!params.is_object()) return;
    if (m == "notifications/progress") {
      auto token = params.find("progressToken");
      if (token == params.end() || !token->is_number_integer()) return;
      std::lock_guard lock(mu_);
      auto it = pending_.find(token->get<int64_t>());
      if (it == pending_.end()) return;
      Pending* p = it->second;
      if (p->timeout_s > 0) p->deadline = MonotonicSeconds() + p->timeout_s;
      auto num = [&](const char* k) -> std::optional<double> {
        auto v = params.find(k);
        if (v == params.end() || !v->is_number()) return std::nullopt;
        return v->get<double>();
      };
      if (p->opts && p->opts->on_progress)
        p->opts->on_progress(num("progress").value_or(0), num("total"), Str(params, "message"));
      cv_.notify_all();
    } else if (m == "notifications/message") {
      if (hooks_.on_log) {
        auto data = params.find("data");
        std::string text = data == params.end() ? "" : data->is_string() ? data->get<std::string>()
                                                                         : DumpJson(*data);
        std::string logger = Str(params, "logger");
        hooks_.on_log(Str(params, "level"), logger.empty() ? text : logger + ": " + text);
      }
    } else if (m == "notifications/tools/list_changed") {
      if (hooks_.on_list_changed) hooks_.on_list_changed("tools");
    } else if (m == "notifications/prompts/list_changed") {
      if (hooks_.on_list_changed) hooks_.on_list_changed("prompts");
    } else if (m == "notifications/resources/list_changed") {
      if (hooks_.on_list_changed) hooks_.on_list_changed("resources");
    }
    return;  // other notifications: nothing to do
  }
  // A response: to one of ours, by id.
  if (id == msg.end() || !id->is_number_integer()) return;
  if (msg.find("result") == msg.end() && msg.find("error") == msg.end()) return;
  std::lock_guard lock(mu_);
  auto it = pending_.find(id->get<int64_t>());
  if (it == pending_.end() || it->second->done) return;  // not ours, or given up on
  it->second->done = true;
  it->second->response = std::move(msg);
  cv_.notify_all();
}

void McpClient::AnswerRequest(const Json& msg) {
  const Json& id = msg["id"];
  const std::string method = msg["method"].get<std::string>();
  Json params = msg.value("params", Json::object());
  Json reply;
  if (method == "ping") {
    reply = {{"jsonrpc", "2.0"}, {"id", id}, {"result", Json::object()}};
  } else if (method == "roots/list") {
    Json roots = Json::array();
    for (const auto& r : hooks_.roots) {
      std::string name = r.substr(r.find_last_of('/') + 1);
      roots.push_back({{"uri", FileUri(r)}, {"name", name.empty() ? r : name}});
    }
    reply = {{"jsonrpc", "2.0"}, {"id", id}, {"result", {{"roots", roots}}}};
  } else if (method == "elicitation/create") {
    Json result = {{"action", "decline"}};
    if (hooks_.on_elicitation && params.is_object()) result = hooks_.on_elicitation(params);
    reply = {{"jsonrpc", "2.0"}, {"id", id}, {"result", result}};
  } else {
    reply = ErrorReply(id, -32601, "sepp does not offer " + method);
  }
  (void)transport_->Send(reply);
}

Status McpClient::Notify(const std::string& method, Json params) {
  Json msg = {{"jsonrpc", "2.0"}, {"method", method}};
  if (!params.is_null()) msg["params"] = std::move(params);
  return transport_->Send(msg);
}

Result<Json> McpClient::Request(const std::string& method, Json params, const RequestOptions& opts) {
  Pending p;
  p.timeout_s = opts.timeout_s;
  p.opts = &opts;
  int64_t id;
  {
    std::lock_guard lock(mu_);
    if (closed_) return Error::Make("the MCP server is not connected: " + closed_reason_, "eof");
    id = next_id_++;
    if (p.timeout_s > 0) p.deadline = MonotonicSeconds() + p.timeout_s;
    pending_[id] = &p;
  }
  auto forget = [&] {
    std::lock_guard lock(mu_);
    pending_.erase(id);
  };
  if (params.is_null()) params = Json::object();
  if (opts.on_progress) params["_meta"]["progressToken"] = id;
  Json msg = {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
  if (auto st = transport_->Send(msg); !st.ok()) {
    forget();
    return Error::Make("sending " + method + " to the MCP server: " + st.error().message, "eof");
  }
  std::atomic<bool> cancelled{false};
  std::unique_ptr<CancelToken::Registration> reg;
  if (opts.cancel)
    reg = opts.cancel->OnCancel([&] {
      cancelled = true;
      std::lock_guard lock(mu_);
      cv_.notify_all();
    });
  std::string gave_up;  // why we stopped waiting, when not answered
  std::unique_lock lock(mu_);
  while (!p.done) {
    if (cancelled) {
      gave_up = "cancelled";
      break;
    }
    if (closed_) {
      gave_up = "eof";
      break;
    }
    if (p.deadline > 0) {
      double left = p.deadline - MonotonicSeconds();
      if (left <= 0 && transport_->AwaitingUser()) {
        p.deadline = MonotonicSeconds() + p.timeout_s;
        continue;
      }
      if (left <= 0) {
        gave_up = "timeout";
        break;
      }
      cv_.wait_for(lock, std::chrono::duration<double>(std::min(left, 1.0)));
    } else {
      cv_.wait(lock);
    }
  }
  pending_.erase(id);
  std::string reason = closed_reason_;
  lock.unlock();
  reg.reset();
  if (gave_up == "eof")
    return Error::Make("the MCP server went away during " + method + ": " + reason, "eof");
  if (!gave_up.empty()) {
    // The spec: tell the server, so it can stop the work.
    (void)Notify("notifications/cancelled",
                 {{"requestId", id}, {"reason", gave_up == "timeout" ? "timed out" : "cancelled by the user"}});
    if (gave_up == "timeout")
      return Error::Make(method + " got no answer from the MCP server within " +
                         std::to_string(static_cast<int>(opts.timeout_s)) + " s", "timeout");
    return Error::Make(method + " was cancelled", "cancelled");
  }
  const Json& r = p.response;
  if (auto e = r.find("error"); e != r.end()) {
    std::string message = e->is_object() ? Str(*e, "message") : "";
    std::string code = e->is_object() && e->contains("code") && (*e)["code"].is_number_integer()
                           ? std::to_string((*e)["code"].get<int64_t>())
                           : "?";
    return Error::Make("the MCP server answered " + method + " with error " + code +
                       (message.empty() ? "" : ": " + message), "mcp");
  }
  const Json& result = r["result"];
  if (!result.is_object())
    return Error::Make("the MCP server's answer to " + method + " is not an object", "mcp");
  return result;
}

Result<ServerInfo> McpClient::Initialize(double timeout_s) {
  Json caps = Json::object();
  if (!hooks_.roots.empty()) caps["roots"] = {{"listChanged", false}};
  if (hooks_.on_elicitation) caps["elicitation"] = Json::object();
  RequestOptions opts;
  opts.timeout_s = timeout_s;
  auto r = Request("initialize",
                   {{"protocolVersion", kLatestProtocol},
                    {"capabilities", caps},
                    {"clientInfo", {{"name", "sepp"}, {"version", SEPP_VERSION}}}},
                   opts);
  if (!r.ok()) return r.error();
  ServerInfo info;
  info.protocol_version = Str(*r, "protocolVersion");
  const auto& supported = SupportedProtocols();
  if (std::find(supported.begin(), supported.end(), info.protocol_version) == supported.end()) {
    std::string ours;
    for (const auto& v : supported) ours += (ours.empty() ? "" : ", ") + v;
    return Error::Make("the MCP server speaks protocol version \"" + info.protocol_version +
                       "\", and sepp speaks " + ours + "; update the server or sepp", "mcp");
  }
  if (auto si = r->find("serverInfo"); si != r->end() && si->is_object()) {
    info.name = Str(*si, "name");
    info.version = Str(*si, "version");
  }
  info.instructions = Str(*r, "instructions");
  if (auto c = r->find("capabilities"); c != r->end() && c->is_object()) info.capabilities = *c;
  server_ = info;
  transport_->SetProtocolVersion(info.protocol_version);
  if (auto st = Notify("notifications/initialized", nullptr); !st.ok()) return st.error();
  return info;
}

Result<Json> McpClient::Paged(const std::string& method, const char* key, const RequestOptions& opts) {
  Json all = Json::array();
  std::string cursor;
  for (int page = 0; page < kMaxPages; ++page) {
    Json params = Json::object();
    if (!cursor.empty()) params["cursor"] = cursor;
    auto r = Request(method, params, opts);
    if (!r.ok()) return r.error();
    auto items = r->find(key);
    if (items == r->end() || !items->is_array())
      return Error::Make("the MCP server's answer to " + method + " has no \"" + key + "\" list", "mcp");
    for (auto& item : *items)
      if (item.is_object()) all.push_back(std::move(item));
    cursor = Str(*r, "nextCursor");
    if (cursor.empty()) return all;
  }
  return Error::Make("the MCP server's " + method + " did not end after " +
                     std::to_string(kMaxPages) + " pages", "mcp");
}

Result<std::vector<ToolInfo>> McpClient::ListTools(const RequestOptions& opts) {
  auto items = Paged("tools/list", "tools", opts);
  if (!items.ok()) return items.error();
  std::vector<ToolInfo> out;
  for (const auto& t : *items) {
    ToolInfo info;
    info.name = Str(t, "name");
    if (info.name.empty()) continue;
    info.title = Str(t, "title");
    info.description = Str(t, "description");
    if (auto s = t.find("inputSchema"); s != t.end() && s->is_object()) info.input_schema = *s;
    if (auto s = t.find("outputSchema"); s != t.end() && s->is_object()) info.output_schema = *s;
    out.push_back(std::move(info));
  }
  return out;
}

Result<std::vector<PromptInfo>> McpClient::ListPrompts(const RequestOptions& opts) {
  auto items = Paged("prompts/list", "prompts", opts);
  if (!items.ok()) return items.error();
  std::vector<PromptInfo> out;
  for (const auto& t : *items) {
    PromptInfo info;
    info.name = Str(t, "name");
    if (info.name.empty()) continue;
    info.title = Str(t, "title");
    info.description = Str(t, "description");
    if (auto a = t.find("arguments"); a != t.end() && a->is_array()) info.arguments = *a;
    out.push_back(std::move(info));
  }
  return out;
}

Result<std::vector<ResourceInfo>> McpClient::ListResources(const RequestOptions& opts) {
  auto items = Paged("resources/list", "resources", opts);
  if (!items.ok()) return items.error();
  std::vector<ResourceInfo> out;
  for (const auto& t : *items) {
    ResourceInfo info;
    info.uri = Str(t, "uri");
    if (info.uri.empty()) continue;
    info.name = Str(t, "name");
    info.title = Str(t, "title");
    info.description = Str(t, "description");
    info.mime_type = Str(t, "mimeType");
    out.push_back(std::move(info));
  }
  return out;
}

}  // namespace sepp::ext::mcp
