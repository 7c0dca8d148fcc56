#include "front/print_mode.h"

#include "base/json.h"
#include "base/strings.h"

namespace sepp::front {

bool ParseOutputFormat(const std::string& s, OutputFormat* out) {
  if (s == "text") *out = OutputFormat::kText;
  else if (s == "json") *out = OutputFormat::kJson;
  else if (s == "stream-json") *out = OutputFormat::kStreamJson;
  else return false;
  return true;
}

PrintMode::PrintMode(OutputFormat format, std::FILE* out, std::FILE* err)
    : format_(format), out_(out), err_(err) {}

void PrintMode::OnEvent(const agent::Event& e) {
  using agent::EventType;
  // A sub-agent's own events: stream-json shows them nested (parent_call_id);
  // text shows its progress lines, which arrive as the parent call's output.
  if (!e.parent_call_id.empty() && format_ != OutputFormat::kStreamJson) return;
  if (format_ == OutputFormat::kStreamJson) {
    std::string line = DumpJson(agent::ToJson(e)) + "\n";
    std::fwrite(line.data(), 1, line.size(), out_);
    std::fflush(out_);
    return;
  }
  switch (e.type) {
    case EventType::kMessageDelta:
      if (format_ == OutputFormat::kText) {
        std::fwrite(e.text.data(), 1, e.text.size(), out_);
        std::fflush(out_);
        text_open_ = !EndsWith(e.text, "\n") || (text_open_ && e.text.empty());
        wrote_text_ = true;
      }
      break;
    case EventType::kToolStarted:
      if (text_open_) {
        std::fputc('\n', out_);
        std::fflush(out_);
        text_open_ = false;
      }
      std::fprintf(err_, "\xE2\x8E\xBF %s\n", e.summary.c_str());
      break;
    case EventType::kToolFinished:
      if (e.is_error) {
        std::string first = e.result.substr(0, e.result.find('\n'));
        if (first.size() > 160) first = first.substr(0, Utf8SafePrefix(first, 160)) + "…";
        std::fprintf(err_, "  %s: %s\n", e.denied ? "denied" : "error", first.c_str());
      }
      break;
    case EventType::kRetry:
      std::fprintf(err_, "sepp: %s; retrying\n", e.text.c_str());
      break;
    case EventType::kError:
      std::fprintf(err_, "sepp: %s\n", e.text.c_str());
      break;
    default:
      break;
  }
  std::fflush(err_);
}

void PrintMode::Finish(const agent::Outcome& outcome, const std::string& session_id) {
  if (format_ == OutputFormat::kText) {
    if (text_open_) std::fputc('\n', out_);
    std::fflush(out_);
    return;
  }
  if (format_ == OutputFormat::kJson) {
    Json j = {{"text", outcome.final_text},
              {"status", agent::ToString(outcome.status)},
              {"turns", outcome.turns},
              {"usage",
               {{"input", outcome.usage.input},
                {"output", outcome.usage.output},
                {"cache_read", outcome.usage.cache_read},
                {"cache_write", outcome.usage.cache_write}}}};
    if (!session_id.empty()) j["session_id"] = session_id;
    if (outcome.status == agent::Outcome::Status::kError) {
      j["error"] = outcome.error.message;
      j["error_kind"] = outcome.error.kind;
    }
    std::string line = DumpJson(j) + "\n";
    std::fwrite(line.data(), 1, line.size(), out_);
  }
  std::fflush(out_);
}

}  // namespace sepp::front
