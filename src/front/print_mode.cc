#include "front/print_mode.h"

#include <unistd.h>

#include "base/json.h"
#include "base/secrets.h"
#include "base/strings.h"
#include "base/terminal_text.h"

namespace sepp::front {

namespace {

// A line for the human on stderr: redacted, control characters shown.
std::string ForHuman(std::string_view text) { return VisibleControls(Redact(text)); }

}  // namespace

bool ParseOutputFormat(const std::string& s, OutputFormat* out) {
  if (s == "text") *out = OutputFormat::kText;
  else if (s == "json") *out = OutputFormat::kJson;
  else if (s == "stream-json") *out = OutputFormat::kStreamJson;
  else return false;
  return true;
}

PrintMode::PrintMode(OutputFormat format, std::FILE* out, std::FILE* err)
    : format_(format), out_(out), err_(err), out_is_terminal_(isatty(fileno(out)) == 1) {}

void PrintMode::OnEvent(const agent::Event& e) {
  using agent::EventType;
  // A sub-agent's own events: stream-json shows them nested (parent_call_id);
  // text shows its progress lines, which arrive as the parent call's output.
  if (!e.parent_call_id.empty() && format_ != OutputFormat::kStreamJson) return;
  if (format_ == OutputFormat::kStreamJson) {
    // Events from the agent come redacted; this also covers any a front end
    // makes itself (session.started).
    std::string line = EscapeJsonControls(Redact(DumpJson(agent::ToJson(e)))) + "\n";
    std::fwrite(line.data(), 1, line.size(), out_);
    std::fflush(out_);
    return;
  }
  switch (e.type) {
    case EventType::kMessageDelta:
      if (format_ == OutputFormat::kText) {
        // Raw into a file or pipe (the documented contract), shown safely on a terminal.
        std::string text = out_is_terminal_ ? VisibleControls(e.text) : e.text;
        std::fwrite(text.data(), 1, text.size(), out_);
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
      std::fprintf(err_, "\xE2\x8E\xBF %s\n", ForHuman(e.summary).c_str());
      break;
    case EventType::kToolFinished:
      if (e.is_error) {
        std::string first = e.result.substr(0, e.result.find('\n'));
        if (first.size() > 160) first = first.substr(0, Utf8SafePrefix(first, 160)) + "…";
        std::fprintf(err_, "  %s: %s\n", e.denied ? "denied" : "error", ForHuman(first).c_str());
      }
      break;
    case EventType::kRetry:
      std::fprintf(err_, "sepp: %s; retrying\n", ForHuman(e.text).c_str());
      break;
    case EventType::kError:
      std::fprintf(err_, "sepp: %s\n", ForHuman(e.text).c_str());
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
    // Events come redacted from the agent; the outcome is redacted here.
    Json j = {{"text", Redact(outcome.final_text)},
              {"status", agent::ToString(outcome.status)},
              {"turns", outcome.turns},
              {"usage",
               {{"input", outcome.usage.input},
                {"output", outcome.usage.output},
                {"cache_read", outcome.usage.cache_read},
                {"cache_write", outcome.usage.cache_write}}}};
    if (!session_id.empty()) j["session_id"] = session_id;
    if (outcome.status == agent::Outcome::Status::kError) {
      j["error"] = Redact(outcome.error.message);
      j["error_kind"] = outcome.error.kind;
    }
    std::string line = EscapeJsonControls(DumpJson(j)) + "\n";
    std::fwrite(line.data(), 1, line.size(), out_);
  }
  std::fflush(out_);
}

}  // namespace sepp::front
