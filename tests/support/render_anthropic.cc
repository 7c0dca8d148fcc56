// Anthropic Messages API, POST /v1/messages.
//
// Streaming (SSE, "event: <type>" + "data: <json>"):
//   message_start {message: {id, type, role, content: [], model, stop_reason:
//                  null, stop_sequence: null, usage: {input_tokens, output_tokens}}}
//   ping
//   per block, in order thinking, text, tool_use...:
//     content_block_start {index, content_block: {type:"thinking", thinking:"",
//                          signature:""} | {type:"text", text:""} |
//                          {type:"tool_use", id, name, input: {}}}
//     content_block_delta {index, delta: {type:"thinking_delta", thinking} |
//                          {type:"signature_delta", signature} |
//                          {type:"text_delta", text} |
//                          {type:"input_json_delta", partial_json}}
//     content_block_stop {index}
//   [error {type:"error", error: {type, message}} — then the stream ends]
//   message_delta {delta: {stop_reason, stop_sequence: null}, usage: {output_tokens}}
//   message_stop
// Not streaming: {id, type:"message", role, model, content: [...], stop_reason,
// stop_sequence, usage}. raw_arguments that are not JSON appear as a string
// "input" there (the real API never does this; it exercises error paths).
// HTTP errors: {type:"error", error: {type, message}}.
#include "fake_script.h"

namespace sepp::fake {
namespace {

std::string ErrorType(int status) {
  switch (status) {
    case 400: return "invalid_request_error";
    case 401: return "authentication_error";
    case 403: return "permission_error";
    case 404: return "not_found_error";
    case 413: return "request_too_large";
    case 429: return "rate_limit_error";
    case 529: return "overloaded_error";
    default: return "api_error";
  }
}

std::string ToolId(const FakeToolCall& c, const RenderContext& ctx, size_t i) {
  return c.id.empty() ? "toolu_fake_" + std::to_string(ctx.index) + "_" + std::to_string(i) : c.id;
}

}  // namespace

Rendered RenderAnthropic(const FakeTurn& turn, const RenderContext& ctx) {
  Rendered out;
  out.headers.push_back({"request-id", "req_fake_" + std::to_string(ctx.index)});
  if (turn.error) {
    out.status = turn.error->status;
    out.headers.push_back({"Content-Type", "application/json"});
    if (turn.error->retry_after >= 0) {
      out.headers.push_back({"retry-after", std::to_string(static_cast<long>(turn.error->retry_after))});
    }
    Json body = {{"type", "error"},
                 {"error", {{"type", turn.error->type.empty() ? ErrorType(turn.error->status) : turn.error->type},
                            {"message", turn.error->message}}}};
    out.pieces.push_back(DumpJson(body));
    return out;
  }
  std::string id = "msg_fake_" + std::to_string(ctx.index);
  long input = InputTokens(turn, ctx), output = OutputTokens(turn);
  std::string stop = StopReason(turn);

  if (!ctx.stream) {
    out.headers.push_back({"Content-Type", "application/json"});
    Json content = Json::array();
    if (!turn.thinking.empty()) {
      content.push_back({{"type", "thinking"}, {"thinking", turn.thinking}, {"signature", turn.signature}});
    }
    if (!turn.text.empty()) content.push_back({{"type", "text"}, {"text", turn.text}});
    for (size_t i = 0; i < turn.tool_calls.size(); ++i) {
      const auto& c = turn.tool_calls[i];
      auto parsed = ParseJson(c.arguments);
      content.push_back({{"type", "tool_use"},
                         {"id", ToolId(c, ctx, i)},
                         {"name", c.name},
                         {"input", parsed.ok() ? *parsed : Json(c.arguments)}});
    }
    Json body = {{"id", id},
                 {"type", "message"},
                 {"role", "assistant"},
                 {"model", ctx.model},
                 {"content", content},
                 {"stop_reason", stop},
                 {"stop_sequence", nullptr},
                 {"usage", {{"input_tokens", input}, {"output_tokens", output}}}};
    out.pieces.push_back(DumpJson(body));
    return out;
  }

  out.stream = true;
  out.headers.push_back({"Content-Type", "text/event-stream"});
  out.headers.push_back({"Cache-Control", "no-cache"});
  auto& p = out.pieces;
  p.push_back(SseEvent("message_start",
                       {{"type", "message_start"},
                        {"message",
                         {{"id", id},
                          {"type", "message"},
                          {"role", "assistant"},
                          {"content", Json::array()},
                          {"model", ctx.model},
                          {"stop_reason", nullptr},
                          {"stop_sequence", nullptr},
                          {"usage", {{"input_tokens", input}, {"output_tokens", 1}}}}}}));
  p.push_back(SseEvent("ping", {{"type", "ping"}}));
  int index = 0;
  auto delta = [&](const Json& d) {
    p.push_back(SseEvent("content_block_delta", {{"type", "content_block_delta"}, {"index", index}, {"delta", d}}));
  };
  auto stop_block = [&] {
    p.push_back(SseEvent("content_block_stop", {{"type", "content_block_stop"}, {"index", index}}));
    ++index;
  };
  if (!turn.thinking.empty()) {
    p.push_back(SseEvent("content_block_start",
                         {{"type", "content_block_start"},
                          {"index", index},
                          {"content_block", {{"type", "thinking"}, {"thinking", ""}, {"signature", ""}}}}));
    for (const auto& piece : SplitText(turn.thinking, 12)) delta({{"type", "thinking_delta"}, {"thinking", piece}});
    delta({{"type", "signature_delta"}, {"signature", turn.signature}});
    stop_block();
  }
  if (!turn.text.empty()) {
    p.push_back(SseEvent("content_block_start", {{"type", "content_block_start"},
                                                 {"index", index},
                                                 {"content_block", {{"type", "text"}, {"text", ""}}}}));
    for (const auto& piece : SplitText(turn.text, 12)) delta({{"type", "text_delta"}, {"text", piece}});
    stop_block();
  }
  for (size_t i = 0; i < turn.tool_calls.size(); ++i) {
    const auto& c = turn.tool_calls[i];
    p.push_back(SseEvent("content_block_start",
                         {{"type", "content_block_start"},
                          {"index", index},
                          {"content_block",
                           {{"type", "tool_use"}, {"id", ToolId(c, ctx, i)}, {"name", c.name}, {"input", Json::object()}}}}));
    delta({{"type", "input_json_delta"}, {"partial_json", ""}});
    for (const auto& frag : SplitArguments(c.arguments, 4)) delta({{"type", "input_json_delta"}, {"partial_json", frag}});
    stop_block();
  }
  if (!turn.stream_error.empty()) {
    p.push_back(SseEvent("error", {{"type", "error"},
                                   {"error", {{"type", turn.stream_error_type}, {"message", turn.stream_error}}}}));
    return out;
  }
  p.push_back(SseEvent("message_delta", {{"type", "message_delta"},
                                         {"delta", {{"stop_reason", stop}, {"stop_sequence", nullptr}}},
                                         {"usage", {{"output_tokens", output}}}}));
  p.push_back(SseEvent("message_stop", {{"type", "message_stop"}}));
  return out;
}

}  // namespace sepp::fake
