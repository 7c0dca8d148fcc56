// GET /v1/processes/{id}/terminal/ws: a tty process's terminal over a
// WebSocket, in sandbox-agent 0.4.2's frames:
//   server -> client  binary frames: the terminal's output, raw; text frames
//                     {"type":"ready","processId"} once, {"type":"exit",
//                     "exitCode"} at the end (then a 1000 close), and
//                     {"type":"error","message"} for a frame it could not use
//   client -> server  text frames {"type":"input","data","encoding"?}
//                     (encoding "utf8", the default, or "base64"),
//                     {"type":"resize","cols","rows"}, {"type":"close"};
//                     a binary frame is typed as it is
// The output the log still holds is sent first, so a client that connects
// after the shell printed its prompt sees it. The relay runs on the HTTP
// core's worker thread: it waits on the socket and on an eventfd the
// process's reader writes for every new piece of output and at the exit.
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>

#include "base/base64.h"
#include "base/json.h"
#include "front/serve/problem.h"
#include "front/serve/process_hub.h"
#include "front/serve/process_proc.h"
#include "net/websocket.h"

namespace sepp::front::serve {
namespace {

std::string Frame(const Json& j) { return DumpJson(j); }

std::string ErrorFrame(std::string_view message) { return Frame({{"type", "error"}, {"message", message}}); }

// Registers an eventfd with the process for as long as the relay runs.
class Watch {
 public:
  explicit Watch(ProcessHub::Proc& p) : p_(p), fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
    std::lock_guard<std::mutex> lock(p_.mu);
    p_.watchers.push_back(fd_.get());
  }
  ~Watch() {
    std::lock_guard<std::mutex> lock(p_.mu);
    p_.watchers.erase(std::remove(p_.watchers.begin(), p_.watchers.end(), fd_.get()), p_.watchers.end());
  }
  bool valid() const { return fd_.valid(); }
  int fd() const { return fd_.get(); }
  void Reset() {
    uint64_t count;
    (void)!read(fd_.get(), &count, sizeof count);
  }

 private:
  ProcessHub::Proc& p_;
  UniqueFd fd_;
};

// What one client frame asks; false once the client asked to close.
bool Apply(ProcessHub::Proc& p, net::WebSocketConn& ws, const net::WsDecoder::Event& ev, int64_t max_input) {
  std::string input;
  if (ev.opcode == net::WsOpcode::kBinary) {
    input = ev.payload;
  } else {
    auto j = ParseJson(ev.payload);
    if (!j.ok() || !j->is_object() || !j->contains("type") || !(*j)["type"].is_string()) {
      ws.SendText(ErrorFrame("a control frame is a JSON object with \"type\": input, resize or close"));
      return true;
    }
    std::string type = (*j)["type"].get<std::string>();
    if (type == "close") return false;
    if (type == "resize") {
      auto size = [&](const char* key) -> int64_t {
        auto it = j->find(key);
        if (it == j->end() || !it->is_number_integer()) return -1;
        int64_t n = it->get<int64_t>();
        return n >= 1 && n <= 65535 ? n : -1;
      };
      int64_t cols = size("cols"), rows = size("rows");
      if (cols < 0 || rows < 0) {
        ws.SendText(ErrorFrame("resize needs \"cols\" and \"rows\", each an integer from 1 to 65535"));
        return true;
      }
      std::lock_guard<std::mutex> lock(p.mu);
      if (!p.running) return true;
      if (Status st = SetWindowSize(p.master.get(), cols, rows); !st.ok()) ws.SendText(ErrorFrame(st.error().message));
      return true;
    }
    if (type != "input") {
      ws.SendText(ErrorFrame("unknown frame type \"" + type.substr(0, 40) + "\": input, resize or close"));
      return true;
    }
    if (!j->contains("data") || !(*j)["data"].is_string()) {
      ws.SendText(ErrorFrame("input needs \"data\": a string"));
      return true;
    }
    input = (*j)["data"].get<std::string>();
    std::string encoding = j->value("encoding", "utf8");
    if (encoding == "base64") {
      auto raw = Base64Decode(input);
      if (!raw) {
        ws.SendText(ErrorFrame("input data is not valid base64"));
        return true;
      }
      input = std::move(*raw);
    } else if (encoding != "utf8" && encoding != "text") {
      ws.SendText(ErrorFrame("encoding must be \"utf8\" or \"base64\""));
      return true;
    }
  }
  if (static_cast<int64_t>(input.size()) > max_input) {
    ws.SendText(ErrorFrame("the input has " + std::to_string(input.size()) + " bytes; the limit is " +
                           std::to_string(max_input) + " (maxInputBytesPerRequest)"));
    return true;
  }
  {
    std::lock_guard<std::mutex> lock(p.mu);
    if (!p.running) {
      ws.SendText(ErrorFrame("the process has exited"));
      return true;
    }
  }
  std::lock_guard<std::mutex> in(p.input_mu);
  if (Status st = WriteAll(p.master.get(), input); !st.ok())
    ws.SendText(ErrorFrame("the terminal no longer reads input: " + st.error().message));
  return true;
}

}  // namespace

void ProcessHub::Terminal(Proc& p, const net::HttpServerRequest& req, net::ResponseWriter& w,
                          const net::Headers& cors) {
  {
    std::lock_guard<std::mutex> lock(p.mu);
    if (!p.tty)
      return SendProblem(w, cors, 409, problem::kConflict,
                         "the process has no terminal (start it with \"tty\": true)");
  }
  auto handshake = net::WebSocketHandshake(req);
  if (!handshake.ok()) {
    net::Headers h = cors;
    if (handshake.error().kind == "version") h.push_back({"Sec-WebSocket-Version", "13"});
    return SendProblem(w, h, handshake.error().kind == "version" ? 426 : 400, problem::kInvalidRequest,
                       handshake.error().message);
  }
  int64_t max_input;
  {
    std::lock_guard<std::mutex> lock(mu_);
    max_input = limits_.max_input_bytes;
  }
  Watch watch(p);  // before the upgrade: no output falls between replay and live
  if (!watch.valid())
    return SendProblem(w, cors, 503, problem::kInternal, "cannot relay the terminal: out of file descriptors");
  auto up = w.Upgrade(*handshake);
  if (!up.ok()) return;
  // A control frame is JSON around base64 input: room for the largest input.
  net::WebSocketConn ws(up->fd, std::move(up->early), static_cast<size_t>(max_input) * 2 + 4096);
  if (!ws.SendText(Frame({{"type", "ready"}, {"processId", p.id}}))) return;
  int64_t next = 0;  // the first log sequence not yet sent
  for (;;) {
    std::vector<std::string> output;
    bool exited;
    std::optional<int> code;
    {
      std::lock_guard<std::mutex> lock(p.mu);
      for (const auto& e : p.log)
        if (e.sequence >= next && e.pty) output.push_back(e.data);
      next = p.next_seq;
      exited = !p.starting && !p.running;
      code = p.exit_code;
    }
    for (const auto& piece : output)
      if (!ws.SendBinary(piece)) return;
    if (exited) {
      // Every byte of output is logged before the process counts as exited.
      ws.SendText(Frame({{"type", "exit"}, {"exitCode", code ? Json(*code) : Json(nullptr)}}));
      ws.Close(net::ws_close::kNormal, "the process exited");
      return;
    }
    struct pollfd fds[2] = {{ws.fd(), POLLIN | POLLRDHUP, 0}, {watch.fd(), POLLIN, 0}};
    if (poll(fds, 2, -1) < 0 && errno != EINTR) return;
    if (fds[1].revents & POLLIN) watch.Reset();
    if (!fds[0].revents) continue;
    net::WsDecoder::Event ev;
    for (;;) {
      auto got = ws.Receive(&ev);
      if (!got.ok() || ws.closed()) return;  // broke the protocol (answered) or left
      if (!*got) break;
      if (!Apply(p, ws, ev, max_input)) {
        ws.Close(net::ws_close::kNormal, "closed by the client");
        return;
      }
    }
    if (fds[0].revents & (POLLHUP | POLLERR)) return;
  }
}

}  // namespace sepp::front::serve
