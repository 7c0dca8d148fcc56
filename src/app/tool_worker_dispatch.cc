// `sepp __tool-worker` starts before the rest of sepp: from the first of
// the binary's static initialisers, not from main(). The session sandbox
// execs the binary once per session (tools/worker_main.h), and what every
// other command sets up before main would be spent for nothing there: the
// app layer's argument parser (CLI11 makes a dozen validators in every file
// that includes it, two with a stringstream each), the iostreams and the
// classic locale they build, and the front ends' tables. Skipping them saves
// the worker ~100k instructions and ~20 page faults of the 18 MB binary
// (bench/sandbox/RESULTS.md).
//
// Why it is safe to skip them: the worker runs only code of the layers below
// the front ends (tools and under; tests/layering keeps it so), and those
// layers have no static initialiser at all (tests/sandbox/no_static_init.sh
// checks every object of their libraries), so nothing the worker touches is
// left unmade. What remains unrun is libstdc++'s own entries, which only
// register destructors of constant-initialised objects, set guard bytes, and
// make the emergency pool for exceptions thrown when malloc fails (without
// it such a throw ends the worker, which its sandbox then restarts).
// crtbegin's frame_dummy, which registers the unwind tables that exceptions
// need in a static binary, is linked before this file and has run.
//
// This file is the first source of the sepp target (src/app/CMakeLists.txt),
// so its initialiser is the first of the app's; glibc passes the initialisers
// argc, argv and envp.
#include <cstdlib>
#include <cstring>

#include "base/undumpable.h"
#include "tools/worker_main.h"

namespace {

[[gnu::constructor]] void RunToolWorkerBeforeStaticInitialisers(int argc, char** argv, char**) {
  if (argc < 2 || std::strcmp(argv[1], sepp::tools::kToolWorkerCommand) != 0) return;
  sepp::MakeProcessUndumpable();  // as main() does first, for every command
  std::exit(sepp::tools::ToolWorkerMain());
}

}  // namespace
