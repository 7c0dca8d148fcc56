#include "pg/pg_cluster.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <fstream>
#include <sstream>
#include <vector>

namespace sepp::pgtest {
namespace {

namespace fs = std::filesystem;

constexpr const char* kBin = "/usr/lib/postgresql/15/bin";
constexpr uid_t kNobody = 65534;

int FreePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

std::string Encode(const std::string& path) {
  std::string out;
  for (char c : path) out += c == '/' ? std::string("%2F") : std::string(1, c);
  return out;
}

}  // namespace

std::string PgCluster::MissingBinaries() {
  for (const char* b : {"initdb", "pg_ctl", "postgres"})
    if (::access((std::string(kBin) + "/" + b).c_str(), X_OK) != 0)
      return std::string(kBin) + "/" + b +
             " is missing: install Debian's postgresql (scripts/setup does)";
  return "";
}

PgCluster::PgCluster(std::string extra_conf) : extra_conf_(std::move(extra_conf)) {
  char tmpl[] = "/tmp/sepp-pg-XXXXXX";
  dir_ = ::mkdtemp(tmpl);
  if (geteuid() == 0) (void)!::chown(dir_.c_str(), kNobody, kNobody);
  port_ = FreePort();
}

PgCluster::~PgCluster() {
  (void)Stop();
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

std::string PgCluster::server_log() const {
  std::ifstream in(dir_ + "/server.log");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Status PgCluster::Run(const std::string& what, const std::vector<std::string>& argv) {
  std::string out = dir_ + "/" + what + ".out";
  pid_t pid = ::fork();
  if (pid == 0) {
    int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
    }
    if (geteuid() == 0) {
      if (fd >= 0) (void)!::fchown(fd, kNobody, kNobody);
      if (::setgid(kNobody) != 0 || ::setuid(kNobody) != 0) ::_exit(126);
    }
    ::setenv("LC_ALL", "C", 1);
    ::unsetenv("PGPASSWORD");
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return Ok();
  std::ifstream in(out);
  std::stringstream ss;
  ss << in.rdbuf();
  return Error::Make(what + " failed (status " + std::to_string(status) + "): " + ss.str() +
                     "\nserver log: " + server_log());
}

void PgCluster::GiveToServer(const std::string& path, unsigned mode) const {
  if (geteuid() == 0) (void)!::chown(path.c_str(), kNobody, kNobody);
  ::chmod(path.c_str(), mode);
}

Status PgCluster::Init() {
  std::string data = dir_ + "/data";
  if (!initialised_) {
    std::string pwfile = dir_ + "/pw";
    std::ofstream(pwfile) << kPassword << "\n";
    if (geteuid() == 0) (void)!::chown(pwfile.c_str(), kNobody, kNobody);
    if (Status s = Run("initdb", {std::string(kBin) + "/initdb", "-D", data, "-U", "sepp",
                                  "--auth-local=trust", "--auth-host=scram-sha-256",
                                  "--pwfile=" + pwfile, "-E", "UTF8", "--no-sync"});
        !s.ok())
      return s;
    std::ofstream conf(data + "/postgresql.conf", std::ios::app);
    conf << "listen_addresses = '127.0.0.1'\n"
         << "port = " << port_ << "\n"
         << "unix_socket_directories = '" << dir_ << "'\n"
         << "max_connections = 50\n"
         << "shared_buffers = 32MB\n";
    conf << extra_conf_;
    initialised_ = true;
  }
  return Ok();
}

Status PgCluster::Start() {
  if (running_) return Ok();
  if (Status s = Init(); !s.ok()) return s;
  std::string data = dir_ + "/data";
  if (Status s = Run("pg_ctl-start", {std::string(kBin) + "/pg_ctl", "-D", data, "-l",
                                      dir_ + "/server.log", "-w", "-t", "60", "start"});
      !s.ok())
    return s;
  running_ = true;
  return Ok();
}

Status PgCluster::Stop() {
  if (!running_) return Ok();
  Status s = Run("pg_ctl-stop",
                 {std::string(kBin) + "/pg_ctl", "-D", dir_ + "/data", "-m", "fast", "-w", "stop"});
  if (s.ok()) running_ = false;
  return s;
}

PgCluster* SharedCluster() {
  static std::unique_ptr<PgCluster> cluster = [] {
    if (!PgCluster::MissingBinaries().empty()) return std::unique_ptr<PgCluster>();
    auto c = std::make_unique<PgCluster>();
    if (Status s = c->Start(); !s.ok()) {
      std::fprintf(stderr, "the test PostgreSQL did not start: %s\n", s.error().message.c_str());
      std::abort();
    }
    return c;
  }();
  return cluster.get();
}

std::string PgCluster::socket_url() const {
  return "postgres://sepp@" + Encode(dir_) + ":" + std::to_string(port_) + "/postgres";
}

std::string PgCluster::tcp_url(bool with_password) const {
  return std::string("postgres://sepp") + (with_password ? std::string(":") + kPassword : "") +
         "@127.0.0.1:" + std::to_string(port_) + "/postgres";
}

}  // namespace sepp::pgtest
