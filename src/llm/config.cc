// Choosing a provider: --provider, else SEPP_PROVIDER, else whichever key is
// set (Anthropic first). Base URLs: ANTHROPIC_BASE_URL has no /v1 (we add
// /v1/messages; a trailing /v1 is forgiven), OPENAI_BASE_URL includes /v1.
// `local` is the chat API at OPENAI_BASE_URL (default Ollama) with an
// optional key. Keys are read here and nowhere else, and never echoed.
#include <cstdlib>

#include "llm/provider.h"

namespace sepp::llm {
namespace {

std::string TrimBase(std::string s) {
  while (!s.empty() && s.back() == '/') s.pop_back();
  return s;
}

}  // namespace

Result<ProviderConfig> ConfigFromLookup(const std::string& provider_flag,
                                        const std::function<std::string(const char*)>& getenv) {
  std::string choice = provider_flag;
  if (choice.empty()) choice = getenv("SEPP_PROVIDER");
  if (choice.empty()) {
    if (!getenv("ANTHROPIC_API_KEY").empty()) {
      choice = "anthropic";
    } else if (!getenv("OPENAI_API_KEY").empty()) {
      choice = "openai";
    } else {
      return Error::Make(
          "no LLM provider is configured: export ANTHROPIC_API_KEY or OPENAI_API_KEY, or use "
          "--provider local for an OpenAI-compatible server at OPENAI_BASE_URL (default Ollama "
          "at http://127.0.0.1:11434/v1)",
          "auth");
    }
  }
  ProviderConfig c;
  c.name = choice;
  if (choice == "anthropic") {
    c.api = ApiKind::kAnthropic;
    c.api_key = getenv("ANTHROPIC_API_KEY");
    if (c.api_key.empty()) {
      return Error::Make(
          "ANTHROPIC_API_KEY is not set: export it, or choose another provider with --provider",
          "auth");
    }
    c.base_url = TrimBase(getenv("ANTHROPIC_BASE_URL"));
    if (c.base_url.size() > 3 && c.base_url.compare(c.base_url.size() - 3, 3, "/v1") == 0) {
      c.base_url.resize(c.base_url.size() - 3);
    }
    if (c.base_url.empty()) c.base_url = "https://api.anthropic.com";
  } else if (choice == "openai" || choice == "openai-responses") {
    c.api = choice == "openai" ? ApiKind::kOpenAiChat : ApiKind::kOpenAiResponses;
    c.api_key = getenv("OPENAI_API_KEY");
    if (c.api_key.empty()) {
      return Error::Make(
          "OPENAI_API_KEY is not set: export it, or choose another provider with --provider",
          "auth");
    }
    c.base_url = TrimBase(getenv("OPENAI_BASE_URL"));
    if (c.base_url.empty()) c.base_url = "https://api.openai.com/v1";
  } else if (choice == "local") {
    c.api = ApiKind::kOpenAiChat;
    c.api_key = getenv("OPENAI_API_KEY");
    c.base_url = TrimBase(getenv("OPENAI_BASE_URL"));
    if (c.base_url.empty()) c.base_url = "http://127.0.0.1:11434/v1";
  } else {
    return Error::Make("unknown provider \"" + choice +
                           "\": choose anthropic, openai, openai-responses or local",
                       "usage");
  }
  return c;
}

Result<ProviderConfig> ConfigFromEnvironment(const std::string& provider_flag) {
  return ConfigFromLookup(provider_flag, [](const char* name) {
    const char* v = std::getenv(name);
    return std::string(v ? v : "");
  });
}

}  // namespace sepp::llm
