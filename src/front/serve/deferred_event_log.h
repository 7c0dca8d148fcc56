// DeferredEventLog: the server's event log, opened on a thread of its own
// while the server starts listening, so `/v1/health` never waits for it.
//
// Creating the SQLite store in a fresh $SEPP_HOME costs four or five fsyncs
// (~200 ms on a loaded disk: bench/serve/RESULTS.md); an existing one opens
// in microseconds. Every call waits for the open to finish and then goes to
// the real log, so a request that needs the store never fails or races
// because it came early: it is only as slow as the open. When the open
// failed, every call answers its error (the routes turn that into 503
// store_unavailable). Durability is the real log's: nothing is written
// before it is open.
//
// Waiters on appends (WaitForAppend) are woken by this log's own appends;
// use it for the SQLite log, whose appends all come through this process
// (PostgreSQL's announcements from other servers arrive on the real log).
#pragma once
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "session/event_log.h"

namespace sepp::front::serve {

class DeferredEventLog : public session::EventLog {
 public:
  using Opener = std::function<Result<std::unique_ptr<session::EventLog>>()>;
  // Starts open() on its own thread now.
  DeferredEventLog(std::string kind, Opener open);
  ~DeferredEventLog() override;  // joins the opening thread

  // Blocks until the open is done; its error, if it failed.
  Status Ready();

  std::string_view kind() const override { return kind_; }
  std::string location() const override;
  Status Append(std::string_view stream, int64_t seq, int64_t time_ms, std::string_view data) override;
  Result<int64_t> AppendNext(std::string_view stream, int64_t time_ms, std::string_view data) override;
  Result<std::vector<session::LoggedEvent>> Read(std::string_view stream, int64_t after,
                                                 size_t limit) override;
  Result<int64_t> Count(std::string_view stream, int64_t after, int64_t upto) override;
  Result<int64_t> LastSeq(std::string_view stream) override;
  Status AddSession(const std::string& id, const Json& record) override;
  Status UpdateSession(const std::string& id, const Json& record) override;
  Result<std::vector<Json>> Sessions() override;

 private:
  // The real log once open, else the open's error.
  Result<session::EventLog*> Log();

  const std::string kind_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::unique_ptr<session::EventLog> log_;
  std::optional<Error> error_;
  std::thread opener_;
};

}  // namespace sepp::front::serve
