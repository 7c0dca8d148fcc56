// CancelToken: how an abort (Ctrl-C, an RPC cancel, a parent agent's abort)
// reaches a running stream, tool or child process.
//
// Thread-safe. Cancel() runs the registered callbacks once, on the thread
// that cancels; a callback registered after cancellation runs at once.
// Callbacks must be quick and must not throw (close a socket, kill a group).
//
// Destroying a Registration unregisters its callback and, if Cancel() is
// running that very callback on another thread, waits until it has
// returned: once the destructor is done the callback neither runs nor will,
// so what it uses (a pid, an fd) may be released right after. (A callback
// that destroys its own registration does not wait for itself.)
#pragma once
#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace sepp {

class CancelToken {
 public:
  CancelToken() = default;
  CancelToken(const CancelToken&) = delete;
  CancelToken& operator=(const CancelToken&) = delete;

  void Cancel();
  bool cancelled() const { return cancelled_.load(std::memory_order_acquire); }

  // Returns a handle; destroying it unregisters the callback.
  class Registration;
  [[nodiscard]] std::unique_ptr<Registration> OnCancel(std::function<void()> fn);

  // A child token cancelled when this one is (but not the other way round):
  // for sub-agents and per-call scopes.
  std::shared_ptr<CancelToken> Child();

 private:
  friend class Registration;
  void Unregister(int id);

  std::atomic<bool> cancelled_{false};
  std::mutex mu_;
  std::condition_variable done_running_;
  int next_id_ = 0;
  std::map<int, std::function<void()>> callbacks_;
  int running_id_ = -1;               // the callback Cancel() runs now, if any
  std::thread::id running_thread_;
  std::vector<std::unique_ptr<Registration>> child_links_;
};

class CancelToken::Registration {
 public:
  Registration(CancelToken* token, int id) : token_(token), id_(id) {}
  ~Registration() {
    if (token_) token_->Unregister(id_);
  }
  Registration(const Registration&) = delete;
  Registration& operator=(const Registration&) = delete;

 private:
  CancelToken* token_;
  int id_;
};

}  // namespace sepp
