// The model table: context window and output limit per model, with sane
// defaults for models we do not know (local servers, new releases).
#pragma once
#include <string>
#include <vector>

namespace sepp::llm {

struct ModelInfo {
  std::string id;
  int context_window = 128000;
  int max_output = 8192;
  bool supports_thinking = false;
};

// Exact id first, then longest known prefix, then defaults for the provider.
ModelInfo LookupModel(const std::string& provider, const std::string& model);

// The models the table knows for a provider (anthropic: the claude ones;
// openai and openai-responses: the rest), for a front end's model picker;
// empty for a provider the table does not cover (local servers).
std::vector<ModelInfo> KnownModels(const std::string& provider);

// The model used when none is given: per provider.
std::string DefaultModel(const std::string& provider);

}  // namespace sepp::llm
