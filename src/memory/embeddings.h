// Optional embeddings for memory search, from any OpenAI-compatible
// endpoint: POST <url>/v1/embeddings {"model", "input": [...]} answering
// {"data": [{"index", "embedding": [...]}]} (OpenAI, Ollama, llama.cpp
// --embedding, vLLM, ...). Never required: without configuration memory
// is BM25 only and entirely offline.
//
// Configured from sepp's environment (a key never comes from anywhere
// else): SEPP_EMBEDDINGS_URL (e.g. http://127.0.0.1:11434), 
// SEPP_EMBEDDINGS_MODEL, and SEPP_EMBEDDINGS_API_KEY when the endpoint
// wants a bearer token. The call is made by sepp, outside the sandbox, to
// that one address only.
#pragma once
#include <memory>
#include <optional>
#include <string>

#include "base/result.h"
#include "memory/store.h"

namespace sepp::memory {

struct EmbeddingsConfig {
  std::string url;    // the endpoint's base ("/v1/embeddings" is added unless present)
  std::string model;
  std::string api_key;
};

// From the environment; nullopt when SEPP_EMBEDDINGS_URL is unset. An
// error when it is set but unusable (no model, not http(s)).
Result<std::optional<EmbeddingsConfig>> EmbeddingsFromEnvironment();

std::shared_ptr<const Embedder> MakeOpenAiEmbedder(EmbeddingsConfig config);

}  // namespace sepp::memory
