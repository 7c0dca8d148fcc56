// The host side of the two capability modules that reach outside sepp's
// process: sepp:net (HTTP) and sepp:exec (programs). Defined only when the
// capability is granted (abi.h); both take a JSON request, put a JSON
// payload into result, and return its size, -1 when refused or -2 when it
// failed (the reason as the payload). Both end when the call's deadline
// passes or the turn is cancelled (HostEnv::cancel).
//
// sepp:net.http({"method","url","headers":{…},"body"}) →
//   {"status","headers":{…},"body"}: the request goes through an egress
//   proxy (sandbox/proxy.h) that holds exactly the plugin's net domains:
//   the same allowlist check as a sandboxed command's, and a destination of
//   this machine or a private network refused unless the domain is listed
//   exactly. A domain outside the grant is refused before anything is
//   resolved. Bodies up to kMaxNetBytes each way.
// sepp:exec.run({"argv":[…],"stdin","timeout_ms"}) →
//   {"exit_code","output","denials":[…]}: argv[0] must be one of the
//   plugin's exec names; the program runs through the sandbox launcher
//   (sandbox/run.h) under the plugin's own policy (ToPolicy: its file
//   grants, its network, its env names, and exec_only = exactly its exec
//   names, so a granted shell cannot start anything else either).
#pragma once
#include "wasm/runtime.h"

namespace sepp::ext::plugins {

struct HostEnv;

inline constexpr uint64_t kMaxNetBytes = 4 << 20;  // request and response body
inline constexpr uint64_t kMaxExecOutput = 1 << 20;

void DefineNet(wasm::Linker& linker, HostEnv* env);
void DefineExec(wasm::Linker& linker, HostEnv* env);

}  // namespace sepp::ext::plugins
