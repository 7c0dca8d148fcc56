// One-shot mode's view of the event stream (sepp -p "task").
//
//   text:         the assistant's text streams to stdout; one short line per
//                 tool call goes to stderr ("⎿ read src/main.cpp").
//   json:         nothing while running; one final JSON object on stdout:
//                 {"text", "status", "turns", "usage", "session_id", ...}.
//   stream-json:  every event as one JSON line on stdout (docs/events.md).
//
// Nothing a model or a tool wrote drives the terminal (base/terminal_text.h):
// the stderr lines always show control characters visibly; the text on
// stdout does when stdout is a terminal, and is the model's raw text when it
// is a file or a pipe; JSON output escapes every control character. Secrets
// are redacted before events get here (agent/event_redactor.h).
#pragma once
#include <cstdio>
#include <string>

#include "agent/agent.h"
#include "agent/events.h"

namespace sepp::front {

enum class OutputFormat { kText, kJson, kStreamJson };

// Parses "text" | "json" | "stream-json".
bool ParseOutputFormat(const std::string& s, OutputFormat* out);

class PrintMode {
 public:
  PrintMode(OutputFormat format, std::FILE* out, std::FILE* err);

  // The agent's event sink.
  void OnEvent(const agent::Event& e);
  // Called once at the end; writes the json object, or the final newline.
  void Finish(const agent::Outcome& outcome, const std::string& session_id);

 private:
  OutputFormat format_;
  std::FILE* out_;
  std::FILE* err_;
  bool out_is_terminal_;
  bool text_open_ = false;  // stdout has text without a final newline
  bool wrote_text_ = false;
};

}  // namespace sepp::front
