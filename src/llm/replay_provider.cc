#include "llm/replay_provider.h"

#include <algorithm>

#include "llm/json_diff.h"

namespace sepp::llm {
namespace {

const Json& FirstMessage(const Json& request) {
  static const Json kNone;
  const Json* m = request.contains("messages") ? &request["messages"] : nullptr;
  return m && m->is_array() && !m->empty() ? (*m)[0] : kNone;
}

// A recorded request, parsed again from its text (for a diff, on a miss).
Json Parsed(const Exchange& x) {
  auto j = ParseJson(x.request_text);
  return j.ok() ? std::move(*j) : Json();
}

std::string Line(const Exchange& x) { return "line " + std::to_string(x.line); }

class ReplayProvider : public Provider {
 public:
  explicit ReplayProvider(std::shared_ptr<CassetteReplayer> replayer, std::string name)
      : replayer_(std::move(replayer)), name_(std::move(name)) {}

  std::string name() const override { return name_; }

  Result<Message> Complete(const Request& request, const StreamSink& sink, CancelToken* cancel) override {
    if (cancel && cancel->cancelled()) return Error::Make("aborted", "aborted");
    Result<const Exchange*> x = [&] {
      std::lock_guard lock(mu_);  // one request of this agent at a time keeps positions defined
      return replayer_->Serve(&cursor_, request);
    }();
    if (!x) return x.error();
    PlayEvents((*x)->events, sink);
    if ((*x)->message) return *(*x)->message;
    return (*x)->error;
  }

 private:
  std::shared_ptr<CassetteReplayer> replayer_;
  std::string name_;
  std::mutex mu_;
  CassetteReplayer::Cursor cursor_;
};

}  // namespace

CassetteReplayer::CassetteReplayer(Cassette cassette, std::string name, ReplayMode mode, CassetteScrub scrub)
    : cassette_(std::move(cassette)), name_(std::move(name)), mode_(mode), scrub_(std::move(scrub)) {
  for (size_t i = 0; i < cassette_.exchanges.size(); ++i) {
    Exchange& x = cassette_.exchanges[i];
    scrub_.RevealResponse(&x);  // once here, not at every call
    streams_[x.agent].push_back(i);
    if (mode_ == ReplayMode::kStrict) {
      if (x.request_text.empty()) x.request_text = DumpJson(x.request);  // parsed as kJson
      x.request = Json();
      by_fingerprint_[FingerprintText(x.request_text)].push_back(i);
    }
  }
  for (auto& [agent, indices] : streams_) {
    std::stable_sort(indices.begin(), indices.end(), [this](size_t a, size_t b) {
      return cassette_.exchanges[a].call < cassette_.exchanges[b].call;
    });
  }
  if (mode_ == ReplayMode::kLenient) {
    // Served by position: only each agent's first message is ever compared.
    for (const auto& [agent, indices] : streams_) {
      const Exchange& x = cassette_.exchanges[indices[0]];
      first_messages_[agent] = FirstMessage(x.request_text.empty() ? x.request : Parsed(x));
    }
    for (Exchange& x : cassette_.exchanges) {
      x.request = Json();
      std::string().swap(x.request_text);
    }
  }
  used_.assign(cassette_.exchanges.size(), false);
}

Result<std::shared_ptr<CassetteReplayer>> CassetteReplayer::Open(const std::string& path, ReplayMode mode,
                                                                  CassetteScrub scrub) {
  auto c = LoadCassette(path, mode == ReplayMode::kStrict ? RequestForm::kText : RequestForm::kFirstMessage);
  if (!c) return c.error();
  return std::make_shared<CassetteReplayer>(std::move(*c), path, mode, std::move(scrub));
}

ProviderConfig CassetteReplayer::config() const {
  ProviderConfig c;
  c.api = cassette_.api;
  c.name = cassette_.provider;
  return c;
}

std::unique_ptr<Provider> CassetteReplayer::NewProvider() {
  return std::make_unique<ReplayProvider>(shared_from_this(), cassette_.provider);
}

Result<const Exchange*> CassetteReplayer::Serve(Cursor* cursor, const Request& request) {
  auto x = mode_ == ReplayMode::kStrict ? ServeStrict(cursor, request) : ServeLenient(cursor, request);
  if (x) ++cursor->calls;
  return x;
}

Result<const Exchange*> CassetteReplayer::ServeStrict(Cursor* cursor, const Request& request) {
  // Converted and scrubbed outside the lock: parallel agents do it at once.
  Json hidden = scrub_.Hide(RequestToJson(request));
  std::string text = DumpJson(hidden);
  std::string fp = FingerprintText(text);
  std::lock_guard lock(mu_);
  ++requests_;
  if (auto it = by_fingerprint_.find(fp); it != by_fingerprint_.end()) {
    for (size_t i : it->second) {
      if (!used_[i] && cassette_.exchanges[i].request_text == text) {
        used_[i] = true;
        cursor->stream = cassette_.exchanges[i].agent;
        return &cassette_.exchanges[i];
      }
    }
  }
  // The closest recording: this agent's next, else the same conversation's,
  // else the first unused.
  int candidate = cursor->stream >= 0 ? FirstUnusedOfStream(cursor->stream) : -1;
  for (size_t i = 0; candidate < 0 && i < used_.size(); ++i) {
    if (!used_[i] && FirstMessage(Parsed(cassette_.exchanges[i])) == FirstMessage(hidden)) candidate = int(i);
  }
  for (size_t i = 0; candidate < 0 && i < used_.size(); ++i) {
    if (!used_[i]) candidate = int(i);
  }
  return Mismatch(hidden, candidate);
}

Result<const Exchange*> CassetteReplayer::ServeLenient(Cursor* cursor, const Request& request) {
  std::lock_guard lock(mu_);
  ++requests_;
  if (cursor->stream < 0) {
    // Bound once, by the first message alone: the only part of a request
    // lenient mode ever looks at.
    Json first = request.messages.empty() ? Json() : scrub_.Hide(ToJson(request.messages[0]));
    for (int pass = 0; pass < 2 && cursor->stream < 0; ++pass) {
      for (const auto& [agent, indices] : streams_) {
        if (claimed_.count(agent)) continue;
        if (pass == 0 && first_messages_[agent] != first) continue;
        cursor->stream = agent;
        claimed_.insert(agent);
        break;
      }
    }
    if (cursor->stream < 0) {
      std::string why = "this run starts more agents than the " + std::to_string(streams_.size()) +
                        " recorded in " + name_;
      if (problem_.empty()) problem_ = "replay: " + why + "\n";
      return Error::Make(why, "replay_mismatch");
    }
  }
  const auto& indices = streams_[cursor->stream];
  if (size_t(cursor->calls) >= indices.size()) {
    std::string why = "agent " + std::to_string(cursor->stream) + " asks for request " +
                      std::to_string(cursor->calls + 1) + " but " + name_ + " recorded only " +
                      std::to_string(indices.size());
    if (problem_.empty()) problem_ = "replay: " + why + "\n";
    return Error::Make(why, "replay_mismatch");
  }
  size_t i = indices[cursor->calls];
  used_[i] = true;
  return &cassette_.exchanges[i];
}

int CassetteReplayer::FirstUnusedOfStream(int stream) const {
  auto it = streams_.find(stream);
  if (it == streams_.end()) return -1;
  for (size_t i : it->second) {
    if (!used_[i]) return int(i);
  }
  return -1;
}

Error CassetteReplayer::Mismatch(const Json& request, int candidate) {
  std::string headline = "request " + std::to_string(requests_) + " matches no unused exchange of " + name_;
  std::string report = "replay: " + headline + ".\n";
  std::string first;
  if (candidate < 0) {
    report += "All " + std::to_string(used_.size()) + " recorded exchanges were used: this request is new.\n";
    first = "the recording has no more exchanges";
  } else {
    const Exchange& x = cassette_.exchanges[candidate];
    size_t total = 0;
    auto diffs = DiffJson(Parsed(x), request, 8, &total);
    report += "Closest recorded request: " + Line(x) + " (agent " + std::to_string(x.agent) +
              ", call " + std::to_string(x.call) + "). Differences:\n" + FormatDifferences(diffs, total);
    first = diffs.empty() ? "differs" : "first difference at " + diffs[0].path;
  }
  report += "Record it again with --record FILE, or replay by position with --replay-mode lenient.\n";
  if (problem_.empty()) problem_ = report;
  return Error::Make("replay: " + headline + " (" + first + "); the diff follows at the end", "replay_mismatch");
}

std::string CassetteReplayer::Problems() const {
  std::lock_guard lock(mu_);
  if (!problem_.empty() || mode_ == ReplayMode::kLenient) return problem_;
  std::vector<size_t> unused;
  for (size_t i = 0; i < used_.size(); ++i) {
    if (!used_[i]) unused.push_back(i);
  }
  if (unused.empty()) return "";
  std::string out = "replay: the run made " + std::to_string(requests_) + " requests, but " + name_ +
                    " recorded " + std::to_string(used_.size()) + "; never asked for:";
  for (size_t k = 0; k < unused.size() && k < 5; ++k) {
    const Exchange& x = cassette_.exchanges[unused[k]];
    out += " " + Line(x) + " (agent " + std::to_string(x.agent) + ", call " + std::to_string(x.call) + ")";
    if (k + 1 < unused.size()) out += ",";
  }
  if (unused.size() > 5) out += " and " + std::to_string(unused.size() - 5) + " more";
  return out + "\n";
}

}  // namespace sepp::llm
