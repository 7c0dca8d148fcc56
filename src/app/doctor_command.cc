// `sepp doctor`: what this machine offers the sandbox, and whether a
// confined command actually runs (it starts `true` under the default policy).
// Exit status 0 when the sandbox works here, 1 when it does not.
#include <CLI/CLI.hpp>

#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "app/commands.h"
#include "base/json.h"
#include "sandbox/defaults.h"
#include "sandbox/probe.h"
#include "sandbox/run.h"

namespace sepp::app {
namespace {

const char* LandlockFeatures(int abi) {
  switch (abi) {
    case 0: return "unavailable";
    case 1: return "file access rights";
    case 2: return "file rights, cross-folder links and renames";
    case 3: return "file rights, refer, truncate";
    case 4: return "file rights, refer, truncate, TCP bind/connect";
    case 5: return "file rights, refer, truncate, TCP bind/connect, device ioctls";
    default: return "file rights, refer, truncate, TCP bind/connect, device ioctls, "
                    "abstract unix socket and signal scoping";
  }
}

}  // namespace

int RunDoctorCommand(int argc, char** argv) {
  CLI::App app{"Report what this machine supports for sepp's sandbox.", "sepp doctor"};
  bool json = false;
  app.add_flag("--json", json, "print the report as JSON");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  sandbox::KernelSupport k = sandbox::ProbeKernel();
  // End to end: run `true` confined by the default policy in a fresh empty
  // folder (not /tmp itself: the policy looks through its workspace and
  // makes a protected .sepp/ there).
  std::string live_error;
  {
    std::string tmpl = (std::filesystem::temp_directory_path() / "sepp-doctor-XXXXXX").string();
    sandbox::RunSpec spec;
    spec.argv = {"true"};
    if (!mkdtemp(tmpl.data())) {
      live_error = "cannot make a folder in " + std::filesystem::temp_directory_path().string();
    } else {
      spec.cwd = tmpl;
      sandbox::Policy p = sandbox::DefaultToolPolicy(spec.cwd);
      auto r = sandbox::Run(spec, p, nullptr, nullptr);
      if (!r.ok()) live_error = r.error().message;
      else if (r->exit_code != 0) live_error = "`true` exited with " + std::to_string(r->exit_code);
      std::error_code ec;
      std::filesystem::remove_all(tmpl, ec);
    }
  }
  bool ok = live_error.empty();

  if (json) {
    Json j = {{"kernel", k.kernel},
              {"landlock_abi", k.landlock_abi},
              {"namespaces", k.namespaces},
              {"seccomp", k.seccomp},
              {"running_as_root", k.running_as_root},
              {"pids_cgroup", k.pids_cgroup},
              {"cgroup_controllers", k.cgroup_controllers},
              {"sandbox_works", ok}};
    if (!ok) j["error"] = live_error;
    if (!k.namespaces) j["namespaces_error"] = k.namespaces_why;
    std::printf("%s\n", j.dump(2).c_str());
    return ok ? 0 : 1;
  }

  auto yes = [](bool b) { return b ? "yes" : "NO"; };
  std::printf("sepp doctor: sandbox support on this machine\n\n");
  std::printf("  kernel              %s\n", k.kernel.c_str());
  std::printf("  Landlock            ABI %d (%s)\n", k.landlock_abi, LandlockFeatures(k.landlock_abi));
  std::printf("  user namespaces     %s (user, mount, pid, ipc, uts, net, cgroup)\n", yes(k.namespaces));
  if (!k.namespaces) std::printf("                      %s\n", k.namespaces_why.c_str());
  std::printf("  seccomp filters     %s\n", yes(k.seccomp));
  std::printf("  running as root     %s%s\n", k.running_as_root ? "yes" : "no",
              k.running_as_root ? " (commands keep uid 0 without any capability)" : "");
  std::printf("  process limit       %s\n",
              !k.pids_cgroup.empty() ? ("pids cgroup under " + k.pids_cgroup).c_str()
              : k.running_as_root   ? "NONE (root is not bound by RLIMIT_NPROC; policies with "
                                      "limits.processes will be refused)"
                                    : "RLIMIT_NPROC (per user namespace)");
  std::string ctl;
  for (const auto& c : k.cgroup_controllers) ctl += (ctl.empty() ? "" : ", ") + c;
  std::printf("  cgroup controllers  %s\n", ctl.empty() ? "none visible" : ctl.c_str());
  std::printf("  network proxy mode  %s\n",
              k.landlock_abi >= 4 ? "possible (Landlock confines TCP)" : "NO (needs Landlock ABI 4)");
  std::printf("\n  confined test run   %s\n", ok ? "ok" : ("FAILED: " + live_error).c_str());
  if (!ok)
    std::printf("\nThe sandbox does not work here; sepp refuses to run tools until it does "
                "(or until you choose `--sandbox off`).\n");
  return ok ? 0 : 1;
}

}  // namespace sepp::app
