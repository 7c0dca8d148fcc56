// OpenAI Responses API, POST /v1/responses.
//
// Streaming: "event: <type>" + "data: <json>", every payload with "type" and
// an increasing "sequence_number":
//   response.created {response: {id, object:"response", status:"in_progress", output: []...}}
//   response.in_progress
//   reasoning (thinking) item: response.output_item.added {output_index, item:
//     {type:"reasoning", id, summary: []}}, response.reasoning_summary_part.added,
//     response.reasoning_summary_text.delta {item_id, output_index,
//     summary_index, delta}..., .done, response.reasoning_summary_part.done,
//     response.output_item.done
//   message item: response.output_item.added {item: {type:"message", id,
//     status:"in_progress", role:"assistant", content: []}},
//     response.content_part.added {part: {type:"output_text", text:""}},
//     response.output_text.delta {item_id, output_index, content_index, delta}...,
//     response.output_text.done {text}, response.content_part.done,
//     response.output_item.done {item with the whole text}
//   per tool call: response.output_item.added {item: {type:"function_call", id,
//     call_id, name, arguments:"", status:"in_progress"}},
//     response.function_call_arguments.delta {item_id, output_index, delta}...,
//     response.function_call_arguments.done {item_id, output_index, arguments},
//     response.output_item.done {item, status:"completed"}
//   response.completed {response: {..., status:"completed", output, usage:
//     {input_tokens, output_tokens, total_tokens, ...details}}}
//   (max_tokens gives response.incomplete with incomplete_details.reason
//   "max_output_tokens"; a stream_error gives an "error" event
//   {type:"error", code, message, param} and the stream ends.)
// Not streaming: the final response object.
#include "fake_script.h"

namespace sepp::fake {

Rendered RenderOpenAiResponses(const FakeTurn& turn, const RenderContext& ctx) {
  if (turn.error) return OpenAiErrorResponse(*turn.error);
  Rendered out;
  std::string n = std::to_string(ctx.index);
  std::string id = "resp_fake_" + n;
  long input = InputTokens(turn, ctx), output = OutputTokens(turn);
  std::string stop = StopReason(turn);
  bool incomplete = stop == "max_tokens";

  // The finished output items, used in output_item.done and the final response.
  Json items = Json::array();
  std::string reasoning_id = "rs_fake_" + n, message_id = "msg_fake_" + n;
  if (!turn.thinking.empty()) {
    items.push_back({{"type", "reasoning"},
                     {"id", reasoning_id},
                     {"summary", Json::array({{{"type", "summary_text"}, {"text", turn.thinking}}})}});
  }
  if (!turn.text.empty()) {
    items.push_back({{"type", "message"},
                     {"id", message_id},
                     {"status", "completed"},
                     {"role", "assistant"},
                     {"content", Json::array({{{"type", "output_text"}, {"text", turn.text}, {"annotations", Json::array()}}})}});
  }
  for (size_t i = 0; i < turn.tool_calls.size(); ++i) {
    const auto& c = turn.tool_calls[i];
    items.push_back({{"type", "function_call"},
                     {"id", "fc_fake_" + n + "_" + std::to_string(i)},
                     {"call_id", c.id.empty() ? "call_fake_" + n + "_" + std::to_string(i) : c.id},
                     {"name", c.name},
                     {"arguments", c.arguments},
                     {"status", "completed"}});
  }
  auto response = [&](const std::string& status, const Json& output_items, bool with_usage) {
    Json r = {{"id", id},
              {"object", "response"},
              {"created_at", 1700000000},
              {"status", status},
              {"model", ctx.model},
              {"output", output_items},
              {"error", nullptr},
              {"incomplete_details", nullptr},
              {"usage", nullptr}};
    if (status == "incomplete") r["incomplete_details"] = {{"reason", "max_output_tokens"}};
    if (with_usage) {
      r["usage"] = {{"input_tokens", input},
                    {"input_tokens_details", {{"cached_tokens", 0}}},
                    {"output_tokens", output},
                    {"output_tokens_details", {{"reasoning_tokens", turn.thinking.empty() ? 0 : CountTokens(turn.thinking.size())}}},
                    {"total_tokens", input + output}};
    }
    return r;
  };
  std::string final_status = incomplete ? "incomplete" : "completed";

  if (!ctx.stream) {
    out.headers.push_back({"Content-Type", "application/json"});
    out.pieces.push_back(DumpJson(response(final_status, items, true)));
    return out;
  }

  out.stream = true;
  out.headers.push_back({"Content-Type", "text/event-stream"});
  int seq = 0;
  auto event = [&](const std::string& type, Json data) {
    data["type"] = type;
    data["sequence_number"] = seq++;
    out.pieces.push_back(SseEvent(type, data));
  };
  event("response.created", {{"response", response("in_progress", Json::array(), false)}});
  event("response.in_progress", {{"response", response("in_progress", Json::array(), false)}});
  int oi = 0;
  size_t item = 0;
  if (!turn.thinking.empty()) {
    event("response.output_item.added",
          {{"output_index", oi}, {"item", {{"type", "reasoning"}, {"id", reasoning_id}, {"summary", Json::array()}}}});
    Json part = {{"type", "summary_text"}, {"text", ""}};
    event("response.reasoning_summary_part.added",
          {{"item_id", reasoning_id}, {"output_index", oi}, {"summary_index", 0}, {"part", part}});
    for (const auto& piece : SplitText(turn.thinking, 12)) {
      event("response.reasoning_summary_text.delta",
            {{"item_id", reasoning_id}, {"output_index", oi}, {"summary_index", 0}, {"delta", piece}});
    }
    event("response.reasoning_summary_text.done",
          {{"item_id", reasoning_id}, {"output_index", oi}, {"summary_index", 0}, {"text", turn.thinking}});
    part["text"] = turn.thinking;
    event("response.reasoning_summary_part.done",
          {{"item_id", reasoning_id}, {"output_index", oi}, {"summary_index", 0}, {"part", part}});
    event("response.output_item.done", {{"output_index", oi}, {"item", items[item++]}});
    ++oi;
  }
  if (!turn.text.empty()) {
    event("response.output_item.added",
          {{"output_index", oi},
           {"item", {{"type", "message"}, {"id", message_id}, {"status", "in_progress"}, {"role", "assistant"}, {"content", Json::array()}}}});
    Json part = {{"type", "output_text"}, {"text", ""}, {"annotations", Json::array()}};
    event("response.content_part.added", {{"item_id", message_id}, {"output_index", oi}, {"content_index", 0}, {"part", part}});
    for (const auto& piece : SplitText(turn.text, 12)) {
      event("response.output_text.delta",
            {{"item_id", message_id}, {"output_index", oi}, {"content_index", 0}, {"delta", piece}, {"logprobs", Json::array()}});
    }
    event("response.output_text.done", {{"item_id", message_id}, {"output_index", oi}, {"content_index", 0}, {"text", turn.text}});
    part["text"] = turn.text;
    event("response.content_part.done", {{"item_id", message_id}, {"output_index", oi}, {"content_index", 0}, {"part", part}});
    event("response.output_item.done", {{"output_index", oi}, {"item", items[item++]}});
    ++oi;
  }
  for (size_t i = 0; i < turn.tool_calls.size(); ++i, ++oi) {
    Json done_item = items[item++];
    Json added = done_item;
    added["arguments"] = "";
    added["status"] = "in_progress";
    std::string item_id = done_item["id"];
    event("response.output_item.added", {{"output_index", oi}, {"item", added}});
    for (const auto& frag : SplitArguments(turn.tool_calls[i].arguments, 4)) {
      event("response.function_call_arguments.delta", {{"item_id", item_id}, {"output_index", oi}, {"delta", frag}});
    }
    event("response.function_call_arguments.done",
          {{"item_id", item_id}, {"output_index", oi}, {"name", turn.tool_calls[i].name}, {"arguments", turn.tool_calls[i].arguments}});
    event("response.output_item.done", {{"output_index", oi}, {"item", done_item}});
  }
  if (!turn.stream_error.empty()) {
    event("error", {{"code", turn.stream_error_type == "overloaded_error" ? "server_error" : turn.stream_error_type},
                    {"message", turn.stream_error},
                    {"param", nullptr}});
    return out;
  }
  event(incomplete ? "response.incomplete" : "response.completed", {{"response", response(final_status, items, true)}});
  return out;
}

}  // namespace sepp::fake
