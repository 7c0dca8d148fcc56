#include "llm/recording_provider.h"

#include <fcntl.h>

#include "base/log.h"

namespace sepp::llm {
namespace {

// The sink seen by the inner provider: passes everything on, and keeps the
// stream, joining adjacent text (or thinking) pieces into one event.
StreamSink Tee(const StreamSink& outer, std::vector<StreamEvent>* events) {
  auto piece = [events](StreamEvent::Kind kind, std::string_view text) {
    if (!events->empty() && events->back().kind == kind) {
      events->back().text += text;
    } else {
      events->push_back(StreamEvent::Piece(kind, std::string(text)));
    }
  };
  StreamSink s;
  s.on_text = [&outer, piece](std::string_view t) {
    piece(StreamEvent::Kind::kText, t);
    if (outer.on_text) outer.on_text(t);
  };
  s.on_thinking = [&outer, piece](std::string_view t) {
    piece(StreamEvent::Kind::kThinking, t);
    if (outer.on_thinking) outer.on_thinking(t);
  };
  s.on_tool_call = [&outer, events](const ContentBlock& b) {
    events->push_back(StreamEvent::ToolCall(b));
    if (outer.on_tool_call) outer.on_tool_call(b);
  };
  s.on_retry = [&outer, events](const std::string& why, int attempt, double delay_s) {
    events->push_back(StreamEvent::Retry(why, attempt, delay_s));
    if (outer.on_retry) outer.on_retry(why, attempt, delay_s);
  };
  s.retry_stopper = outer.retry_stopper;
  return s;
}

class RecordingProvider : public Provider {
 public:
  RecordingProvider(std::shared_ptr<CassetteRecorder> recorder, std::unique_ptr<Provider> inner)
      : recorder_(std::move(recorder)), inner_(std::move(inner)) {}

  std::string name() const override { return inner_->name(); }

  Result<Message> Complete(const Request& request, const StreamSink& sink, CancelToken* cancel) override {
    Exchange x;
    {
      std::lock_guard lock(mu_);
      if (agent_ < 0) agent_ = recorder_->NewAgent();
      x.agent = agent_;
      x.call = calls_++;
    }
    x.request = RequestToJson(request);
    auto result = inner_->Complete(request, Tee(sink, &x.events), cancel);
    if (result.ok()) x.message = *result;
    else x.error = result.error();
    recorder_->Append(std::move(x));
    return result;
  }

 private:
  std::shared_ptr<CassetteRecorder> recorder_;
  std::unique_ptr<Provider> inner_;
  std::mutex mu_;
  int agent_ = -1;
  int calls_ = 0;
};

}  // namespace

CassetteRecorder::CassetteRecorder(std::string path, UniqueFd fd, CassetteScrub scrub)
    : path_(std::move(path)), scrub_(std::move(scrub)), fd_(std::move(fd)) {}

Result<std::shared_ptr<CassetteRecorder>> CassetteRecorder::Create(const std::string& path,
                                                                    const ProviderConfig& config,
                                                                    CassetteScrub scrub) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!fd.valid()) {
    return Error::Make("cannot write the cassette " + path + ": " + ErrnoText(errno), "usage");
  }
  if (auto st = WriteAll(fd.get(), CassetteHeaderLine(config.name, config.api)); !st.ok()) {
    return Error::Make("cannot write the cassette " + path + ": " + st.error().message);
  }
  return std::make_shared<CassetteRecorder>(path, std::move(fd), std::move(scrub));
}

std::unique_ptr<Provider> CassetteRecorder::Wrap(std::unique_ptr<Provider> inner) {
  return std::make_unique<RecordingProvider>(shared_from_this(), std::move(inner));
}

Status CassetteRecorder::status() const {
  std::lock_guard lock(mu_);
  return status_;
}

int CassetteRecorder::NewAgent() {
  std::lock_guard lock(mu_);
  return agents_++;
}

void CassetteRecorder::Append(Exchange x) {
  x.request = scrub_.Hide(x.request);
  scrub_.HideResponse(&x);
  std::string line = ExchangeLine(x);
  std::lock_guard lock(mu_);
  if (!status_.ok()) return;
  if (auto st = WriteAll(fd_.get(), line); !st.ok()) {
    status_ = Error::Make("the cassette " + path_ + " is incomplete: " + st.error().message);
    log::Error("llm: " + status_.error().message);
  }
}

}  // namespace sepp::llm
