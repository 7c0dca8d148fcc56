// Mutated and random streams through every decoder and parser: whatever
// comes back must be a value or an Error, never a crash or an exception.
#include <gtest/gtest.h>

#include <random>

#include "llm/anthropic.h"
#include "llm/openai_chat.h"
#include "llm/openai_responses.h"
#include "llm/stream_util.h"

namespace sepp::llm {
namespace {

using testing::Decode;
using testing::Sse;

const std::string kSeeds[] = {
    Sse({{"message_start", R"({"type":"message_start","message":{"model":"m","usage":{"input_tokens":3}}})"},
         {"content_block_start", R"({"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}})"},
         {"content_block_delta", R"({"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"t"}})"},
         {"content_block_start", R"({"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"a","name":"b","input":{}}})"},
         {"content_block_delta", R"({"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"x\":1}"}})"},
         {"content_block_stop", R"({"type":"content_block_stop","index":1})"},
         {"message_delta", R"({"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":5}})"},
         {"message_stop", R"({"type":"message_stop"})"}}),
    Sse({{"", R"({"choices":[{"index":0,"delta":{"content":"hi","tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":"{\"a\""}}]}}]})"},
         {"", R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":":2}"}}]},"finish_reason":"tool_calls"}]})"},
         {"", R"({"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4}})"},
         {"", "[DONE]"}}),
    Sse({{"", R"({"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","call_id":"c","name":"f","arguments":""}})"},
         {"", R"({"type":"response.function_call_arguments.delta","output_index":0,"delta":"{}"})"},
         {"", R"({"type":"response.output_item.done","output_index":0,"item":{"type":"function_call","call_id":"c","name":"f","arguments":"{}"}})"},
         {"", R"({"type":"response.completed","response":{"usage":{"input_tokens":1,"output_tokens":2}}})"}}),
};

std::unique_ptr<wire::StreamDecoder> NewDecoder(int api) {
  Endpoint ep;
  ep.host = "h";
  switch (api) {
    case 0: return anthropic::NewStreamDecoder(nullptr, ep);
    case 1: return openai_chat::NewStreamDecoder(nullptr, ep);
    default: return openai_responses::NewStreamDecoder(nullptr, ep);
  }
}

std::string Mutate(std::string s, std::mt19937& rng) {
  const char kAlphabet[] = "{}[]\":,0123456789abcdefntrue\\ \n-.";
  int edits = 1 + rng() % 6;
  for (int i = 0; i < edits && !s.empty(); ++i) {
    size_t pos = rng() % s.size();
    switch (rng() % 4) {
      case 0: s[pos] = kAlphabet[rng() % (sizeof(kAlphabet) - 1)]; break;
      case 1: s.erase(pos, 1 + rng() % 8); break;
      case 2: s.insert(pos, 1, kAlphabet[rng() % (sizeof(kAlphabet) - 1)]); break;
      case 3: s[pos] = static_cast<char>(rng()); break;
    }
  }
  return s;
}

// What every decode or parse must give: a message whose tool calls have
// object arguments or say why not, or an error with a kind and a message.
void CheckOutcome(const Result<Message>& m, const std::string& input) {
  if (m.ok()) {
    for (const auto* c : m->ToolCalls())
      EXPECT_TRUE(c->arguments.is_object() || !c->arguments_error.empty()) << input;
  } else {
    EXPECT_FALSE(m.error().kind.empty()) << input;
    EXPECT_FALSE(m.error().message.empty()) << input;
  }
}

TEST(Fuzz, MutatedStreamsNeverCrash) {
  std::mt19937 rng(12345);
  for (int api = 0; api < 3; ++api) {
    // The seed of this API decodes whole and cut anywhere: the mutations
    // below start from input that reaches deep into the decoder.
    auto clean = Decode(*NewDecoder(api), kSeeds[api], testing::RandomCuts(kSeeds[api].size(), 5, 1));
    ASSERT_TRUE(clean.ok()) << api << ": " << clean.error().message;
    ASSERT_FALSE(clean->ToolCalls().empty()) << api;
    // Each seed stream through each decoder: wrong-API input is hostile too.
    int decoded = 0;
    for (const auto& seed : kSeeds) {
      for (int i = 0; i < 1500; ++i) {
        auto d = NewDecoder(api);
        std::string input = Mutate(seed, rng);
        auto m = Decode(*d, input, testing::RandomCuts(input.size(), 5, rng()));
        CheckOutcome(m, input);
        decoded += m.ok();
      }
    }
    // Some mutants still decode (a changed letter in a string): both paths ran.
    EXPECT_GT(decoded, 0) << api;
    EXPECT_LT(decoded, 3 * 1500) << api;
  }
}

TEST(Fuzz, MutatedBodiesNeverCrash) {
  const std::string bodies[] = {
      R"({"type":"message","content":[{"type":"text","text":"a"},{"type":"tool_use","id":"i","name":"n","input":{}}],"stop_reason":"tool_use","usage":{"input_tokens":1}})",
      R"({"choices":[{"message":{"content":"a","tool_calls":[{"id":"i","function":{"name":"n","arguments":"{}"}}]},"finish_reason":"stop"}],"usage":{"prompt_tokens":1}})",
      R"({"status":"completed","output":[{"type":"message","content":[{"type":"output_text","text":"a"}]},{"type":"function_call","call_id":"c","name":"n","arguments":"{}"}]})",
  };
  Endpoint ep;
  using Parser = Result<Message> (*)(std::string_view, const Endpoint&);
  const Parser parsers[] = {anthropic::ParseResponse, openai_chat::ParseResponse,
                            openai_responses::ParseResponse};
  std::mt19937 rng(777);
  for (int api = 0; api < 3; ++api) {
    // Each body parses with its own API's parser, tool call included.
    auto clean = parsers[api](bodies[api], ep);
    ASSERT_TRUE(clean.ok()) << api << ": " << clean.error().message;
    EXPECT_EQ(clean->ToolCalls().size(), 1u) << api;
  }
  int parsed[3] = {0, 0, 0};
  for (const auto& body : bodies) {
    for (int i = 0; i < 3000; ++i) {
      std::string input = Mutate(body, rng);
      for (int api = 0; api < 3; ++api) {
        auto m = parsers[api](input, ep);
        CheckOutcome(m, input);
        parsed[api] += m.ok();
      }
    }
  }
  for (int api = 0; api < 3; ++api) {
    EXPECT_GT(parsed[api], 0) << api << ": no mutant parsed, so only the error path ran";
    EXPECT_LT(parsed[api], 3 * 3000) << api << ": every mutant parsed";
  }
}

}  // namespace
}  // namespace sepp::llm
