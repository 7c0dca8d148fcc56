#include "tools/worker_protocol.h"

#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>

#include "base/fd.h"

namespace sepp::tools {
namespace {

// Reads exactly n bytes; returns how many arrived before EOF, or -1.
ssize_t ReadExactly(int fd, char* buf, size_t n) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = read(fd, buf + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return -1;
    if (r == 0) break;
    got += static_cast<size_t>(r);
  }
  return static_cast<ssize_t>(got);
}

std::vector<std::string> Strings(const Json& j, const char* key) {
  std::vector<std::string> out;
  if (auto it = j.find(key); it != j.end() && it->is_array())
    for (const auto& s : *it)
      if (s.is_string()) out.push_back(s.get<std::string>());
  return out;
}

}  // namespace

Status WriteFrame(int fd, const Json& message) {
  std::string body = DumpJson(message);
  if (body.size() > kMaxFrameBytes)
    return Error::Make("a tool worker message of " + std::to_string(body.size()) +
                       " bytes is over the limit of " + std::to_string(kMaxFrameBytes));
  uint32_t n = static_cast<uint32_t>(body.size());
  unsigned char head[4] = {static_cast<unsigned char>(n >> 24), static_cast<unsigned char>(n >> 16),
                           static_cast<unsigned char>(n >> 8), static_cast<unsigned char>(n)};
  // Header and body in one sendmsg (no copy of the body into a frame, one
  // wake-up of the reader); MSG_NOSIGNAL: a dead peer is an error here,
  // never a SIGPIPE that ends the whole process.
  size_t total = sizeof head + body.size(), off = 0;
  while (off < total) {
    struct iovec iov[2];
    int count = 0;
    if (off < sizeof head) iov[count++] = {head + off, sizeof head - off};
    size_t body_off = off < sizeof head ? 0 : off - sizeof head;
    iov[count++] = {body.data() + body_off, body.size() - body_off};
    struct msghdr msg = {};
    msg.msg_iov = iov;
    msg.msg_iovlen = static_cast<size_t>(count);
    ssize_t w = ::sendmsg(fd, &msg, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) {
      int e = errno;
      return Error::Make("writing to the tool worker connection: " + ErrnoText(e),
                         e == EPIPE || e == ECONNRESET ? "eof" : "");
    }
    off += static_cast<size_t>(w);
  }
  return Ok();
}

Result<Json> ReadFrame(int fd) {
  unsigned char head[4];
  ssize_t got = ReadExactly(fd, reinterpret_cast<char*>(head), 4);
  // A peer that died with data unread resets the connection: also an end.
  if (got == 0 || (got < 0 && errno == ECONNRESET))
    return Error::Make("the tool worker connection closed", "eof");
  if (got != 4) return Error::Make("the tool worker connection broke inside a frame header");
  uint32_t n = (uint32_t{head[0]} << 24) | (uint32_t{head[1]} << 16) | (uint32_t{head[2]} << 8) |
               uint32_t{head[3]};
  if (n > kMaxFrameBytes)
    return Error::Make("a tool worker frame announced " + std::to_string(n) +
                       " bytes, over the limit of " + std::to_string(kMaxFrameBytes));
  std::string body(n, '\0');
  if (ReadExactly(fd, body.data(), n) != static_cast<ssize_t>(n))
    return Error::Make("the tool worker connection broke inside a frame");
  auto j = ParseJson(body);
  if (!j.ok()) return Error::Make("a tool worker frame is not JSON: " + j.error().message);
  if (!j->is_object()) return Error::Make("a tool worker frame is not a JSON object");
  return std::move(*j);
}

Result<WorkerReply> ParseWorkerReply(Json m) {
  WorkerReply r;
  auto type = m.find("type");
  if (type == m.end() || !type->is_string()) return Error::Make("a worker frame has no \"type\"");
  if (*type == "output") {
    r.kind = WorkerReply::Kind::kOutput;
  } else if (*type != "result") {
    return Error::Make("a worker frame has the unknown type " + type->dump());
  }
  auto id = m.find("id");
  if (id == m.end() || !id->is_number_integer())
    return Error::Make("a worker frame has no integer \"id\"");
  r.id = id->get<int64_t>();
  auto text = m.find("text");
  if (text != m.end() && !text->is_string())
    return Error::Make("a worker frame's \"text\" is not a string");
  if (text != m.end()) r.text = std::move(text->get_ref<std::string&>());
  for (auto [key, out] : {std::pair{"is_error", &r.is_error}, std::pair{"truncated", &r.truncated}}) {
    auto b = m.find(key);
    if (b == m.end()) continue;
    if (!b->is_boolean())
      return Error::Make(std::string("a worker frame's \"") + key + "\" is not a boolean");
    *out = b->get<bool>();
  }
  if (auto d = m.find("details"); d != m.end()) {
    if (!d->is_object()) return Error::Make("a worker frame's \"details\" is not an object");
    r.details = std::move(*d);
  }
  if (auto d = m.find("denials"); d != m.end()) {
    // Objects only: the worker types its denials; words without a kind
    // would be a worker that lost track of what it refused.
    if (!d->is_array()) return Error::Make("a worker frame's \"denials\" is not an array");
    for (const auto& e : *d)
      if (!e.is_object() || !e.contains("kind") || !e["kind"].is_string() || !e.contains("text") ||
          !e["text"].is_string() || (e.contains("target") && !e["target"].is_string()))
        return Error::Make(
            "a worker frame's \"denials\" holds an entry that is not {kind, target, text}");
    r.denials = sandbox::DenialsFromJson(*d);
  }
  return r;
}

Json PolicyToJson(const sandbox::Policy& p) {
  return {{"enabled", p.enabled},
          {"read_roots", p.read_roots},
          {"write_roots", p.write_roots},
          {"deny_paths", p.deny_paths},
          {"read_holes", p.read_holes},
          {"protected_paths", p.protected_paths},
          {"net", static_cast<int>(p.net)},
          {"allow_domains", p.allow_domains},
          {"env_allow", p.env_allow},
          {"env_allow_secrets", p.env_allow_secrets},
          {"env_set", p.env_set},
          {"timeout_s", p.limits.timeout_s},
          {"max_processes", p.limits.max_processes},
          {"max_memory_bytes", p.limits.max_memory_bytes},
          {"max_file_bytes", p.limits.max_file_bytes},
          {"max_open_files", p.limits.max_open_files}};
}

sandbox::Policy PolicyFromJson(const Json& j) {
  sandbox::Policy p;
  if (!j.is_object()) return p;  // the default: enabled, nothing readable
  p.enabled = j.value("enabled", true);
  p.read_roots = Strings(j, "read_roots");
  p.write_roots = Strings(j, "write_roots");
  p.deny_paths = Strings(j, "deny_paths");
  p.read_holes = Strings(j, "read_holes");
  p.protected_paths = Strings(j, "protected_paths");
  int net = j.value("net", 0);
  p.net = net == 1 ? sandbox::NetMode::kProxy : net == 2 ? sandbox::NetMode::kHost
                                                         : sandbox::NetMode::kOff;
  p.allow_domains = Strings(j, "allow_domains");
  p.env_allow = Strings(j, "env_allow");
  p.env_allow_secrets = Strings(j, "env_allow_secrets");
  if (auto it = j.find("env_set"); it != j.end() && it->is_object())
    for (const auto& [k, v] : it->items())
      if (v.is_string()) p.env_set[k] = v.get<std::string>();
  p.limits.timeout_s = j.value("timeout_s", 0.0);
  p.limits.max_processes = j.value("max_processes", uint64_t{0});
  p.limits.max_memory_bytes = j.value("max_memory_bytes", uint64_t{0});
  p.limits.max_file_bytes = j.value("max_file_bytes", uint64_t{0});
  p.limits.max_open_files = j.value("max_open_files", uint64_t{0});
  return p;
}

}  // namespace sepp::tools
