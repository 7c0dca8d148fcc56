// Placeholder until the sandbox command lands; replaced by its owner.
#include <cstdio>

#include "app/commands.h"

namespace sepp::app {

int RunSandboxCommand(int, char**) {
  std::fprintf(stderr, "sepp: the sandbox command is not built yet\n");
  return 1;
}

}  // namespace sepp::app
