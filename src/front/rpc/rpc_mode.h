// `sepp --rpc` (also `--mode rpc`): a drop-in for pi's RPC mode (pi 1.6,
// docs/rpc.md): JSONL commands on stdin, JSONL responses and events on
// stdout, nothing else on stdout.
//
// Guarantees (tests/rpc): every command line gets exactly one response, with
// its id when it has one (also an unknown command, a malformed line — its id
// is recovered from the text when possible — or a line over the size limit);
// nothing a client sends crashes sepp; a client that stops reading stdout
// cannot block the reader, so abort, clear_queue and permission answers
// still work (events wait in a bounded buffer; past it the client gets one
// `events_lost` record and the stream goes on from there); closing stdin
// aborts a running turn cleanly and exits 0 with a valid session file.
//
// Permission requests of the runtime's gate go out as pi's extension UI
// `select` dialogs (docs/rpc-extension-ui.md), which pi-acp turns into ACP
// permission requests; `extension_ui_response` answers them. sepp also
// accepts `{"type":"permission_response","requestId","choice","message"}`.
#pragma once
#include <cstddef>

#include "runtime/agent_session.h"

namespace sepp::front::rpc {

struct RpcOptions {
  int in_fd = 0;
  int out_fd = 1;
  // Readable: shut down as if stdin had ended (SIGTERM, SIGHUP). -1: none.
  int stop_fd = -1;
  size_t max_line_bytes = 64u << 20;           // one command
  size_t max_buffered_event_bytes = 64u << 20;  // events the client has not read yet
};

// Serves until stdin ends. Returns the process exit status (0).
int RunRpcMode(runtime::AgentSession& session, const RpcOptions& options = {});

}  // namespace sepp::front::rpc
