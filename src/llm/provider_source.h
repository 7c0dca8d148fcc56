// Where a run's providers come from: the network (the default), the network
// with every exchange recorded to a cassette (--record), or a cassette alone
// (--replay, no key needed). The app makes one ProviderSource and asks it for
// a provider per agent; the main agent and every sub-agent then share the
// same recorder or replayer.
#pragma once
#include <memory>
#include <string>

#include "base/result.h"
#include "llm/cassette_scrub.h"
#include "llm/provider.h"
#include "llm/recording_provider.h"
#include "llm/replay_provider.h"

namespace sepp::llm {

struct ProviderSourceOptions {
  std::string provider_flag;  // --provider, may be empty
  std::string record_path;    // --record
  std::string replay_path;    // --replay
  ReplayMode replay_mode = ReplayMode::kStrict;
  std::string cwd;            // volatile values (see cassette_scrub.h)
  std::string date;
};

class ProviderSource {
 public:
  // Errors: "usage" (conflicting flags, a cassette that cannot be written),
  // "bad_cassette", or ConfigFromEnvironment's.
  static Result<std::unique_ptr<ProviderSource>> Open(const ProviderSourceOptions& options);

  // With --replay: the recorded provider's name and API (no key, no URL).
  const ProviderConfig& config() const { return config_; }
  // A new provider for one agent. Thread-safe.
  std::unique_ptr<Provider> New() const;
  // After the run: "" or what went wrong with the cassette (a replay that
  // did not match, a recording that could not be written); several lines.
  std::string Problems() const;

 private:
  ProviderConfig config_;
  std::shared_ptr<CassetteRecorder> recorder_;
  std::shared_ptr<CassetteReplayer> replayer_;
};

}  // namespace sepp::llm
