// A throwaway PostgreSQL server for tests and benchmarks: Debian's
// postgresql-15 binaries (initdb, pg_ctl) make a cluster in a temp folder,
// listening on a unix socket in that folder and on a loopback port.
// PostgreSQL refuses to run as root, so under root the server runs as
// "nobody" (the folder is given to it); as a normal user, as that user.
//
// Local (socket) connections are trusted; TCP ones need the password
// (SCRAM-SHA-256). The superuser is "sepp", the database "postgres".
#pragma once
#include <string>
#include <vector>

#include "base/result.h"

namespace sepp::pgtest {

class PgCluster {
 public:
  // "" when the binaries are there, else what is missing (for GTEST_SKIP).
  static std::string MissingBinaries();

  // Lines for postgresql.conf. Tests turn durability off (nothing here
  // outlives the test); the benchmark measures the defaults and
  // synchronous_commit = off.
  static constexpr const char* kTestConf =
      "fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n";
  explicit PgCluster(std::string extra_conf = kTestConf);
  ~PgCluster();  // stops the server, removes the folder

  // initdb and postgresql.conf, once; Start does it when not done. Files
  // the conf names by relative paths go in data_dir() between the two.
  Status Init();
  Status Start();  // Init on first use, then pg_ctl start (waits until ready)
  Status Stop();   // pg_ctl stop -m fast (waits until gone)

  int port() const { return port_; }
  static constexpr const char* kPassword = "pg-test-password-7f3a";
  // postgres://sepp@<socket folder>:<port>/postgres (trust).
  std::string socket_url() const;
  // postgres://sepp@127.0.0.1:<port>/postgres (password from PGPASSWORD or
  // the url; SCRAM).
  std::string tcp_url(bool with_password) const;
  const std::string& dir() const { return dir_; }
  std::string data_dir() const { return dir_ + "/data"; }
  // Makes path the server's own (under root the server runs as nobody),
  // with mode: for files it must read, such as a TLS key (0600).
  void GiveToServer(const std::string& path, unsigned mode) const;
  std::string server_log() const;

 private:
  Status Run(const std::string& what, const std::vector<std::string>& argv);

  std::string extra_conf_;
  std::string dir_;
  int port_ = 0;
  bool initialised_ = false;
  bool running_ = false;
};

// One cluster for the whole test binary, started on first use (initdb takes
// seconds) and stopped at exit; nullptr when the binaries are missing.
PgCluster* SharedCluster();

}  // namespace sepp::pgtest
