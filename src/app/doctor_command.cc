// Placeholder until the doctor command lands; replaced by its owner.
#include <cstdio>

#include "app/commands.h"

namespace sepp::app {

int RunDoctorCommand(int, char**) {
  std::fprintf(stderr, "sepp: the doctor command is not built yet\n");
  return 1;
}

}  // namespace sepp::app
