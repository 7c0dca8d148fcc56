#include "base/undumpable.h"

#include <sys/prctl.h>
#include <sys/resource.h>

namespace sepp {

void MakeProcessUndumpable() {
  prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  struct rlimit core;
  if (getrlimit(RLIMIT_CORE, &core) == 0) {
    core.rlim_cur = 0;
    setrlimit(RLIMIT_CORE, &core);
  }
}

}  // namespace sepp
