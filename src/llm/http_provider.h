// The one Provider implementation: any of the three APIs over net's HTTP
// client, with retries. MakeProvider(config) is this with real time; tests
// inject a RetryEnv so that backoff never sleeps.
#pragma once
#include <memory>

#include "llm/provider.h"
#include "llm/retry.h"

namespace sepp::llm {

std::unique_ptr<Provider> MakeHttpProvider(const ProviderConfig& config, RetryEnv env,
                                           RetryPolicy policy = {});

// The URL Complete posts to for a config: {base}/v1/messages,
// {base}/chat/completions or {base}/responses.
std::string EndpointUrl(const ProviderConfig& config);

}  // namespace sepp::llm
