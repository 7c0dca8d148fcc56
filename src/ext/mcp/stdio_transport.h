// StdioTransport: an MCP server as a held, confined child process
// (sandbox/held_child.h): newline-delimited JSON-RPC on its stdin and
// stdout, its stderr kept as diagnostics. Close() closes its stdin, gives it
// a moment to exit on its own (the spec's shutdown), then kills the whole
// process tree.
#pragma once
#include <atomic>
#include <memory>
#include <mutex>
#include <thread>

#include "base/fd.h"
#include "ext/mcp/transport.h"
#include "sandbox/held_child.h"

namespace sepp::ext::mcp {

class StdioTransport : public Transport {
 public:
  // Starts argv confined by policy, in cwd. PR_SET_PDEATHSIG ties the
  // server to the calling thread (held_child.h): call it from a thread that
  // lives as long as the server should (the main thread, typically).
  static Result<std::unique_ptr<StdioTransport>> Spawn(const sandbox::HeldSpec& spec,
                                                       const sandbox::Policy& policy);
  ~StdioTransport() override;

  void Start(OnMessage on_message, OnClosed on_closed) override;
  Status Send(const Json& message) override;
  void Close() override;
  std::string Diagnostics() const override;

  sandbox::HeldChild& child() { return *child_; }

 private:
  explicit StdioTransport(std::unique_ptr<sandbox::HeldChild> child);
  void ReadLoop();
  void AddStderr(std::string_view s);

  std::unique_ptr<sandbox::HeldChild> child_;
  UniqueFd stop_r_, stop_w_;
  OnMessage on_message_;
  OnClosed on_closed_;
  std::thread reader_;
  std::mutex send_mu_;
  mutable std::mutex diag_mu_;
  std::string stderr_tail_;
  size_t junk_lines_ = 0;
  std::atomic<bool> closed_{false};
};

}  // namespace sepp::ext::mcp
