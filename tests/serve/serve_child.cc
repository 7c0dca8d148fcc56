#include "serve/serve_child.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "../net/test_sockets.h"
#include "net/http_wire.h"

namespace sepp::servetest {
namespace {

std::string ToLowerAscii(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string Bin() { return std::string(SEPP_BINARY_DIR) + "/sepp"; }

pid_t Spawn(const std::string& cwd, const std::map<std::string, std::string>& env,
            const std::vector<std::string>& args, int out_fd, int err_fd,
            const char* command = "serve") {
  std::vector<std::string> env_s;
  if (!env.count("PATH")) env_s.push_back("PATH=/usr/bin:/bin");
  for (auto& [k, v] : env) env_s.push_back(k + "=" + v);
  std::vector<std::string> argv_s = {Bin()};
  if (command) argv_s.push_back(command);
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv, envp;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env_s) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    int null = open("/dev/null", O_RDONLY);
    dup2(null, 0);
    dup2(out_fd, 1);
    dup2(err_fd, 2);
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) _exit(126);
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  return pid;
}

}  // namespace

ServeChild::ServeChild(const std::string& cwd, const std::map<std::string, std::string>& env,
                       const std::vector<std::string>& args) {
  signal(SIGPIPE, SIG_IGN);
  int out_p[2];
  if (pipe2(out_p, O_CLOEXEC)) abort();
  char tmpl[] = "/tmp/sepp-serve-stderr-XXXXXX";
  int err = mkstemp(tmpl);
  err_path_ = tmpl;
  std::vector<std::string> all = {"--port", "0"};
  all.insert(all.end(), args.begin(), args.end());
  pid_ = Spawn(cwd, env, all, out_p[1], err);
  close(out_p[1]);
  close(err);
  // The start lines: "listening on http://H:P", then maybe "token T". The
  // deadline bounds a broken start; a healthy one prints at once.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  std::string buf;
  bool want_token = true;
  for (const auto& a : args)
    if (a == "--no-token" || a == "-n" || a == "--token" || a == "-t") want_token = false;
  while (std::chrono::steady_clock::now() < deadline) {
    bool have_port = buf.find("listening on ") != std::string::npos &&
                     buf.find('\n', buf.find("listening on ")) != std::string::npos;
    bool have_token = !want_token || (buf.find(" token ") != std::string::npos &&
                                      buf.find('\n', buf.find(" token ")) != std::string::npos);
    if (have_port && have_token) break;
    struct pollfd p = {out_p[0], POLLIN, 0};
    if (poll(&p, 1, 200) <= 0) continue;
    char tmp[512];
    ssize_t n = read(out_p[0], tmp, sizeof tmp);
    if (n <= 0) break;
    buf.append(tmp, static_cast<size_t>(n));
  }
  close(out_p[0]);
  out_text_ = buf;
  size_t at = buf.find("listening on http://");
  if (at != std::string::npos) {
    size_t colon = buf.find(':', at + 20);
    port_ = std::atoi(buf.c_str() + colon + 1);
  }
  size_t t = buf.find(" token ");
  if (t != std::string::npos) token_ = buf.substr(t + 7, buf.find(' ', t + 7) - t - 7);
  if (port_ == 0) ADD_FAILURE() << "sepp serve did not start: " << buf << stderr_text();
}

ServeChild::~ServeChild() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  unlink(err_path_.c_str());
}

std::string ServeChild::url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(port_) + path;
}

int ServeChild::Stop(double timeout_s) {
  if (pid_ <= 0) return -1;
  kill(pid_, SIGTERM);
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000));
  int status = 0;
  for (;;) {
    pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) break;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
      pid_ = -1;
      return -1;
    }
    usleep(5000);  // polling for the exit; not a synchronisation sleep
  }
  pid_ = -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string ServeChild::stderr_text() const {
  std::ifstream f(err_path_);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

int RunServeToEnd(const std::vector<std::string>& args, std::string* err) {
  char tmpl[] = "/tmp/sepp-serve-stderr-XXXXXX";
  int efd = mkstemp(tmpl);
  int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
  pid_t pid = Spawn("", {{"HOME", "/tmp"}, {"SEPP_HOME", "/tmp/sepp-serve-unused"}}, args, null,
                    efd);
  close(null);
  close(efd);
  int status = 0;
  waitpid(pid, &status, 0);
  std::ifstream f(tmpl);
  std::stringstream ss;
  ss << f.rdbuf();
  *err = ss.str();
  unlink(tmpl);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string Slurp(const char* path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

int RunSepp(const std::vector<std::string>& args, const std::map<std::string, std::string>& env,
            std::string* out, std::string* err) {
  char otmpl[] = "/tmp/sepp-api-out-XXXXXX", etmpl[] = "/tmp/sepp-api-err-XXXXXX";
  int ofd = mkstemp(otmpl), efd = mkstemp(etmpl);
  pid_t pid = Spawn("", env, args, ofd, efd, nullptr);
  close(ofd);
  close(efd);
  int status = 0;
  waitpid(pid, &status, 0);
  *out = Slurp(otmpl);
  *err = Slurp(etmpl);
  unlink(otmpl);
  unlink(etmpl);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

net::HttpResponse Fetch(const std::string& method, const std::string& url,
                        const net::Headers& headers, const std::string& body, double timeout_s) {
  net::HttpRequest r;
  r.method = method;
  r.url = url;
  r.headers = headers;
  r.body = body;
  r.proxy = "direct";
  r.read_timeout_s = timeout_s;
  auto resp = net::HttpFetch(r, nullptr);
  if (!resp.ok()) {
    ADD_FAILURE() << method << " " << url << ": " << resp.error().message;
    return {};
  }
  return *resp;
}

net::HttpResponse PostAcp(const ServeChild& s, const std::string& id, const Json& msg,
                          bool with_agent, const std::string& token) {
  net::Headers h = {{"Content-Type", "application/json"}};
  std::string t = token.empty() ? s.token() : token;
  if (!t.empty()) h.emplace_back("Authorization", "Bearer " + t);
  return Fetch("POST", s.url("/v1/acp/" + id + (with_agent ? "?agent=sepp" : "")), h, msg.dump());
}

std::string RawRequest(int port, const std::string& bytes) {
  int fd = net::testing::ConnectLocal(port);
  if (fd < 0) return "";
  net::testing::SendRaw(fd, bytes);
  std::string out;
  char buf[4096];
  for (;;) {
    struct pollfd p = {fd, POLLIN, 0};
    if (poll(&p, 1, 10000) <= 0) break;
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
    size_t head = out.find("\r\n\r\n");
    if (head == std::string::npos) continue;
    size_t cl = out.find("Content-Length: ");
    if (cl != std::string::npos && cl < head) {
      size_t len = std::stoul(out.substr(cl + 16));
      if (out.size() >= head + 4 + len) break;
    }
  }
  close(fd);
  return out;
}

int StatusOf(const std::string& raw) {
  return raw.size() > 12 ? std::atoi(raw.c_str() + 9) : 0;
}

SseRead ReadSse(const std::string& url, const net::Headers& headers,
                const std::function<bool(const SseRead&)>& done, double timeout_s) {
  // On a raw socket, closed as soon as done() holds: a client library would
  // try to read on to the end of the (endless) body.
  SseRead out;
  size_t port_at = url.find(':', 7), path_at = url.find('/', 7);
  int port = std::atoi(url.c_str() + port_at + 1);
  std::string req = "GET " + url.substr(path_at) + " HTTP/1.1\r\nHost: " +
                    url.substr(7, path_at - 7) + "\r\nAccept: text/event-stream\r\n";
  for (const auto& [k, v] : headers) req += k + ": " + v + "\r\n";
  req += "\r\n";
  int fd = net::testing::ConnectLocal(port);
  if (fd < 0) {
    ADD_FAILURE() << "cannot connect to " << url;
    return out;
  }
  net::testing::SendRaw(fd, req);
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000));
  net::SseParser parser([&](const net::SseEvent& e) { out.events.push_back(e); });
  net::ChunkedDecoder decoder;
  std::string buf, body, lines;
  bool have_head = false, chunked = false;
  size_t length = 0;  // a non-streamed answer's Content-Length
  char tmp[65536];
  for (;;) {
    if (have_head && out.status == 200 && done(out)) break;
    int left = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                    deadline - std::chrono::steady_clock::now())
                                    .count());
    struct pollfd p = {fd, POLLIN, 0};
    if (left <= 0 || poll(&p, 1, left) <= 0) {
      ADD_FAILURE() << "SSE " << url << ": timed out after " << out.events.size() << " events";
      break;
    }
    ssize_t n = recv(fd, tmp, sizeof tmp, 0);
    if (n <= 0) break;  // the server ended the stream
    buf.append(tmp, static_cast<size_t>(n));
    if (!have_head) {
      size_t end = buf.find("\r\n\r\n");
      if (end == std::string::npos) continue;
      std::string head = buf.substr(0, end);
      buf.erase(0, end + 4);
      have_head = true;
      out.status = StatusOf(head);
      std::string lower = ToLowerAscii(head);
      chunked = lower.find("transfer-encoding: chunked") != std::string::npos;
      if (size_t cl = lower.find("content-length: "); cl != std::string::npos)
        length = std::stoul(lower.substr(cl + 16));
    }
    std::string piece;
    if (chunked) {
      auto used = decoder.Feed(buf, &piece);
      if (!used.ok()) {
        ADD_FAILURE() << "bad chunked body from " << url;
        break;
      }
      buf.erase(0, *used);
    } else {
      piece.swap(buf);
    }
    if (out.status != 200) {
      out.body += piece;
      if (chunked ? decoder.done() : out.body.size() >= length) break;
      continue;
    }
    lines += piece;
    size_t nl;
    while ((nl = lines.find('\n')) != std::string::npos) {
      if (lines[0] == ':') ++out.comments;
      lines.erase(0, nl + 1);
    }
    parser.Feed(piece);
    if (chunked && decoder.done()) break;
  }
  close(fd);
  return out;
}

}  // namespace sepp::servetest
