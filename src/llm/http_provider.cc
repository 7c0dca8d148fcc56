// Provider over HTTP: build the body once (RequestBodyWriter serialises the
// tool schemas and the system prompt once per session, not per call), then
// per attempt POST it, feed a streamed body through the SSE parser into the
// API's decoder (or collect a whole body and parse it), and turn every
// failure into a Failure for the retry loop. A new decoder per attempt: a
// retried stream starts from nothing, and since tools run only after
// Complete returns, nothing a failed attempt streamed can have run a tool.
#include "llm/http_provider.h"

#include <optional>

#include "base/log.h"
#include "base/strings.h"
#include "llm/anthropic.h"
#include "llm/errors.h"
#include "llm/models.h"
#include "llm/openai_chat.h"
#include "llm/openai_responses.h"
#include "llm/request_body.h"
#include "net/http_client.h"
#include "net/sse.h"

namespace sepp::llm {
namespace {

constexpr size_t kMaxErrorBody = 64 * 1024;
constexpr size_t kMaxWholeBody = 64 * 1024 * 1024;

std::string TrimSlash(std::string s) {
  while (!s.empty() && s.back() == '/') s.pop_back();
  return s;
}

class HttpProvider : public Provider {
 public:
  HttpProvider(ProviderConfig config, RetryEnv env, RetryPolicy policy)
      : config_(std::move(config)), env_(std::move(env)), policy_(policy),
        body_writer_(config_.api, {.legacy_max_tokens = config_.name == "local"}) {
    policy_.max_retries = std::max(0, config_.max_retries);
  }

  std::string name() const override { return config_.name; }

  Result<Message> Complete(const Request& request, const StreamSink& sink,
                           CancelToken* cancel) override {
    try {
      return CompleteImpl(request, sink, cancel);
    } catch (const std::exception& e) {
      // Nothing below should throw; if something does, it must not escape.
      return Error::Make(std::string("internal error while talking to the provider: ") + e.what(),
                         "protocol");
    }
  }

 private:
  Result<Message> CompleteImpl(const Request& asked, const StreamSink& sink, CancelToken* cancel) {
    // The request holds the whole conversation: it is copied only when the
    // provider's default model has to fill in an empty one.
    std::optional<Request> defaulted;
    if (asked.model.empty()) {
      defaulted = asked;
      defaulted->model = DefaultModel(config_.name);
    }
    const Request& request = defaulted ? *defaulted : asked;
    Endpoint ep;
    ep.api = config_.api;
    ep.provider = config_.name;
    ep.host = HostOf(config_.base_url);
    ep.model = request.model;
    ep.key_variable = config_.api == ApiKind::kAnthropic ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY";
    ep.has_key = !config_.api_key.empty();
    if (config_.api == ApiKind::kAnthropic && config_.api_key.empty()) {
      return Error::Make("ANTHROPIC_API_KEY is not set: export it, or choose another provider with --provider",
                         "auth");
    }

    net::HttpRequest http;
    http.method = "POST";
    http.url = EndpointUrl(config_);
    http.connect_timeout_s = config_.connect_timeout_s;
    http.read_timeout_s = config_.read_timeout_s;
    http.body = body_writer_.Write(request);
    switch (config_.api) {
      case ApiKind::kAnthropic:
        http.headers = anthropic::RequestHeaders(config_.api_key, request.stream);
        break;
      case ApiKind::kOpenAiChat:
        http.headers = openai_chat::RequestHeaders(config_.api_key, request.stream);
        break;
      case ApiKind::kOpenAiResponses:
        http.headers = openai_responses::RequestHeaders(config_.api_key, request.stream);
        break;
    }
    log::Debug("llm: POST to " + ep.host + " model " + request.model + " (" +
               std::to_string(http.body.size()) + " bytes)");
    RetryPolicy policy = policy_;
    if (!request.retry) policy.max_retries = 0;
    return RunWithRetries(policy, env_, sink, cancel, [&](int attempt) {
      return Attempt(http, request.stream, ep, sink, cancel);
    });
  }

  std::unique_ptr<wire::StreamDecoder> NewDecoder(const StreamSink* sink, const Endpoint& ep) const {
    switch (config_.api) {
      case ApiKind::kAnthropic: return anthropic::NewStreamDecoder(sink, ep);
      case ApiKind::kOpenAiChat: return openai_chat::NewStreamDecoder(sink, ep);
      case ApiKind::kOpenAiResponses: return openai_responses::NewStreamDecoder(sink, ep);
    }
    return nullptr;
  }

  Result<Message> ParseWhole(std::string_view body, const Endpoint& ep) const {
    switch (config_.api) {
      case ApiKind::kAnthropic: return anthropic::ParseResponse(body, ep);
      case ApiKind::kOpenAiChat: return openai_chat::ParseResponse(body, ep);
      case ApiKind::kOpenAiResponses: return openai_responses::ParseResponse(body, ep);
    }
    return Error::Make("unknown API", "protocol");
  }

  AttemptResult Attempt(const net::HttpRequest& http, bool stream, const Endpoint& ep,
                        const StreamSink& sink, CancelToken* cancel) {
    auto decoder = NewDecoder(&sink, ep);
    Status decoded;
    net::SseParser parser([&](const net::SseEvent& e) {
      if (decoded.ok()) decoded = decoder->OnEvent(e);
    });
    net::HttpResponseHead head;
    bool sse = false;
    std::string body;  // error body, or a whole response
    bool too_big = false;
    size_t streamed = 0;

    net::HttpHandlers handlers;
    handlers.on_head = [&](const net::HttpResponseHead& h) {
      head = h;
      // Some local servers label their event streams text/plain: anything
      // but JSON is read as SSE when we asked for a stream.
      sse = stream && head.status / 100 == 2 &&
            ToLower(head.Header("content-type")).find("json") == std::string::npos;
    };
    handlers.on_body = [&](std::string_view chunk) {
      if (sse) {
        parser.Feed(chunk);
        streamed += chunk.size();
        // Bounded: one oversized event, or a stream longer than any whole
        // response may be, ends the call instead of taking memory.
        if (decoded.ok() && (parser.too_big() || streamed > kMaxWholeBody))
          decoded = Error::Make(ep.host + (parser.too_big() ? " sent a stream event larger than 16 MiB"
                                                           : " sent a stream longer than 64 MB") +
                                    "; sepp stopped reading it (is base_url a real provider API?)",
                                "protocol");
        return decoded.ok() && !decoder->done();
      }
      size_t limit = head.status / 100 == 2 ? kMaxWholeBody : kMaxErrorBody;
      if (body.size() + chunk.size() > limit) {
        body.append(chunk.substr(0, limit - body.size()));
        too_big = true;
        return false;
      }
      body.append(chunk);
      return true;
    };
    Status sent = net::HttpSend(http, handlers, cancel);

    if (cancel && cancel->cancelled()) return Failure{Error::Make("aborted", "aborted"), false};
    if (!decoded.ok()) {
      return Failure{decoded.error(), IsRetryableKind(decoded.error().kind)};
    }
    if (!sent.ok()) {
      Failure f = ClassifyNetError(ep, sent.error());
      log::Info("llm: " + f.error.message);
      return f;
    }
    if (head.status / 100 != 2) {
      Failure f = ClassifyHttpError(ep, head.status, body);
      f.retry_after_s = RetryAfterSeconds(head, env_.now_s ? env_.now_s() : 0);
      return f;
    }
    if (sse) {
      parser.Finish();
      if (!decoded.ok()) return Failure{decoded.error(), IsRetryableKind(decoded.error().kind)};
      auto m = decoder->Finish();
      if (!m) return Failure{m.error(), IsRetryableKind(m.error().kind)};
      return std::move(*m);
    }
    if (too_big) {
      return Failure{Error::Make(ep.host + " sent a response larger than 64 MB", "protocol"), false};
    }
    auto m = ParseWhole(body, ep);
    if (!m) return Failure{m.error(), IsRetryableKind(m.error().kind)};
    if (stream) Replay(*m, sink);  // asked for a stream, got JSON: still tell the sink
    return std::move(*m);
  }

  static void Replay(const Message& m, const StreamSink& sink) {
    for (const auto& b : m.content) {
      if (b.kind == ContentBlock::Kind::kText && sink.on_text && !b.text.empty()) sink.on_text(b.text);
      if (b.kind == ContentBlock::Kind::kThinking && sink.on_thinking && !b.text.empty()) {
        sink.on_thinking(b.text);
      }
      if (b.kind == ContentBlock::Kind::kToolCall && sink.on_tool_call) sink.on_tool_call(b);
    }
  }

  ProviderConfig config_;
  RetryEnv env_;
  RetryPolicy policy_;
  RequestBodyWriter body_writer_;  // after config_, which it reads
};

}  // namespace

std::string EndpointUrl(const ProviderConfig& config) {
  std::string base = TrimSlash(config.base_url);
  switch (config.api) {
    case ApiKind::kAnthropic: return base + "/v1/messages";
    case ApiKind::kOpenAiChat: return base + "/chat/completions";
    case ApiKind::kOpenAiResponses: return base + "/responses";
  }
  return base;
}

std::unique_ptr<Provider> MakeHttpProvider(const ProviderConfig& config, RetryEnv env,
                                           RetryPolicy policy) {
  return std::make_unique<HttpProvider>(config, std::move(env), policy);
}

std::unique_ptr<Provider> MakeProvider(const ProviderConfig& config) {
  return MakeHttpProvider(config, RetryEnv::Real());
}

}  // namespace sepp::llm
