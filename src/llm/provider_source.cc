#include "llm/provider_source.h"

namespace sepp::llm {

Result<std::unique_ptr<ProviderSource>> ProviderSource::Open(const ProviderSourceOptions& o) {
  auto source = std::make_unique<ProviderSource>();
  CassetteScrub scrub(o.cwd, o.date);
  if (!o.replay_path.empty()) {
    if (!o.record_path.empty()) {
      return Error::Make("--record and --replay cannot be combined: record once, then replay", "usage");
    }
    auto replayer = CassetteReplayer::Open(o.replay_path, o.replay_mode, std::move(scrub));
    if (!replayer) return replayer.error();
    source->replayer_ = std::move(*replayer);
    source->config_ = source->replayer_->config();
    if (!o.provider_flag.empty() && o.provider_flag != source->config_.name) {
      return Error::Make("--provider " + o.provider_flag + " does not match the cassette " + o.replay_path +
                             ", recorded with " + source->config_.name + ": leave --provider out",
                         "usage");
    }
    return source;
  }
  auto config = ConfigFromEnvironment(o.provider_flag);
  if (!config) return config.error();
  source->config_ = std::move(*config);
  if (!o.record_path.empty()) {
    auto recorder = CassetteRecorder::Create(o.record_path, source->config_, std::move(scrub));
    if (!recorder) return recorder.error();
    source->recorder_ = std::move(*recorder);
  }
  return source;
}

std::unique_ptr<Provider> ProviderSource::New() const {
  if (replayer_) return replayer_->NewProvider();
  auto live = MakeProvider(config_);
  return recorder_ ? recorder_->Wrap(std::move(live)) : std::move(live);
}

std::string ProviderSource::Problems() const {
  if (replayer_) return replayer_->Problems();
  if (recorder_ && !recorder_->status().ok()) return recorder_->status().error().message + "\n";
  return "";
}

}  // namespace sepp::llm
