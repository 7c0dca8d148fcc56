// Internal to src/session: a pool of PostgreSQL connections (pool_size of
// them at most), for the threads of one server.
//
// Acquire hands out an idle connection or dials a new one; when all are in
// use it waits up to connect_timeout for one to come back. A connection that
// broke is dropped when its lease ends, and one that sat idle is checked
// first (a server that restarted or went away has closed it: its socket is
// readable), so after an outage the next request simply dials again: that
// is the reconnect. Nothing is retried behind the caller's back (a lost
// connection mid-statement leaves open whether it ran; the caller knows
// whether a retry is safe).
#pragma once
#include <condition_variable>
#include <memory>
#include <mutex>
#include <vector>

#include "base/result.h"
#include "session/pg_conn.h"

namespace sepp::session {

class PgPool {
 public:
  explicit PgPool(PgConfig config) : config_(std::move(config)) {}

  class Lease {
   public:
    Lease(PgPool* pool, std::unique_ptr<PgConn> conn) : pool_(pool), conn_(std::move(conn)) {}
    Lease(Lease&& o) noexcept = default;
    Lease& operator=(Lease&&) = delete;
    ~Lease() {
      if (pool_ && conn_) pool_->Release(std::move(conn_));
    }
    PgConn* operator->() { return conn_.get(); }
    PgConn& operator*() { return *conn_; }

   private:
    PgPool* pool_;
    std::unique_ptr<PgConn> conn_;
  };

  Result<Lease> Acquire();
  const PgConfig& config() const { return config_; }

 private:
  void Release(std::unique_ptr<PgConn> conn);

  PgConfig config_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::unique_ptr<PgConn>> idle_;
  int out_ = 0;  // connections handed out or being dialled
};

}  // namespace sepp::session
