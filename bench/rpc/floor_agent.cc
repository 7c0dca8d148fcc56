// The floor under any RPC agent's turn on this machine: a stand-in agent
// that does nothing but what every agent must, so that bench/rpc can show
// how much of a measured turn is the exchange itself and not the harness.
//
// It reads JSONL commands on stdin and, for each prompt, answers as sepp
// --rpc and pi do at the least: a response line, an agent_start line, one
// POST of a fixed body (FLOOR_BODY, a file: a request sepp sent) to the
// fake provider over one kept-alive loopback connection with TCP_NODELAY,
// the streamed answer read to its last chunk, a second POST when the answer
// was a tool call (no tool is run), then an agent_settled line. No JSON is
// parsed or built, no thread is woken, nothing is allocated per turn beyond
// the read buffer. Any other command gets a success response.
//
// Usage: OPENAI_BASE_URL=http://127.0.0.1:PORT/v1 FLOOR_BODY=file floor_agent
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

namespace {

[[noreturn]] void Die(const std::string& why) {
  std::fprintf(stderr, "floor_agent: %s\n", why.c_str());
  std::exit(1);
}

void WriteAll(int fd, const std::string& s) {
  size_t done = 0;
  while (done < s.size()) {
    ssize_t n = write(fd, s.data() + done, s.size() - done);
    if (n <= 0) Die("write failed");
    done += static_cast<size_t>(n);
  }
}

int Connect(int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) Die("cannot connect to the fake");
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

// One POST, the chunked answer read to its terminating chunk. Returns the
// answer (head and body, undecoded).
std::string Exchange(int fd, const std::string& request) {
  WriteAll(fd, request);
  std::string in;
  char buf[65536];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) Die("the fake closed the connection");
    in.append(buf, static_cast<size_t>(n));
    if (in.size() >= 5 && in.compare(in.size() - 5, 5, "0\r\n\r\n") == 0) return in;
  }
}

}  // namespace

int main() {
  const char* base = std::getenv("OPENAI_BASE_URL");
  const char* body_file = std::getenv("FLOOR_BODY");
  if (!base || !body_file) Die("set OPENAI_BASE_URL (http://127.0.0.1:PORT/v1) and FLOOR_BODY");
  const char* colon = std::strrchr(base, ':');
  if (!colon) Die("OPENAI_BASE_URL has no port");
  int port = std::atoi(colon + 1);
  std::ifstream f(body_file, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  std::string body = ss.str();
  if (body.empty()) Die("FLOOR_BODY is empty");
  std::string request = "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                        "content-type: application/json\r\naccept: text/event-stream\r\n"
                        "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  int conn = Connect(port);
  std::string line;
  while (std::getline(std::cin, line)) {
    std::string id;
    if (size_t k = line.find("\"id\":\""); k != std::string::npos)
      id = line.substr(k + 6, line.find('"', k + 6) - (k + 6));
    std::string with_id = id.empty() ? "" : ",\"id\":\"" + id + "\"";
    if (line.find("\"type\":\"prompt\"") == std::string::npos) {
      WriteAll(1, "{\"type\":\"response\",\"success\":true" + with_id + "}\n");
      continue;
    }
    WriteAll(1, "{\"type\":\"response\",\"command\":\"prompt\",\"success\":true" + with_id + "}\n");
    WriteAll(1, "{\"type\":\"agent_start\"}\n");
    for (int call = 0; call < 8; ++call)  // a model that keeps calling tools is cut off
      if (Exchange(conn, request).find("\"tool_calls\"") == std::string::npos) break;
    WriteAll(1, "{\"type\":\"agent_settled\"}\n");
  }
  close(conn);
  return 0;
}
