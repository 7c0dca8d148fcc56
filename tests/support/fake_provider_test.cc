// The fake provider is infrastructure every other test relies on: each API
// in each mode must render events a real client would accept.
#include "fake_provider.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <thread>

#include <gtest/gtest.h>

#include "base/file.h"
#include "net/http_client.h"
#include "net/sse.h"

namespace sepp::fake {
namespace {

struct Reply {
  int status = 0;
  net::Headers headers;
  std::string body;
  std::vector<net::SseEvent> events;
  std::vector<Json> data;  // parsed event data (non-JSON data such as [DONE] is skipped)
  bool done_marker = false;
  Status transport;
  std::string Header(std::string_view n) const {
    net::HttpResponseHead h;
    h.headers = headers;
    return h.Header(n);
  }
};

Reply Post(const FakeProvider& fp, const std::string& path, const Json& body,
           net::Headers headers = {{"Content-Type", "application/json"}}) {
  net::HttpRequest req;
  req.url = fp.base_url() + path;
  req.headers = std::move(headers);
  req.body = DumpJson(body);
  req.read_timeout_s = 10;
  Reply r;
  net::SseParser parser([&](const net::SseEvent& e) {
    r.events.push_back(e);
    if (e.data == "[DONE]") {
      r.done_marker = true;
      return;
    }
    auto j = ParseJson(e.data);
    if (j.ok()) r.data.push_back(*j);
  });
  net::HttpHandlers h;
  h.on_head = [&](const net::HttpResponseHead& head) {
    r.status = head.status;
    r.headers = head.headers;
  };
  h.on_body = [&](std::string_view piece) {
    r.body.append(piece);
    parser.Feed(piece);
    return true;
  };
  r.transport = net::HttpSend(req, h, nullptr);
  parser.Finish();
  return r;
}

Json Script(const Json& responses) { return {{"responses", responses}}; }

const Json kToolArgs = {{"command", "ls -la /tmp"}, {"timeout", 30}, {"note", "häßlich ✓"}};

Json FullTurn() {
  return {{"text", "Hello there, this is a longer answer with ünïcödé."},
          {"thinking", "Let me think about this carefully."},
          {"tool_calls", Json::array({{{"name", "bash"}, {"arguments", kToolArgs}}, {{"id", "my_id"}, {"name", "read"}, {"arguments", {{"path", "a.txt"}}}}})},
          {"usage", {{"input", 10}, {"output", 5}}}};
}

TEST(FakeProvider, AnthropicStreamingRendersAValidEventSequence) {
  FakeProvider fp(Script(Json::array({FullTurn()})));
  ASSERT_TRUE(fp.Start().ok());
  auto r = Post(fp, "/v1/messages", {{"model", "claude-x"}, {"stream", true}, {"messages", Json::array()}},
                {{"x-api-key", "sk-ant-secret-value"}, {"anthropic-version", "2023-06-01"}});
  ASSERT_TRUE(r.transport.ok()) << r.transport.error().message;
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.Header("content-type"), "text/event-stream");
  ASSERT_GE(r.events.size(), 10u);
  // Every event's SSE name equals its JSON type.
  for (size_t i = 0; i < r.events.size(); ++i) EXPECT_EQ(r.events[i].event, r.data[i]["type"]) << i;
  EXPECT_EQ(r.data.front()["type"], "message_start");
  EXPECT_EQ(r.data.front()["message"]["model"], "claude-x");
  EXPECT_EQ(r.data.front()["message"]["usage"]["input_tokens"], 10);
  EXPECT_EQ(r.data.back()["type"], "message_stop");
  const Json& md = r.data[r.data.size() - 2];
  EXPECT_EQ(md["type"], "message_delta");
  EXPECT_EQ(md["delta"]["stop_reason"], "tool_use");
  EXPECT_EQ(md["usage"]["output_tokens"], 5);

  // Reassemble the blocks as a client would.
  std::map<int, Json> blocks;
  std::map<int, std::string> text, thinking, signature, json;
  int open = -1;
  for (const auto& d : r.data) {
    if (d["type"] == "content_block_start") {
      EXPECT_EQ(open, -1) << "blocks do not overlap";
      open = d["index"];
      blocks[open] = d["content_block"];
    } else if (d["type"] == "content_block_delta") {
      int i = d["index"];
      EXPECT_EQ(i, open);
      const Json& delta = d["delta"];
      if (delta["type"] == "text_delta") text[i] += delta["text"].get<std::string>();
      if (delta["type"] == "thinking_delta") thinking[i] += delta["thinking"].get<std::string>();
      if (delta["type"] == "signature_delta") signature[i] += delta["signature"].get<std::string>();
      if (delta["type"] == "input_json_delta") json[i] += delta["partial_json"].get<std::string>();
    } else if (d["type"] == "content_block_stop") {
      EXPECT_EQ(d["index"], open);
      open = -1;
    }
  }
  ASSERT_EQ(blocks.size(), 4u);
  EXPECT_EQ(blocks[0]["type"], "thinking");
  EXPECT_EQ(thinking[0], "Let me think about this carefully.");
  EXPECT_FALSE(signature[0].empty());
  EXPECT_EQ(blocks[1]["type"], "text");
  EXPECT_EQ(text[1], "Hello there, this is a longer answer with ünïcödé.");
  EXPECT_EQ(blocks[2]["type"], "tool_use");
  EXPECT_EQ(blocks[2]["name"], "bash");
  EXPECT_EQ(ParseJson(json[2]).value(), kToolArgs);
  EXPECT_EQ(blocks[3]["id"], "my_id");
  int fragments = 0;
  for (const auto& d : r.data) fragments += d["type"] == "content_block_delta" && d["index"] == 2;
  EXPECT_GE(fragments, 4) << "tool input arrives in several fragments";
  bool saw_ping = false;
  for (const auto& e : r.events) saw_ping |= e.event == "ping";
  EXPECT_TRUE(saw_ping);

  auto reqs = fp.requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].api, "anthropic");
  EXPECT_EQ(reqs[0].headers["x-api-key"], kRedacted);
  EXPECT_EQ(reqs[0].headers["anthropic-version"], "2023-06-01");
  EXPECT_EQ(reqs[0].body["model"], "claude-x");
  EXPECT_EQ(DumpJson(fp.RequestsJson()).find("sk-ant-secret-value"), std::string::npos);
}

TEST(FakeProvider, AnthropicNonStreaming) {
  FakeProvider fp(Script(Json::array({FullTurn(), {{"text", "plain"}}})));
  ASSERT_TRUE(fp.Start().ok());
  auto r = Post(fp, "/v1/messages", {{"model", "m"}, {"messages", Json::array()}});
  ASSERT_EQ(r.status, 200);
  auto j = ParseJson(r.body).value();
  EXPECT_EQ(j["type"], "message");
  ASSERT_EQ(j["content"].size(), 4u);
  EXPECT_EQ(j["content"][0]["type"], "thinking");
  EXPECT_EQ(j["content"][2]["input"], kToolArgs);
  EXPECT_EQ(j["stop_reason"], "tool_use");
  EXPECT_EQ(j["usage"]["input_tokens"], 10);
  auto r2 = Post(fp, "/v1/messages", {{"model", "m"}, {"messages", Json::array()}});
  auto j2 = ParseJson(r2.body).value();
  EXPECT_EQ(j2["stop_reason"], "end_turn");
  EXPECT_GT(j2["usage"]["input_tokens"].get<int>(), 0) << "counted when not scripted";
  EXPECT_EQ(j2["usage"]["output_tokens"], 2) << "ceil(5 bytes / 4)";
}

TEST(FakeProvider, OpenAiChatStreamingWithUsage) {
  FakeProvider fp(Script(Json::array({FullTurn()})));
  ASSERT_TRUE(fp.Start().ok());
  auto r = Post(fp, "/v1/chat/completions",
                {{"model", "gpt-x"}, {"stream", true}, {"stream_options", {{"include_usage", true}}}, {"messages", Json::array()}},
                {{"Authorization", "Bearer sk-secret-123456"}});
  ASSERT_TRUE(r.transport.ok());
  ASSERT_EQ(r.status, 200);
  EXPECT_TRUE(r.done_marker);
  EXPECT_EQ(r.events.back().data, "[DONE]");
  std::string content;
  std::map<int, std::string> args, names, ids;
  std::string finish;
  Json usage;
  for (const auto& c : r.data) {
    EXPECT_EQ(c["object"], "chat.completion.chunk");
    EXPECT_TRUE(c.contains("usage"));
    if (c["choices"].empty()) {
      usage = c["usage"];
      continue;
    }
    const Json& ch = c["choices"][0];
    const Json& d = ch["delta"];
    if (d.contains("content") && d["content"].is_string()) content += d["content"].get<std::string>();
    if (d.contains("tool_calls")) {
      for (const auto& tc : d["tool_calls"]) {
        int i = tc["index"];
        if (tc.contains("id")) ids[i] = tc["id"];
        if (tc["function"].contains("name")) names[i] = tc["function"]["name"];
        args[i] += tc["function"]["arguments"].get<std::string>();
      }
    }
    if (!ch["finish_reason"].is_null()) finish = ch["finish_reason"];
  }
  EXPECT_EQ(content, "Hello there, this is a longer answer with ünïcödé.");
  EXPECT_EQ(names[0], "bash");
  EXPECT_EQ(ParseJson(args[0]).value(), kToolArgs);
  EXPECT_EQ(ids[1], "my_id");
  EXPECT_EQ(finish, "tool_calls");
  EXPECT_EQ(usage["prompt_tokens"], 10);
  EXPECT_EQ(usage["completion_tokens"], 5);
  EXPECT_TRUE(r.data.back()["choices"].empty()) << "the usage chunk comes last";
  EXPECT_EQ(fp.requests()[0].headers["authorization"], kRedacted);
}

TEST(FakeProvider, OpenAiChatStreamingWithoutUsageAndNonStreaming) {
  FakeProvider fp(Script(Json::array({{{"text", "hi"}}, FullTurn()})));
  ASSERT_TRUE(fp.Start().ok());
  auto r = Post(fp, "/v1/chat/completions", {{"model", "m"}, {"stream", true}});
  for (const auto& c : r.data) {
    EXPECT_FALSE(c.contains("usage"));
    EXPECT_FALSE(c["choices"].empty());
  }
  EXPECT_EQ(r.data.back()["choices"][0]["finish_reason"], "stop");
  auto r2 = Post(fp, "/v1/chat/completions", {{"model", "m"}});
  auto j = ParseJson(r2.body).value();
  EXPECT_EQ(j["object"], "chat.completion");
  const Json& msg = j["choices"][0]["message"];
  EXPECT_EQ(msg["content"], "Hello there, this is a longer answer with ünïcödé.");
  EXPECT_EQ(ParseJson(msg["tool_calls"][0]["function"]["arguments"].get<std::string>()).value(), kToolArgs);
  EXPECT_EQ(j["choices"][0]["finish_reason"], "tool_calls");
  EXPECT_EQ(j["usage"]["total_tokens"], 15);
}

TEST(FakeProvider, OpenAiResponsesStreaming) {
  FakeProvider fp(Script(Json::array({FullTurn()})));
  ASSERT_TRUE(fp.Start().ok());
  auto r = Post(fp, "/v1/responses", {{"model", "gpt-r"}, {"stream", true}, {"input", "hi"}});
  ASSERT_TRUE(r.transport.ok());
  ASSERT_EQ(r.status, 200);
  int seq = 0;
  std::string text;
  std::map<std::string, std::string> args;
  std::map<std::string, Json> added;
  for (size_t i = 0; i < r.data.size(); ++i) {
    const Json& d = r.data[i];
    EXPECT_EQ(r.events[i].event, d["type"]);
    EXPECT_EQ(d["sequence_number"], seq++);
    if (d["type"] == "response.output_item.added") added[d["item"]["id"]] = d["item"];
    if (d["type"] == "response.output_text.delta") text += d["delta"].get<std::string>();
    if (d["type"] == "response.function_call_arguments.delta") args[d["item_id"]] += d["delta"].get<std::string>();
    if (d["type"] == "response.function_call_arguments.done") EXPECT_EQ(args[d["item_id"]], d["arguments"]);
  }
  EXPECT_EQ(r.data.front()["type"], "response.created");
  EXPECT_EQ(r.data.back()["type"], "response.completed");
  EXPECT_EQ(text, "Hello there, this is a longer answer with ünïcödé.");
  ASSERT_EQ(args.size(), 2u);
  EXPECT_EQ(ParseJson(args["fc_fake_0_0"]).value(), kToolArgs);
  EXPECT_EQ(added["fc_fake_0_1"]["call_id"], "my_id");
  const Json& done = r.data.back()["response"];
  EXPECT_EQ(done["status"], "completed");
  EXPECT_EQ(done["usage"]["input_tokens"], 10);
  EXPECT_EQ(done["output"].size(), 4u);
}

TEST(FakeProvider, OpenAiResponsesNonStreamingAndMaxTokens) {
  FakeProvider fp(Script(Json::array({{{"text", "cut"}, {"stop_reason", "max_tokens"}}})));
  ASSERT_TRUE(fp.Start().ok());
  auto r = Post(fp, "/v1/responses", {{"model", "m"}, {"input", "x"}});
  auto j = ParseJson(r.body).value();
  EXPECT_EQ(j["object"], "response");
  EXPECT_EQ(j["status"], "incomplete");
  EXPECT_EQ(j["incomplete_details"]["reason"], "max_output_tokens");
  EXPECT_EQ(j["output"][0]["content"][0]["text"], "cut");
}

TEST(FakeProvider, HttpErrorWithRetryAfterInEachApi) {
  Json err = {{"error", {{"status", 429}, {"retry_after", 2}, {"message", "slow down"}}}};
  FakeProvider fp(Script(Json::array({err, err, err})));
  ASSERT_TRUE(fp.Start().ok());
  auto a = Post(fp, "/v1/messages", {{"stream", true}});
  EXPECT_EQ(a.status, 429);
  EXPECT_EQ(a.Header("retry-after"), "2");
  auto aj = ParseJson(a.body).value();
  EXPECT_EQ(aj["type"], "error");
  EXPECT_EQ(aj["error"]["type"], "rate_limit_error");
  EXPECT_EQ(aj["error"]["message"], "slow down");
  auto c = Post(fp, "/v1/chat/completions", {{"stream", true}});
  EXPECT_EQ(c.status, 429);
  EXPECT_EQ(c.Header("Retry-After"), "2");
  EXPECT_EQ(ParseJson(c.body).value()["error"]["message"], "slow down");
  auto p = Post(fp, "/v1/responses", {});
  EXPECT_EQ(p.status, 429);
}

TEST(FakeProvider, MidStreamErrorEvents) {
  Json t = {{"text", "partial answer"}, {"stream_error", "Overloaded"}};
  FakeProvider fp(Script(Json::array({t, t, t})));
  ASSERT_TRUE(fp.Start().ok());
  auto a = Post(fp, "/v1/messages", {{"stream", true}});
  ASSERT_TRUE(a.transport.ok());
  EXPECT_EQ(a.events.back().event, "error");
  EXPECT_EQ(a.data.back()["error"]["type"], "overloaded_error");
  for (const auto& d : a.data) EXPECT_NE(d["type"], "message_stop");
  auto c = Post(fp, "/v1/chat/completions", {{"stream", true}});
  EXPECT_FALSE(c.done_marker);
  EXPECT_EQ(c.data.back()["error"]["message"], "Overloaded");
  auto r = Post(fp, "/v1/responses", {{"stream", true}});
  EXPECT_EQ(r.data.back()["type"], "error");
}

TEST(FakeProvider, CutStreamsDropTheConnection) {
  Json t = {{"text", "a long answer that will be cut off somewhere in the middle"}, {"cut_after_bytes", 300}};
  Json small = {{"text", "short"}, {"cut_after_bytes", 50}};
  FakeProvider fp(Script(Json::array({t, small})));
  ASSERT_TRUE(fp.Start().ok());
  auto a = Post(fp, "/v1/messages", {{"stream", true}});
  ASSERT_FALSE(a.transport.ok());
  EXPECT_EQ(a.transport.error().kind, "io");
  EXPECT_EQ(a.body.size(), 300u);
  auto b = Post(fp, "/v1/messages", {});
  ASSERT_FALSE(b.transport.ok()) << "non-streaming answers are cut too";
}

TEST(FakeProvider, SlowStreamsAndInvalidArguments) {
  FakeProvider fp(Script(Json::array({{{"text", "slow text here"}, {"chunk_delay_ms", 5}},
                                      {{"tool_calls", Json::array({{{"name", "bash"}}})}, {"raw_arguments", "{bad json"}}})));
  ASSERT_TRUE(fp.Start().ok());
  auto a = Post(fp, "/v1/messages", {{"stream", true}});
  ASSERT_TRUE(a.transport.ok());
  EXPECT_EQ(a.data.back()["type"], "message_stop");
  auto b = Post(fp, "/v1/chat/completions", {{"stream", true}});
  std::string args;
  for (const auto& c : b.data) {
    if (!c["choices"].empty() && c["choices"][0]["delta"].contains("tool_calls")) {
      args += c["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"].get<std::string>();
    }
  }
  EXPECT_EQ(args, "{bad json");
}

TEST(FakeProvider, ExhaustedScriptAnswersAndRecords) {
  FakeProvider fp;
  ASSERT_TRUE(fp.Start().ok());
  auto r = Post(fp, "/v1/messages", {{"model", "m"}});
  auto j = ParseJson(r.body).value();
  EXPECT_EQ(j["content"][0]["text"], "(fake provider: script exhausted)");
  ASSERT_EQ(fp.requests().size(), 1u);
  EXPECT_EQ(fp.requests()[0].response_index, -1);
}

TEST(FakeProvider, ControlEndpoints) {
  FakeProvider fp(Script(Json::array({{{"text", "one"}}})));
  ASSERT_TRUE(fp.Start().ok());
  Post(fp, "/v1/messages", {{"n", 1}}, {{"x-api-key", "k"}});
  net::HttpRequest get;
  get.method = "GET";
  get.url = fp.base_url() + "/__requests";
  auto list = net::HttpFetch(get, nullptr);
  ASSERT_TRUE(list.ok());
  auto arr = ParseJson(list->body).value();
  ASSERT_EQ(arr.size(), 1u);
  EXPECT_EQ(arr[0]["path"], "/v1/messages");
  EXPECT_EQ(arr[0]["body"]["n"], 1);
  EXPECT_EQ(arr[0]["headers"]["x-api-key"], kRedacted);
  EXPECT_FALSE(arr[0]["headers"].contains("authorization")) << "absent stays absent";

  auto s = Post(fp, "/__script", Script(Json::array({{{"text", "two"}}})));
  EXPECT_EQ(s.status, 200);
  auto r = Post(fp, "/v1/messages", {});
  EXPECT_EQ(ParseJson(r.body).value()["content"][0]["text"], "two");
  EXPECT_EQ(Post(fp, "/__reset", {}).status, 200);
  EXPECT_TRUE(fp.requests().empty());
  EXPECT_EQ(Post(fp, "/nope", {}).status, 404);
  EXPECT_EQ(Post(fp, "/__script", {{"x", 1}}).status, 400);
}

TEST(FakeProvider, ExecutablePrintsItsPortAndServes) {
  std::string script_path = ::testing::TempDir() + "/fake_script.json";
  ASSERT_TRUE(WriteFileAtomic(script_path, R"({"responses":[{"text":"from the binary"}]})").ok());
  int out[2];
  ASSERT_EQ(pipe(out), 0);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(out[1], 1);
    close(out[0]);
    execl(SEPP_BINARY_DIR "/fake-provider", "fake-provider", "--script", script_path.c_str(), "--port", "0",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  close(out[1]);
  FILE* f = fdopen(out[0], "r");
  char line[256] = {};
  ASSERT_NE(fgets(line, sizeof line, f), nullptr);
  std::string first = line;
  ASSERT_EQ(first.rfind("listening on http://127.0.0.1:", 0), 0u) << first;
  std::string base = first.substr(13, first.size() - 14);
  net::HttpRequest req;
  req.url = base + "/v1/messages";
  req.body = "{}";
  auto r = net::HttpFetch(req, nullptr);
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  fclose(f);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(ParseJson(r->body).value()["content"][0]["text"], "from the binary");
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

}  // namespace
}  // namespace sepp::fake
