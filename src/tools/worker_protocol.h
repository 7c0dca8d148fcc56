// The tool worker's protocol: framed JSON over the session sandbox's
// socketpair (docs/design.md, "The tool worker").
//
// A frame is a 4-byte big-endian length followed by that many bytes of JSON
// (one object). Frames larger than kMaxFrameBytes are refused by both ends:
// the connection is then dropped, never resynchronised.
//
//   sepp -> worker  {"type":"hello","policy":{...},"cwd":"..."}      first, once
//                   {"type":"call","id":N,"tool":"read","args":{...},
//                    "cwd":"...","stream":b}
//                   {"type":"cancel","id":N}
//                   {"type":"background","id":N}   bash leaves its command
//                                                  running as a background job
//   worker -> sepp  {"type":"output","id":N,"text":"..."}            bash's partial output
//                   {"type":"result","id":N,"text":"...","is_error":b,
//                    "truncated":b,"details":{...},"denials":[{...}]}
//                   (denials: sandbox/denial.h's DenialToJson, typed by the tool)
//
// Calls run concurrently in the worker; results come back in any order.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "base/json.h"
#include "base/result.h"
#include "sandbox/denial.h"
#include "sandbox/policy.h"

namespace sepp::tools {

inline constexpr size_t kMaxFrameBytes = 64u << 20;

// Writes one frame (all of it, retrying short writes) to a socket, without
// SIGPIPE. Error kind "eof" when the peer has closed its end (or died). Not
// thread-safe: the caller serialises writers.
Status WriteFrame(int fd, const Json& message);

// Reads one frame. Error kind "eof" when the peer closed (or died, resetting
// the connection) between frames; any other error (short frame, oversized, not JSON, not an object)
// means the connection is unusable.
Result<Json> ReadFrame(int fd);

// A frame from the worker, checked field by field: the worker runs inside
// the sandbox, so sepp treats what it sends as outside input. An error
// names what was wrong. Takes the frame by value to move its text out.
struct WorkerReply {
  enum class Kind { kOutput, kResult } kind = Kind::kResult;
  int64_t id = 0;
  std::string text;
  bool is_error = false;
  bool truncated = false;
  Json details;
  std::vector<sandbox::Denial> denials;
};
Result<WorkerReply> ParseWorkerReply(Json frame);

Json PolicyToJson(const sandbox::Policy& policy);
sandbox::Policy PolicyFromJson(const Json& j);

}  // namespace sepp::tools
