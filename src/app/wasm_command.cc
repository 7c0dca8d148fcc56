// Placeholder until the wasm command lands; replaced by its owner.
#include <cstdio>

#include "app/commands.h"

namespace sepp::app {

int RunWasmCommand(int, char**) {
  std::fprintf(stderr, "sepp: the wasm command is not built yet\n");
  return 1;
}

}  // namespace sepp::app
