// Placeholder until the sessions command lands; replaced by its owner.
#include <cstdio>

#include "app/commands.h"

namespace sepp::app {

int RunSessionsCommand(int, char**) {
  std::fprintf(stderr, "sepp: the sessions command is not built yet\n");
  return 1;
}

}  // namespace sepp::app
