// `sepp __tool-worker` starts from the first static initialiser of the app
// and never lets the others run (src/app/tool_worker_dispatch.cc). That is
// only sound while no code the worker runs relies on one: every object of
// the libraries of the tools layer and below must have no .init_array (nor
// .ctors) section, whatever made it (a namespace-scope object with a
// constructor, an inline variable, __attribute__((constructor))). State that
// needs a constructor is made at first use instead (a function-local
// static), as sandbox/orphan_reaper.cc and tools/tool_worker.cc do.
#include <gtest/gtest.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::vector<std::string> WorkerLibraries() {
  std::vector<std::string> out;
  std::stringstream in(SEPP_WORKER_LIBS);
  for (std::string lib; std::getline(in, lib, ':');)
    if (!lib.empty()) out.push_back(lib);
  return out;
}

// "lib.a(member.o)" of every member with an initialiser section.
std::vector<std::string> MembersWithInitialisers(const std::string& lib, bool* read) {
  std::vector<std::string> found;
  std::string cmd = "readelf -SW '" + lib + "' 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return found;
  std::string member, line;
  char buf[4096];
  int sections = 0;
  while (fgets(buf, sizeof buf, p)) {
    line = buf;
    if (line.rfind("File: ", 0) == 0) {
      member = line.substr(6, line.find_last_not_of("\n") - 5);
      continue;
    }
    if (line.find("] .") != std::string::npos) ++sections;
    for (const char* s : {"] .init_array", "] .ctors", "] .preinit_array"})
      if (line.find(s) != std::string::npos) found.push_back(member);
  }
  *read = pclose(p) == 0 && sections > 0;
  return found;
}

TEST(StaticInitialisers, NoneInTheLayersTheToolWorkerRuns) {
  std::vector<std::string> libs = WorkerLibraries();
  ASSERT_GE(libs.size(), 5u) << SEPP_WORKER_LIBS;
  for (const auto& lib : libs) {
    bool read = false;
    std::vector<std::string> members = MembersWithInitialisers(lib, &read);
    ASSERT_TRUE(read) << "readelf could not read " << lib;
    for (const auto& m : members)
      ADD_FAILURE() << m << " has a static initialiser; the tool worker starts before those run "
                       "(src/app/tool_worker_dispatch.cc): make that state at first use instead "
                       "(a function-local static)";
  }
}

}  // namespace
