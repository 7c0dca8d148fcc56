// The model table. Limits are the providers' published numbers for the
// standard (non-beta) tiers; lookups try the exact id, then the longest known
// prefix (so "claude-sonnet-4-5-20250929" and "gpt-4o-2024-08-06" resolve),
// then a per-provider default that is safe for unknown and local models.
#include "llm/models.h"

#include <string_view>

namespace sepp::llm {
namespace {

struct Entry {
  std::string_view id;
  int context_window;
  int max_output;
  bool supports_thinking;
};

// Longest-prefix match makes order irrelevant.
constexpr Entry kModels[] = {
    // Anthropic
    {"claude-opus-4-5", 200000, 64000, true},
    {"claude-sonnet-4-5", 200000, 64000, true},
    {"claude-haiku-4-5", 200000, 64000, true},
    {"claude-opus-4-1", 200000, 32000, true},
    {"claude-opus-4", 200000, 32000, true},
    {"claude-sonnet-4", 200000, 64000, true},
    {"claude-3-7-sonnet", 200000, 64000, true},
    {"claude-3-5-sonnet", 200000, 8192, false},
    {"claude-3-5-haiku", 200000, 8192, false},
    {"claude-3-opus", 200000, 4096, false},
    {"claude-3-haiku", 200000, 4096, false},
    {"claude-", 200000, 8192, true},  // newer Claude models all think
    // OpenAI
    {"gpt-5", 400000, 128000, true},
    {"gpt-5-chat", 128000, 16384, false},
    {"gpt-5.1", 400000, 128000, true},
    {"gpt-5.1-chat", 128000, 16384, false},
    {"gpt-4.1", 1047576, 32768, false},
    {"gpt-4o", 128000, 16384, false},
    {"gpt-4-turbo", 128000, 4096, false},
    {"o1", 200000, 100000, true},
    {"o1-mini", 128000, 65536, true},
    {"o3", 200000, 100000, true},
    {"o3-mini", 200000, 100000, true},
    {"o4-mini", 200000, 100000, true},
    {"codex-mini", 200000, 100000, true},
};

ModelInfo DefaultsFor(const std::string& provider, const std::string& model) {
  ModelInfo info;
  info.id = model;
  if (provider == "anthropic") {
    info.context_window = 200000;
    info.max_output = 8192;
    info.supports_thinking = true;  // e.g. a model served under another name by a proxy
  } else if (provider == "local") {
    // Local servers often run small contexts; stay modest.
    info.context_window = 32768;
    info.max_output = 8192;
  } else {
    info.context_window = 128000;
    info.max_output = 16384;
  }
  return info;
}

}  // namespace

ModelInfo LookupModel(const std::string& provider, const std::string& model) {
  const Entry* best = nullptr;
  for (const Entry& e : kModels) {
    if (model.size() < e.id.size() || model.compare(0, e.id.size(), e.id) != 0) continue;
    // A prefix must end at a boundary: "o1" must not match "o10-foo".
    if (model.size() > e.id.size() && e.id.back() != '-') {
      char next = model[e.id.size()];
      if (next != '-' && next != ':' && next != '@') continue;
    }
    if (!best || e.id.size() > best->id.size()) best = &e;
  }
  if (!best) return DefaultsFor(provider, model);
  ModelInfo info;
  info.id = model;
  info.context_window = best->context_window;
  info.max_output = best->max_output;
  info.supports_thinking = best->supports_thinking;
  return info;
}

std::vector<ModelInfo> KnownModels(const std::string& provider) {
  bool anthropic = provider == "anthropic";
  if (!anthropic && provider != "openai" && provider != "openai-responses") return {};
  std::vector<ModelInfo> out;
  for (const Entry& e : kModels) {
    if (e.id.back() == '-') continue;  // a catch-all prefix, not a model
    if ((e.id.rfind("claude-", 0) == 0) != anthropic) continue;
    out.push_back({std::string(e.id), e.context_window, e.max_output, e.supports_thinking});
  }
  return out;
}

std::string DefaultModel(const std::string& provider) {
  if (provider == "anthropic") return "claude-sonnet-4-5";
  if (provider == "local") return "qwen3-coder";
  return "gpt-5.1";  // openai, openai-responses
}

}  // namespace sepp::llm
