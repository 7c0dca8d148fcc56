// Placeholder until the agent command lands; replaced by its owner.
#include <cstdio>

#include "app/commands.h"

namespace sepp::app {

int RunAgentCommand(int, char**) {
  std::fprintf(stderr, "sepp: the agent command is not built yet\n");
  return 1;
}

}  // namespace sepp::app
