// A real OpenSSH server for one test: `sshd -D -e -f <generated config>` on
// a loopback port, with a host key and one authorized client key made for
// it in the test's folder, logging in only the user the test runs as (no
// PAM, no passwords, StrictModes off: the keys live in a temporary
// folder). Its log (LogLevel VERBOSE, read from stderr) says which
// connections and logins it saw. Stopped (TERM, then reaped) with the
// object, with every sshd of the connections (one process group).
//
// Absent sshd (openssh-server not installed) is not an error here:
// Find() returns "" and the test skips with a message; scripts/setup
// installs it, so CI runs the test.
#pragma once
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <arpa/inet.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <string>
#include <thread>

namespace sepp::testing_git {

class PrivateSshd {
 public:
  // The sshd binary: /usr/sbin/sshd, else one on PATH; "" when absent.
  static std::string Find() {
    if (access("/usr/sbin/sshd", X_OK) == 0) return "/usr/sbin/sshd";
    const char* path = std::getenv("PATH");
    std::string rest = path ? path : "";
    while (!rest.empty()) {
      std::string dir = rest.substr(0, rest.find(':'));
      rest = rest.find(':') == std::string::npos ? "" : rest.substr(rest.find(':') + 1);
      std::string f = dir + "/sshd";
      if (!dir.empty() && dir[0] == '/' && access(f.c_str(), X_OK) == 0) return f;
    }
    return "";
  }

  // Makes the keys and the config in dir and starts the server; error()
  // says what failed when it did not come up.
  PrivateSshd(const std::string& sshd, const std::filesystem::path& dir) : dir_(dir) {
    std::filesystem::create_directories(dir_);
    struct passwd* pw = getpwuid(geteuid());
    user_ = pw && pw->pw_name ? pw->pw_name : "root";
    for (const char* key : {"host_key", "client_key"}) {
      std::string cmd = "ssh-keygen -q -t ed25519 -N '' -C sepp-test -f '" + (dir_ / key).string() +
                        "' </dev/null >/dev/null 2>&1";
      if (std::system(cmd.c_str()) != 0) {
        error_ = "ssh-keygen failed (is openssh-client installed?)";
        return;
      }
    }
    host_public_key_ = Trim(Slurp(dir_ / "host_key.pub"));
    std::filesystem::copy_file(dir_ / "client_key.pub", dir_ / "authorized_keys");
    // Root's sshd needs its privilege separation folder; the distribution's
    // service makes it at boot, and it is the same one (empty, root's).
    if (geteuid() == 0) mkdir("/run/sshd", 0755);
    // A port the kernel says is free; another process may take it before
    // sshd binds, so a failed bind is tried again with a new one.
    for (int attempt = 0; attempt < 5 && port_ == 0; ++attempt) {
      int port = FreeLoopbackPort();
      WriteConfig(port);
      if (Start(sshd) && WaitListening()) {
        port_ = port;
        return;
      }
      Stop();
      if (log().find("Address already in use") == std::string::npos) break;
    }
    error_ = "sshd did not start: " + log();
  }
  ~PrivateSshd() { Stop(); }
  PrivateSshd(const PrivateSshd&) = delete;
  PrivateSshd& operator=(const PrivateSshd&) = delete;

  const std::string& error() const { return error_; }
  int port() const { return port_; }
  const std::string& user() const { return user_; }
  // "ssh-ed25519 AAAA… sepp-test": the line to put in a known_hosts file
  // after "[localhost]:PORT ".
  const std::string& host_public_key() const { return host_public_key_; }
  std::filesystem::path client_key() const { return dir_ / "client_key"; }
  std::string client_public_key() const { return Trim(Slurp(dir_ / "client_key.pub")); }
  // How often the log has said what, so far.
  int Count(const std::string& what) {
    std::lock_guard<std::mutex> lock(mu_);
    return CountLocked(what);
  }
  // Until the log has said what n times (sshd has written it before the
  // client saw the result, but the reader thread may not have read it
  // yet); false if it never does.
  bool WaitFor(const std::string& what, int n) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, std::chrono::seconds(30), [&] { return CountLocked(what) >= n || exited_; }) &&
           CountLocked(what) >= n;
  }
  std::string log() {
    std::lock_guard<std::mutex> lock(mu_);
    return log_;
  }

 private:
  static std::string Slurp(const std::filesystem::path& p) {
    std::ifstream in(p);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  static std::string Trim(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
    return s;
  }
  int CountLocked(const std::string& what) const {
    int n = 0;
    for (size_t at = log_.find(what); at != std::string::npos; at = log_.find(what, at + 1)) ++n;
    return n;
  }
  static int FreeLoopbackPort() {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    socklen_t len = sizeof a;
    getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    close(fd);
    return ntohs(a.sin_port);
  }
  void WriteConfig(int port) {
    std::ofstream(dir_ / "sshd_config")
        << "ListenAddress 127.0.0.1\n"
        << "Port " << port << "\n"
        << "HostKey " << (dir_ / "host_key").string() << "\n"
        << "AuthorizedKeysFile " << (dir_ / "authorized_keys").string() << "\n"
        << "AllowUsers " << user_ << "\n"
        << "PidFile none\nUsePAM no\nStrictModes no\nPasswordAuthentication no\n"
        << "KbdInteractiveAuthentication no\nPubkeyAuthentication yes\n"
        << "PermitRootLogin prohibit-password\nAllowTcpForwarding no\nX11Forwarding no\n"
        << "PrintMotd no\nLogLevel VERBOSE\n";
  }
  bool Start(const std::string& sshd) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      log_.clear();
      listening_ = exited_ = false;
    }
    int err[2];
    if (pipe2(err, O_CLOEXEC) != 0) return false;
    std::string config = (dir_ / "sshd_config").string();
    pid_ = fork();
    if (pid_ == 0) {
      setpgid(0, 0);  // its own group: Stop ends the connections' sshd too
      dup2(err[1], 2);
      int null = open("/dev/null", O_RDWR);
      dup2(null, 0);
      dup2(null, 1);
      // sshd re-executes itself, so it needs its absolute path.
      execl(sshd.c_str(), sshd.c_str(), "-D", "-e", "-f", config.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    close(err[1]);
    if (pid_ < 0) {
      close(err[0]);
      return false;
    }
    reader_ = std::thread([this, fd = err[0]] {
      char buf[4096];
      for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) {
        std::lock_guard<std::mutex> lock(mu_);
        log_.append(buf, static_cast<size_t>(n));
        if (log_.find("Server listening on") != std::string::npos) listening_ = true;
        cv_.notify_all();
      }
      close(fd);
      std::lock_guard<std::mutex> lock(mu_);
      exited_ = true;
      cv_.notify_all();
    });
    return true;
  }
  // Until sshd says it listens, or exits (a generous bound for a loaded
  // machine: nothing waits this long when sshd works or fails).
  bool WaitListening() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, std::chrono::seconds(60), [this] { return listening_ || exited_; });
    return listening_;
  }
  void Stop() {
    if (pid_ > 0) {
      kill(-pid_, SIGTERM);
      int st;
      waitpid(pid_, &st, 0);
      pid_ = -1;
    }
    if (reader_.joinable()) reader_.join();
  }

  std::filesystem::path dir_;
  std::string user_, host_public_key_, error_;
  int port_ = 0;
  pid_t pid_ = -1;
  std::thread reader_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::string log_;
  bool listening_ = false, exited_ = false;
};

}  // namespace sepp::testing_git
