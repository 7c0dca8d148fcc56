// sepp:exec (capability_hosts.h): a declared program, run by the sandbox
// launcher under the plugin's own policy.
#include <algorithm>
#include <chrono>

#include "ext/plugins/abi.h"
#include "ext/plugins/capability_hosts.h"
#include "sandbox/run.h"

namespace sepp::ext::plugins {
namespace {
using wasm::HostCall;
using wasm::HostFunc;

Error Trap(std::string m) { return Error::Make(std::move(m), "trap"); }

int32_t Exec(HostEnv& env, const std::string& text) {
  std::string& result = env.io->result;
  auto req = ParseJson(text);
  const Json* argv = req.ok() && req->is_object() && req->contains("argv") ? &(*req)["argv"] : nullptr;
  if (!argv || !argv->is_array() || argv->empty() ||
      !std::all_of(argv->begin(), argv->end(), [](const Json& a) { return a.is_string(); })) {
    result = "sepp:exec.run: the request must be a JSON object with \"argv\", a non-empty list of strings";
    return -2;
  }
  sandbox::RunSpec spec;
  for (const auto& a : *argv) spec.argv.push_back(a.get<std::string>());
  const auto& allowed = env.granted.exec;
  if (std::find(allowed.begin(), allowed.end(), spec.argv[0]) == allowed.end()) {
    result = spec.argv[0] + " is not among the plugin's granted exec programs";
    return -1;
  }
  spec.cwd = env.workspace;
  spec.stdin_data = req->value("stdin", std::string());
  double left = std::chrono::duration<double>(env.deadline - std::chrono::steady_clock::now()).count();
  double asked = req->value("timeout_ms", 0.0) / 1000.0;
  spec.timeout_s = std::max(0.001, asked > 0 ? std::min(asked, left) : left);
  sandbox::Policy policy = ToPolicy(env.granted, env.workspace);
  // sepp's provider keys reach no extension's program, whatever it declared.
  for (auto* names : {&policy.env_allow, &policy.env_allow_secrets})
    names->erase(std::remove_if(names->begin(), names->end(), IsProviderKey), names->end());
  std::string output;
  bool truncated = false;
  auto run = sandbox::Run(spec, policy, [&](std::string_view chunk) {
    size_t room = kMaxExecOutput - std::min<size_t>(output.size(), kMaxExecOutput);
    if (chunk.size() > room) truncated = true;
    output.append(chunk.substr(0, room));
  }, env.cancel);
  if (!run.ok()) {
    result = "sepp:exec.run: " + run.error().message;
    return -2;
  }
  if (truncated) output += "\n[output truncated at 1 MiB]";
  Json denials = Json::array();
  for (const auto& d : run->denials) denials.push_back(d.text);
  result = DumpJson({{"exit_code", run->exit_code},
                     {"signal", run->term_signal},
                     {"timed_out", run->timed_out},
                     {"output", output},
                     {"denials", denials}});
  return static_cast<int32_t>(result.size());
}

}  // namespace

void DefineExec(wasm::Linker& linker, HostEnv* env) {
  linker.DefineFunc("sepp:exec", "run", HostFunc::Make([env](HostCall& c, int32_t p, int32_t n) -> Result<int32_t> {
    if (!c.memory) return Trap("sepp:exec.run: the plugin has no memory");
    if (n < 0 || n > (1 << 20)) return Trap("sepp:exec.run: bad request length " + std::to_string(n));
    auto text = c.memory->ReadString(static_cast<uint32_t>(p), static_cast<uint32_t>(n));
    if (!text.ok()) return Trap("sepp:exec.run: " + text.error().message);
    return Exec(*env, *text);
  }));
}

}  // namespace sepp::ext::plugins
