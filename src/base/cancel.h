// CancelToken: how an abort (Ctrl-C, an RPC cancel, a parent agent's abort)
// reaches a running stream, tool or child process.
//
// Thread-safe. Cancel() runs the registered callbacks once, on the thread
// that cancels; a callback registered after cancellation runs at once.
// Callbacks must be quick and must not throw (close a socket, kill a group).
#pragma once
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>

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
  int next_id_ = 0;
  std::map<int, std::function<void()>> callbacks_;
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
