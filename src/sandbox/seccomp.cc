// The seccomp filter every sandboxed process runs under. Its rules (what is
// refused and why) live in codegen/seccomp_filter_gen.cc, which compiles them
// to BPF with libseccomp at build time; here the program is plain data.
#include "sandbox/seccomp.h"

#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <iterator>

namespace sepp::sandbox {
namespace {

const sock_filter kFilter[] = {
#include "sandbox/seccomp_filter.inc"
};

}  // namespace

const sock_fprog* SeccompProgram() {
  static const sock_fprog prog{static_cast<unsigned short>(std::size(kFilter)),
                               const_cast<sock_filter*>(kFilter)};
  return &prog;
}

int InstallSeccomp(const sock_fprog* prog) {
  if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, prog, 0, 0) != 0) return errno;
  return 0;
}

bool SeccompAvailable() {
  // PR_GET_SECCOMP works everywhere; probing filter mode needs a filter, so
  // check the kernel's list of actions instead.
  return prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0 &&
         access("/proc/sys/kernel/seccomp/actions_avail", R_OK) == 0;
}

}  // namespace sepp::sandbox
