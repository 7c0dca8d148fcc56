// Blocks SIGPIPE on this thread for a scope, for writes that go through
// write(2) inside a library (OpenSSL) where MSG_NOSIGNAL cannot be passed:
// a peer that hung up then gives EPIPE instead of killing the process. A
// SIGPIPE raised meanwhile is consumed before the mask is restored, and
// errno is left as the guarded call set it. The
// process-wide disposition is never changed (children would inherit it).
#pragma once
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>

namespace sepp {

class SigpipeBlock {
 public:
  SigpipeBlock() {
    sigemptyset(&set_);
    sigaddset(&set_, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &set_, &old_);
  }
  ~SigpipeBlock() {
    int saved = errno;  // the guarded call's, for its caller
    struct timespec zero = {0, 0};
    while (sigtimedwait(&set_, nullptr, &zero) > 0) {
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
    errno = saved;
  }
  SigpipeBlock(const SigpipeBlock&) = delete;
  SigpipeBlock& operator=(const SigpipeBlock&) = delete;

 private:
  sigset_t set_, old_;
};

}  // namespace sepp
