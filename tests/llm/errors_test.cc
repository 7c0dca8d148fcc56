#include <gtest/gtest.h>

#include "base/secrets.h"
#include "llm/errors.h"

namespace sepp::llm {
namespace {

Endpoint Anthropic() {
  Endpoint ep;
  ep.api = ApiKind::kAnthropic;
  ep.provider = "anthropic";
  ep.host = "api.anthropic.com";
  ep.model = "claude-x";
  ep.key_variable = "ANTHROPIC_API_KEY";
  ep.has_key = true;
  return ep;
}

Endpoint OpenAi() {
  Endpoint ep = Anthropic();
  ep.api = ApiKind::kOpenAiChat;
  ep.provider = "openai";
  ep.host = "api.openai.com";
  ep.model = "gpt-9";
  ep.key_variable = "OPENAI_API_KEY";
  return ep;
}

TEST(HttpErrors, AuthNeverShowsTheKey) {
  RegisterSecret("sk-proj-abcdefghijklmnop");
  auto f = ClassifyHttpError(Anthropic(), 401,
                             R"({"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}})");
  EXPECT_EQ(f.error.kind, "auth");
  EXPECT_FALSE(f.retryable);
  EXPECT_EQ(f.error.message,
            "the API key was rejected (401) by api.anthropic.com: check ANTHROPIC_API_KEY");
  f = ClassifyHttpError(OpenAi(), 401,
                        R"({"error":{"message":"Incorrect API key provided: sk-proj-abcdefghijklmnop","code":"invalid_api_key"}})");
  EXPECT_EQ(f.error.message, "the API key was rejected (401) by api.openai.com: check OPENAI_API_KEY");
  // Any provider text that echoes a registered key is redacted.
  f = ClassifyHttpError(OpenAi(), 400, R"({"error":{"message":"bad key sk-proj-abcdefghijklmnop"}})");
  EXPECT_EQ(f.error.message.find("sk-proj-abcdefghijklmnop"), std::string::npos) << f.error.message;
  Endpoint local = OpenAi();
  local.has_key = false;
  f = ClassifyHttpError(local, 401, "");
  EXPECT_NE(f.error.message.find("requires an API key"), std::string::npos);
}

TEST(HttpErrors, BadRequestNotFoundAndOverflow) {
  auto f = ClassifyHttpError(Anthropic(), 400,
                             R"({"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: must be positive"}})");
  EXPECT_EQ(f.error.kind, "bad_request");
  EXPECT_NE(f.error.message.find("max_tokens: must be positive"), std::string::npos);
  f = ClassifyHttpError(Anthropic(), 400,
                        R"({"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 204817 tokens > 200000 maximum"}})");
  EXPECT_EQ(f.error.kind, "context_overflow");
  f = ClassifyHttpError(OpenAi(), 400,
                        R"({"error":{"message":"This model's maximum context length is 128000 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}})");
  EXPECT_EQ(f.error.kind, "context_overflow");
  f = ClassifyHttpError(OpenAi(), 404,
                        R"({"error":{"message":"The model `gpt-9` does not exist or you do not have access to it.","code":"model_not_found"}})");
  EXPECT_EQ(f.error.kind, "not_found");
  EXPECT_NE(f.error.message.find("\"gpt-9\""), std::string::npos);
  f = ClassifyHttpError(Anthropic(), 404, R"({"type":"error","error":{"type":"not_found_error","message":"model: claude-x"}})");
  EXPECT_EQ(f.error.kind, "not_found");
  f = ClassifyHttpError(OpenAi(), 404, "404 page not found");
  EXPECT_NE(f.error.message.find("base URL"), std::string::npos);
}

TEST(HttpErrors, RetryableStatuses) {
  for (int status : {408, 429, 500, 502, 503, 504, 529}) {
    EXPECT_TRUE(ClassifyHttpError(Anthropic(), status, "").retryable) << status;
  }
  EXPECT_EQ(ClassifyHttpError(Anthropic(), 529, "").error.kind, "overloaded");
  EXPECT_EQ(ClassifyHttpError(Anthropic(), 429, "").error.kind, "rate_limit");
  EXPECT_FALSE(ClassifyHttpError(Anthropic(), 501 + 100, "").retryable);
  auto quota = ClassifyHttpError(OpenAi(), 429,
                                 R"({"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}})");
  EXPECT_FALSE(quota.retryable);
  for (int status : {400, 401, 403, 404, 413, 422}) {
    EXPECT_FALSE(ClassifyHttpError(Anthropic(), status, "").retryable) << status;
  }
}

TEST(HttpErrors, NetErrorsAndMessages) {
  auto f = ClassifyNetError(Anthropic(), Error::Make("cannot reach api.anthropic.com:443: refused", "connect"));
  EXPECT_EQ(f.error.kind, "unreachable");
  EXPECT_TRUE(f.retryable);
  EXPECT_TRUE(ClassifyNetError(Anthropic(), Error::Make("x", "io")).retryable);
  EXPECT_EQ(ClassifyNetError(Anthropic(), Error::Make("x", "timeout")).error.kind, "timeout");
  EXPECT_FALSE(ClassifyNetError(Anthropic(), Error::Make("x", "tls")).retryable);
  EXPECT_EQ(ClassifyNetError(Anthropic(), Error::Make("x", "aborted")).error.kind, "aborted");
  EXPECT_EQ(ProviderMessage("  line one\nline two  "), "line one line two");
  EXPECT_EQ(ProviderMessage(R"({"error":"plain"})"), "plain");
  EXPECT_EQ(ProviderMessage(""), "(no details given)");
  EXPECT_EQ(ProviderMessage(std::string(5000, 'x')).size(), 203u);
  EXPECT_EQ(HostOf("https://user:pw@api.x.com:8443/v1?q"), "api.x.com:8443");
}

}  // namespace
}  // namespace sepp::llm
