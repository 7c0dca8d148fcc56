#include "memory/embeddings.h"

#include <cstdlib>

#include "base/secrets.h"
#include "net/http_client.h"

namespace sepp::memory {

Result<std::optional<EmbeddingsConfig>> EmbeddingsFromEnvironment() {
  auto env = [](const char* name) {
    const char* v = std::getenv(name);
    return std::string(v ? v : "");
  };
  EmbeddingsConfig c;
  c.url = env("SEPP_EMBEDDINGS_URL");
  if (c.url.empty()) return std::optional<EmbeddingsConfig>();
  if (c.url.rfind("http://", 0) != 0 && c.url.rfind("https://", 0) != 0)
    return Error::Make("SEPP_EMBEDDINGS_URL must be an http:// or https:// URL, e.g. "
                       "http://127.0.0.1:11434", "invalid_config");
  c.model = env("SEPP_EMBEDDINGS_MODEL");
  if (c.model.empty())
    return Error::Make("SEPP_EMBEDDINGS_URL is set but SEPP_EMBEDDINGS_MODEL is not: name the "
                       "embedding model (e.g. nomic-embed-text)", "invalid_config");
  c.api_key = env("SEPP_EMBEDDINGS_API_KEY");
  if (!c.api_key.empty()) RegisterSecret(c.api_key);
  return std::optional<EmbeddingsConfig>(c);
}

std::shared_ptr<const Embedder> MakeOpenAiEmbedder(EmbeddingsConfig config) {
  auto e = std::make_shared<Embedder>();
  e->model = config.model;
  std::string url = config.url;
  while (!url.empty() && url.back() == '/') url.pop_back();
  if (url.size() < 14 || url.compare(url.size() - 14, 14, "/v1/embeddings") != 0) {
    if (url.size() >= 3 && url.compare(url.size() - 3, 3, "/v1") == 0) url += "/embeddings";
    else url += "/v1/embeddings";
  }
  e->embed = [url, config](const std::vector<std::string>& texts)
      -> Result<std::vector<std::vector<float>>> {
    net::HttpRequest req;
    req.method = "POST";
    req.url = url;
    req.headers = {{"Content-Type", "application/json"}};
    if (!config.api_key.empty()) req.headers.push_back({"Authorization", "Bearer " + config.api_key});
    req.body = Json{{"model", config.model}, {"input", texts}}.dump();
    req.connect_timeout_s = 10;
    req.read_timeout_s = 30;
    auto resp = net::HttpFetch(req, nullptr, 64u << 20);
    if (!resp.ok()) return Error::Make("embeddings endpoint " + url + ": " + Redact(resp.error().message));
    if (resp->head.status != 200)
      return Error::Make("embeddings endpoint " + url + " answered HTTP " +
                         std::to_string(resp->head.status));
    Json j = Json::parse(resp->body, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("data") || !j["data"].is_array())
      return Error::Make("embeddings endpoint " + url + " did not answer {\"data\": [...]}");
    std::vector<std::vector<float>> out(texts.size());
    size_t filled = 0;
    for (size_t i = 0; i < j["data"].size(); ++i) {
      const Json& d = j["data"][i];
      if (!d.is_object() || !d.contains("embedding") || !d["embedding"].is_array()) continue;
      size_t index = d.contains("index") && d["index"].is_number_unsigned() ? d["index"].get<size_t>() : i;
      if (index >= out.size()) continue;
      std::vector<float> v;
      for (const auto& x : d["embedding"]) {
        if (!x.is_number()) return Error::Make("embeddings endpoint " + url + ": a vector holds a non-number");
        v.push_back(x.get<float>());
      }
      if (out[index].empty() && !v.empty()) ++filled;
      out[index] = std::move(v);
    }
    if (filled != texts.size())
      return Error::Make("embeddings endpoint " + url + " returned " + std::to_string(filled) +
                         " vectors for " + std::to_string(texts.size()) + " texts");
    return out;
  };
  return e;
}

}  // namespace sepp::memory
