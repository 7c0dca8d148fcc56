// OpenAI Chat Completions, POST /v1/chat/completions.
//
// Streaming: "data: <chunk>" lines, then "data: [DONE]". Each chunk is
//   {id, object:"chat.completion.chunk", created, model, system_fingerprint,
//    choices: [{index: 0, delta: {...}, logprobs: null, finish_reason}]}
// deltas in order: {role:"assistant", content:""}; {reasoning_content} for
// thinking (the DeepSeek/vLLM convention; OpenAI itself sends none);
// {content} pieces; per tool call i: {tool_calls: [{index: i, id, type:
// "function", function: {name, arguments: ""}}]} then {tool_calls: [{index:
// i, function: {arguments: fragment}}]}...; finally an empty delta with
// finish_reason (stop | tool_calls | length). With stream_options.
// include_usage every chunk carries "usage": null and one more chunk with
// "choices": [] carries the usage. A mid-stream error is a
// data: {"error": {message, type, code}} line and the stream ends without
// [DONE].
// Not streaming: {id, object:"chat.completion", created, model, choices:
// [{index, message: {role, content, tool_calls?}, finish_reason}], usage}.
// HTTP errors: {error: {message, type, param: null, code}}.
#include "fake_script.h"

namespace sepp::fake {
namespace {

constexpr long kCreated = 1700000000;

std::string FinishReason(const std::string& stop) {
  if (stop == "end_turn" || stop == "stop_sequence") return "stop";
  if (stop == "tool_use") return "tool_calls";
  if (stop == "max_tokens") return "length";
  return stop;
}

}  // namespace

Json OpenAiErrorBody(const FakeHttpError& e) {
  std::string type = e.type;
  std::string code;
  if (type.empty()) {
    type = e.status == 429 ? "rate_limit_exceeded"
           : e.status == 401 ? "invalid_request_error"
           : e.status >= 500 ? "server_error"
                             : "invalid_request_error";
  }
  code = e.status == 429 ? "rate_limit_exceeded" : e.status == 401 ? "invalid_api_key" : "";
  return {{"error", {{"message", e.message}, {"type", type}, {"param", nullptr}, {"code", code.empty() ? Json(nullptr) : Json(code)}}}};
}

Rendered OpenAiErrorResponse(const FakeHttpError& e) {
  Rendered out;
  out.status = e.status;
  out.headers.push_back({"Content-Type", "application/json"});
  if (e.retry_after >= 0) out.headers.push_back({"retry-after", std::to_string(static_cast<long>(e.retry_after))});
  out.pieces.push_back(DumpJson(OpenAiErrorBody(e)));
  return out;
}

Rendered RenderOpenAiChat(const FakeTurn& turn, const RenderContext& ctx) {
  if (turn.error) return OpenAiErrorResponse(*turn.error);
  Rendered out;
  std::string id = "chatcmpl-fake-" + std::to_string(ctx.index);
  long input = InputTokens(turn, ctx), output = OutputTokens(turn);
  std::string finish = FinishReason(StopReason(turn));
  Json usage = {{"prompt_tokens", input}, {"completion_tokens", output}, {"total_tokens", input + output}};
  auto call_id = [&](const FakeToolCall& c, size_t i) {
    return c.id.empty() ? "call_fake_" + std::to_string(ctx.index) + "_" + std::to_string(i) : c.id;
  };

  if (!ctx.stream) {
    out.headers.push_back({"Content-Type", "application/json"});
    Json message = {{"role", "assistant"}, {"content", turn.text.empty() ? Json(nullptr) : Json(turn.text)}};
    if (!turn.thinking.empty()) message["reasoning_content"] = turn.thinking;
    if (!turn.tool_calls.empty()) {
      Json calls = Json::array();
      for (size_t i = 0; i < turn.tool_calls.size(); ++i) {
        const auto& c = turn.tool_calls[i];
        calls.push_back({{"id", call_id(c, i)}, {"type", "function"}, {"function", {{"name", c.name}, {"arguments", c.arguments}}}});
      }
      message["tool_calls"] = calls;
    }
    Json body = {{"id", id},
                 {"object", "chat.completion"},
                 {"created", kCreated},
                 {"model", ctx.model},
                 {"choices", Json::array({{{"index", 0}, {"message", message}, {"logprobs", nullptr}, {"finish_reason", finish}}})},
                 {"usage", usage}};
    out.pieces.push_back(DumpJson(body));
    return out;
  }

  out.stream = true;
  out.headers.push_back({"Content-Type", "text/event-stream"});
  bool include_usage = ctx.body.is_object() && ctx.body.contains("stream_options") &&
                       ctx.body["stream_options"].is_object() &&
                       ctx.body["stream_options"].value("include_usage", false);
  auto chunk = [&](const Json& delta, const Json& finish_reason) {
    Json c = {{"id", id},
              {"object", "chat.completion.chunk"},
              {"created", kCreated},
              {"model", ctx.model},
              {"system_fingerprint", "fp_fake"},
              {"choices", Json::array({{{"index", 0}, {"delta", delta}, {"logprobs", nullptr}, {"finish_reason", finish_reason}}})}};
    if (include_usage) c["usage"] = nullptr;
    out.pieces.push_back(SseData(DumpJson(c)));
  };
  chunk({{"role", "assistant"}, {"content", ""}}, nullptr);
  for (const auto& piece : SplitText(turn.thinking, 12)) chunk({{"reasoning_content", piece}}, nullptr);
  for (const auto& piece : SplitText(turn.text, 12)) chunk({{"content", piece}}, nullptr);
  for (size_t i = 0; i < turn.tool_calls.size(); ++i) {
    const auto& c = turn.tool_calls[i];
    chunk({{"tool_calls", Json::array({{{"index", i},
                                        {"id", call_id(c, i)},
                                        {"type", "function"},
                                        {"function", {{"name", c.name}, {"arguments", ""}}}}})}},
          nullptr);
    for (const auto& frag : SplitArguments(c.arguments, 4)) {
      chunk({{"tool_calls", Json::array({{{"index", i}, {"function", {{"arguments", frag}}}}})}}, nullptr);
    }
  }
  if (!turn.stream_error.empty()) {
    FakeHttpError e;
    e.status = 500;
    e.message = turn.stream_error;
    e.type = turn.stream_error_type == "overloaded_error" ? "server_error" : turn.stream_error_type;
    out.pieces.push_back(SseData(DumpJson(OpenAiErrorBody(e))));
    return out;
  }
  chunk(Json::object(), finish);
  if (include_usage) {
    Json c = {{"id", id},
              {"object", "chat.completion.chunk"},
              {"created", kCreated},
              {"model", ctx.model},
              {"system_fingerprint", "fp_fake"},
              {"choices", Json::array()},
              {"usage", usage}};
    out.pieces.push_back(SseData(DumpJson(c)));
  }
  out.pieces.push_back(SseData("[DONE]"));
  return out;
}

}  // namespace sepp::fake
