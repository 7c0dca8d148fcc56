// RFC 7807 problem details: every error `sepp serve` returns is
// application/problem+json with a stable `type` URN a client can switch on
// (urn:sepp:error:<kind>, the kinds listed in docs/serve.md), a title for
// the status and a detail that says what was wrong and what to do.
#pragma once
#include <string>
#include <string_view>

#include "base/json.h"
#include "net/http_server.h"

namespace sepp::front::serve {

// The stable kinds. New ones may be added; none is ever renamed.
namespace problem {
inline constexpr const char* kInvalidRequest = "invalid_request";
inline constexpr const char* kInvalidEnvelope = "invalid_envelope";
inline constexpr const char* kTokenInvalid = "token_invalid";
inline constexpr const char* kForbiddenHost = "forbidden_host";
inline constexpr const char* kForbiddenOrigin = "forbidden_origin";
inline constexpr const char* kNotFound = "not_found";
inline constexpr const char* kSessionNotFound = "session_not_found";
inline constexpr const char* kMethodNotAllowed = "method_not_allowed";
inline constexpr const char* kNotAcceptable = "not_acceptable";
inline constexpr const char* kUnsupportedMediaType = "unsupported_media_type";
inline constexpr const char* kUnsupportedAgent = "unsupported_agent";
inline constexpr const char* kTimeout = "timeout";
inline constexpr const char* kStreamError = "stream_error";  // the agent could not start
inline constexpr const char* kReplayUnavailable = "replay_unavailable";
inline constexpr const char* kSessionExists = "session_exists";
inline constexpr const char* kSessionEnded = "session_ended";
inline constexpr const char* kPermissionDenied = "permission_denied";  // outside the workspaces
inline constexpr const char* kConflict = "conflict";
inline constexpr const char* kPayloadTooLarge = "payload_too_large";
inline constexpr const char* kInternal = "internal";
inline constexpr const char* kStoreUnavailable = "store_unavailable";  // 503: the database is away
}  // namespace problem

// {"type":"urn:sepp:error:<kind>","title":...,"status":...,"detail":...}
// plus the members of extra (an object) when given.
Json ProblemJson(int status, std::string_view kind, std::string_view detail,
                 const Json& extra = nullptr);

// Sends it, with the extra headers (CORS) the router adds to every answer.
void SendProblem(net::ResponseWriter& w, const net::Headers& extra_headers, int status,
                 std::string_view kind, std::string_view detail, const Json& extra = nullptr);

}  // namespace sepp::front::serve
