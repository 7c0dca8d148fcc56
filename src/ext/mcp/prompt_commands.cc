#include "ext/mcp/prompt_commands.h"

#include <algorithm>
#include <set>

#include "ext/mcp/content_text.h"

namespace sepp::ext::mcp {
namespace {

constexpr const char* kPrefix = kMcpCommandPrefix;

std::string Str(const Json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

struct Argument {
  std::string name, description;
  bool required = false;
};

std::vector<Argument> Arguments(const PromptInfo& prompt) {
  std::vector<Argument> out;
  if (!prompt.arguments.is_array()) return out;
  for (const auto& a : prompt.arguments) {
    if (!a.is_object() || Str(a, "name").empty()) continue;
    auto req = a.find("required");
    out.push_back({Str(a, "name"), Str(a, "description"), req != a.end() && req->is_boolean() && req->get<bool>()});
  }
  return out;
}

// Words separated by blanks; quotes group, a backslash in double quotes
// escapes the next character. An unclosed quote is an error.
Result<std::vector<std::string>> Words(std::string_view text) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && isspace(static_cast<unsigned char>(text[i]))) ++i;
    if (i >= text.size()) break;
    std::string word;
    while (i < text.size() && !isspace(static_cast<unsigned char>(text[i]))) {
      char c = text[i];
      if (c == '"' || c == '\'') {
        size_t close = i + 1;
        for (; close < text.size() && text[close] != c; ++close) {
          if (c == '"' && text[close] == '\\' && close + 1 < text.size()) ++close;
          word.push_back(text[close]);
        }
        if (close >= text.size())
          return Error::Make(std::string("an unclosed ") + (c == '"' ? "double" : "single") +
                                 " quote in the arguments",
                             "usage");
        i = close + 1;
      } else {
        word.push_back(c);
        ++i;
      }
    }
    out.push_back(std::move(word));
  }
  return out;
}

class PromptCommands : public CommandSource {
 public:
  explicit PromptCommands(std::shared_ptr<const McpServers> servers) : servers_(std::move(servers)) {}

  uint64_t Version() const override { return servers_->Version(); }

  std::vector<CommandInfo> List() const override {
    std::vector<CommandInfo> out;
    for (const Entry& e : Entries())
      out.push_back({e.command, Describe(e), PromptArgumentHint(e.prompt), "mcp",
                     e.server->config().project ? "project" : "user", e.server->config().source});
    return out;
  }

  std::optional<Result<std::string>> Expand(std::string_view text) override {
    if (text.size() < 2 || text[0] != '/') return std::nullopt;
    size_t end = 1;
    while (end < text.size() && !isspace(static_cast<unsigned char>(text[end]))) ++end;
    std::string name(text.substr(1, end - 1));
    if (name.rfind(kPrefix, 0) != 0) return std::nullopt;
    std::vector<Entry> entries = Entries();
    auto it = std::find_if(entries.begin(), entries.end(), [&](const Entry& e) { return e.command == name; });
    if (it == entries.end()) return std::nullopt;
    std::string_view rest = end < text.size() ? text.substr(end) : std::string_view();
    auto args = PromptArguments(it->prompt, rest, "/" + name);
    if (!args.ok()) return Result<std::string>(args.error());
    McpServer& server = *it->server;
    if (!server.client().connected())
      return Result<std::string>(Error::Make("the MCP server " + server.config().name +
                                                 " is not running: " + server.client().closed_reason(),
                                             "mcp"));
    RequestOptions opts;
    opts.timeout_s = server.config().tool_timeout_s;
    auto r = server.client().Request("prompts/get", {{"name", it->prompt.name}, {"arguments", *args}}, opts);
    if (!r.ok())
      return Result<std::string>(Error::Make("/" + name + ": " + r.error().message, r.error().kind));
    auto out = PromptMessagesText(*r);
    if (!out.ok())
      return Result<std::string>(Error::Make("/" + name + ": " + out.error().message, "mcp"));
    return out;
  }

 private:
  struct Entry {
    std::string command;
    std::shared_ptr<McpServer> server;
    PromptInfo prompt;
  };
  static std::string Describe(const Entry& e) {
    std::string d = e.prompt.description.empty() ? e.prompt.title : e.prompt.description;
    return "(MCP server " + e.server->config().name + ") " + (d.empty() ? e.prompt.name : d);
  }
  std::vector<Entry> Entries() const {
    std::vector<Entry> out;
    std::set<std::string> seen;
    for (const auto& server : servers_->running())
      for (auto& p : server->Prompts()) {
        std::string command = PromptCommandName(server->config().name, p.name);
        if (!seen.insert(command).second) continue;  // two names that read the same: the first
        out.push_back({std::move(command), server, std::move(p)});
      }
    return out;
  }

  std::shared_ptr<const McpServers> servers_;
};

}  // namespace

std::string PromptCommandName(const std::string& server, const std::string& prompt) {
  std::string n = std::string(kPrefix) + server + "__" + prompt;
  for (char& c : n)
    if (!(isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) c = '_';
  return n;
}

std::string PromptArgumentHint(const PromptInfo& prompt) {
  std::string out;
  for (const Argument& a : Arguments(prompt))
    out += (out.empty() ? "" : " ") + (a.required ? "<" + a.name + ">" : "[" + a.name + "]");
  return out;
}

Result<Json> PromptArguments(const PromptInfo& prompt, std::string_view text, const std::string& command) {
  std::vector<Argument> declared = Arguments(prompt);
  std::string usage = command + (declared.empty() ? "" : " " + PromptArgumentHint(prompt));
  auto words = Words(text);
  if (!words.ok()) return Error::Make(command + ": " + words.error().message + "; usage: " + usage, "usage");
  Json args = Json::object();
  std::vector<std::string> positional;
  for (auto& w : *words) {
    size_t eq = w.find('=');
    if (eq != std::string::npos && eq > 0) {
      std::string key = w.substr(0, eq);
      if (std::any_of(declared.begin(), declared.end(), [&](const Argument& a) { return a.name == key; })) {
        if (args.contains(key)) return Error::Make(command + ": the argument " + key + " is given twice", "usage");
        args[key] = w.substr(eq + 1);
        continue;
      }
    }
    positional.push_back(std::move(w));
  }
  if (!positional.empty() && declared.empty())
    return Error::Make(command + " takes no arguments; usage: " + command, "usage");
  // Positional words fill the arguments not named, in order; the last one
  // filled takes the rest of the words.
  std::string last;
  size_t next = 0;
  for (const Argument& a : declared) {
    if (next >= positional.size()) break;
    if (args.contains(a.name)) continue;
    args[a.name] = positional[next++];
    last = a.name;
  }
  if (next < positional.size()) {
    if (last.empty())
      return Error::Make(command + ": every argument is given by name, and more words follow; usage: " + usage,
                         "usage");
    std::string rest = args[last].get<std::string>();
    for (; next < positional.size(); ++next) rest += " " + positional[next];
    args[last] = rest;
  }
  for (const Argument& a : declared)
    if (a.required && !args.contains(a.name))
      return Error::Make(command + " needs the argument " + a.name +
                             (a.description.empty() ? "" : " (" + a.description + ")") + "; usage: " + usage,
                         "usage");
  return args;
}

Result<std::string> PromptMessagesText(const Json& result) {
  auto messages = result.find("messages");
  if (messages == result.end() || !messages->is_array() || messages->empty())
    return Error::Make("the MCP server's prompt has no messages", "mcp");
  bool only_user = std::all_of(messages->begin(), messages->end(),
                               [](const Json& m) { return m.is_object() && Str(m, "role") == "user"; });
  std::string out;
  for (const auto& m : *messages) {
    if (!m.is_object()) continue;
    std::string text = ContentText(m.value("content", Json()));
    if (text.empty()) continue;
    if (!out.empty()) out += "\n\n";
    if (!only_user) out += "[" + (Str(m, "role").empty() ? std::string("user") : Str(m, "role")) + "]\n";
    out += text;
  }
  if (out.empty()) return Error::Make("the MCP server's prompt has no content sepp can send", "mcp");
  return out;
}

std::shared_ptr<CommandSource> MakePromptCommands(std::shared_ptr<const McpServers> servers) {
  return std::make_shared<PromptCommands>(std::move(servers));
}

}  // namespace sepp::ext::mcp
