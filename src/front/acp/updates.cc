#include "front/acp/updates.h"

#include <map>

#include "base/strings.h"
#include "front/acp/tool_calls.h"

namespace sepp::front::acp {
namespace {

Json Chunk(const char* kind, const std::string& text) {
  return {{"sessionUpdate", kind}, {"content", {{"type", "text"}, {"text", SanitizeUtf8(text)}}}};
}

std::string Title(const UpdateContext& ctx, const std::string& tool, const Json& args) {
  std::string t = ctx.title ? ctx.title(tool, args) : std::string();
  return t.empty() ? tool : t;
}

}  // namespace

std::optional<Json> UpdateForEvent(const agent::Event& e, const UpdateContext& ctx,
                                   const Json& args_of_call) {
  using agent::EventType;
  switch (e.type) {
    case EventType::kMessageDelta:
      if (e.text.empty()) return std::nullopt;
      return Chunk("agent_message_chunk", e.text);
    case EventType::kThinkingDelta:
      if (e.text.empty()) return std::nullopt;
      return Chunk("agent_thought_chunk", e.text);
    case EventType::kToolStarted:
      return ToolCallStarted(e.call_id, e.tool, e.summary.empty() ? Title(ctx, e.tool, e.args) : e.summary,
                             e.args, ctx.cwd);
    case EventType::kToolFinished: {
      Json details = e.data.is_object() ? e.data.value("details", Json()) : Json();
      return ToolCallFinished(e.call_id, e.tool, args_of_call, e.result, e.is_error, details, ctx.cwd);
    }
    case EventType::kUsage: {
      // "used": the tokens the context holds now, which is what the last
      // call read and wrote; "size": the model's window.
      Json u = {{"sessionUpdate", "usage_update"},
                {"used", e.usage.total()},
                {"size", ctx.context_window}};
      return u;
    }
    default:
      return std::nullopt;
  }
}

std::vector<Json> HistoryUpdates(const std::vector<llm::Message>& history,
                                 const UpdateContext& ctx) {
  std::vector<Json> out;
  std::map<std::string, Json> args_by_call;
  for (const llm::Message& m : history) {
    switch (m.role) {
      case llm::Role::kUser: {
        std::string text = m.Text();
        if (!text.empty()) out.push_back(Chunk("user_message_chunk", text));
        break;
      }
      case llm::Role::kAssistant:
        for (const llm::ContentBlock& b : m.content) {
          if (b.kind == llm::ContentBlock::Kind::kThinking && !b.redacted && !b.text.empty())
            out.push_back(Chunk("agent_thought_chunk", b.text));
          else if (b.kind == llm::ContentBlock::Kind::kText && !b.text.empty())
            out.push_back(Chunk("agent_message_chunk", b.text));
          else if (b.kind == llm::ContentBlock::Kind::kToolCall) {
            args_by_call[b.id] = b.arguments;
            out.push_back(ToolCallStarted(b.id, b.name, Title(ctx, b.name, b.arguments),
                                          b.arguments, ctx.cwd));
          }
        }
        break;
      case llm::Role::kToolResult: {
        auto it = args_by_call.find(m.tool_call_id);
        Json args = it == args_by_call.end() ? Json() : it->second;
        out.push_back(ToolCallFinished(m.tool_call_id, m.tool_name, args, m.Text(), m.is_error,
                                       Json(), ctx.cwd));
        break;
      }
    }
  }
  return out;
}

Result<std::string> PromptText(const Json& blocks) {
  if (!blocks.is_array())
    return Error::Make("\"prompt\" must be an array of content blocks", "invalid_params");
  std::string text;
  auto add = [&](const std::string& piece) {
    if (piece.empty()) return;
    if (!text.empty()) text += "\n\n";
    text += piece;
  };
  for (const Json& b : blocks) {
    if (!b.is_object() || !b.value("type", Json()).is_string())
      return Error::Make("each prompt block must be an object with a \"type\"", "invalid_params");
    std::string type = b["type"];
    if (type == "text") {
      if (!b.value("text", Json()).is_string())
        return Error::Make("a text block needs a string \"text\"", "invalid_params");
      add(b["text"].get<std::string>());
    } else if (type == "resource_link") {
      if (!b.value("uri", Json()).is_string())
        return Error::Make("a resource_link block needs a string \"uri\"", "invalid_params");
      add("@" + b["uri"].get<std::string>());
    } else if (type == "resource") {
      const Json r = b.value("resource", Json());
      if (!r.is_object() || !r.value("uri", Json()).is_string())
        return Error::Make("a resource block needs \"resource\": {uri, text}", "invalid_params");
      if (r.value("text", Json()).is_string())
        add("<resource uri=\"" + r["uri"].get<std::string>() + "\">\n" +
            r["text"].get<std::string>() + "\n</resource>");
      else
        add("@" + r["uri"].get<std::string>());
    } else {
      return Error::Make("prompt blocks of type \"" + type +
                                         "\" are not supported (text, resource_link, resource)", "invalid_params");
    }
  }
  if (text.empty()) return Error::Make("the prompt has no text", "invalid_params");
  return text;
}

}  // namespace sepp::front::acp
