#include "front/serve/fs_api.h"

#include <cerrno>

#include "base/base64.h"
#include "base/strings.h"
#include "base/terminal_text.h"
#include "front/serve/problem.h"
#include "front/serve/tar_reader.h"

namespace sepp::front::serve {
namespace fs = std::filesystem;
namespace {

// Paths listed in an upload-batch answer; the rest are written, not listed.
constexpr size_t kMaxListedPaths = 1024;
// A file written whole (the worker's limit too: its base64 stays inside one frame).
constexpr size_t kMaxFileBytes = 32 << 20;

std::string TooBig(size_t n) {
  return "the file has " + std::to_string(n) + " bytes, over the limit of " + std::to_string(kMaxFileBytes) +
         " for one file; split it (upload-batch takes many files)";
}

std::string Shown(std::string_view s) { return VisibleControls(SanitizeUtf8(s.substr(0, 300))); }

void SendJson(net::ResponseWriter& w, const net::Headers& cors, const Json& body) {
  net::Headers h = {{"Content-Type", "application/json"}};
  h.insert(h.end(), cors.begin(), cors.end());
  w.Send(200, h, DumpJson(body));
}

}  // namespace

void SendFsFailure(net::ResponseWriter& w, const net::Headers& cors, const Json& reply) {
  int err = reply.value("errno", 0);
  std::string message = reply.value("message", "the file operation failed");
  int status = 500;
  const char* kind = problem::kInternal;
  switch (err) {
    case ENOENT:
      status = 404, kind = problem::kNotFound;
      break;
    case EXDEV:  // a symlink or ".." that leaves the workspace
    case EACCES:
    case EPERM:
    case EROFS:
    case ELOOP:
      status = 403, kind = problem::kPermissionDenied;
      break;
    case EEXIST:
    case ENOTEMPTY:
      status = 409, kind = problem::kConflict;
      break;
    case EFBIG:
      status = 413, kind = problem::kPayloadTooLarge;
      break;
    case EINVAL:
    case EISDIR:
    case ENOTDIR:
    case ENAMETOOLONG:
    case ENXIO:  // a FIFO nobody reads
      status = 400, kind = problem::kInvalidRequest;
      break;
    default:
      break;
  }
  SendProblem(w, cors, status, kind, message);
}

Result<std::string> ResolveFsPath(const std::vector<fs::path>& roots, std::string_view raw) {
  if (roots.empty()) return Error::Make("the server has no workspace", "outside");
  if (raw.find('\0') != std::string_view::npos) return Error::Make("the path has a NUL byte", "invalid");
  fs::path p = raw.empty() ? roots.front() : fs::path(std::string(raw));
  if (p.is_relative()) p = roots.front() / p;
  std::string norm = p.lexically_normal().string();
  while (norm.size() > 1 && norm.back() == '/') norm.pop_back();
  for (const auto& r : roots) {
    const std::string& root = r.string();
    if (norm == root || (norm.size() > root.size() && norm.compare(0, root.size(), root) == 0 &&
                         (root == "/" || norm[root.size()] == '/')))
      return norm;
  }
  std::string list;
  for (const auto& r : roots) list += (list.empty() ? "" : ", ") + r.string();
  return Error::Make("the path \"" + Shown(raw) + "\" is outside the server's workspaces (" + list +
                         "); start sepp serve with --workspace to serve another folder",
                     "outside");
}

FsApi::FsApi(std::vector<fs::path> roots, FsWorker& worker) : roots_(std::move(roots)), worker_(worker) {}

void FsApi::Handle(const net::HttpServerRequest& req, net::ResponseWriter& w, const net::Headers& cors,
                   const std::vector<std::string>& seg, const Query& query) {
  const std::string op = seg.size() == 3 ? seg[2] : "";
  const std::string& m = req.method;
  auto not_allowed = [&](const char* allow) {
    net::Headers h = cors;
    h.emplace_back("Allow", allow);
    SendProblem(w, h, 405, problem::kMethodNotAllowed, std::string("this route takes ") + allow);
  };
  auto path_of = [&](const char* key, bool required) -> std::optional<std::string> {
    auto it = query.find(key);
    if (it == query.end() && required) {
      SendProblem(w, cors, 400, problem::kInvalidRequest, std::string("the query parameter \"") + key + "\" is required");
      return std::nullopt;
    }
    auto r = ResolveFsPath(roots_, it == query.end() ? "" : it->second);
    if (!r.ok()) {
      SendProblem(w, cors, r.error().kind == "outside" ? 403 : 400,
                  r.error().kind == "outside" ? problem::kPermissionDenied : problem::kInvalidRequest,
                  r.error().message);
      return std::nullopt;
    }
    return *r;
  };
  // Runs one request in the worker; nullopt once an error has been sent.
  auto call = [&](const Json& request) -> std::optional<Json> {
    auto reply = worker_.Call(request);
    if (!reply.ok()) {
      SendProblem(w, cors, 503, problem::kInternal, reply.error().message);
      return std::nullopt;
    }
    if (!(*reply)["ok"].get<bool>()) {
      SendFsFailure(w, cors, *reply);
      return std::nullopt;
    }
    return std::move(*reply);
  };

  if (op == "entries") {
    if (m != "GET") return not_allowed("GET");
    auto path = path_of("path", false);
    if (!path) return;
    auto r = call({{"op", "entries"}, {"path", *path}});
    if (r) SendJson(w, cors, (*r)["entries"]);
    return;
  }
  if (op == "stat") {
    if (m != "GET") return not_allowed("GET");
    auto path = path_of("path", true);
    if (!path) return;
    auto r = call({{"op", "stat"}, {"path", *path}});
    if (!r) return;
    r->erase("ok");
    return SendJson(w, cors, *r);
  }
  if (op == "file") {
    if (m != "GET" && m != "PUT") return not_allowed("GET, PUT");
    auto path = path_of("path", true);
    if (!path) return;
    if (m == "GET") {
      auto r = call({{"op", "read"}, {"path", *path}});
      if (!r) return;
      auto bytes = Base64Decode((*r).value("data", ""));
      if (!bytes) return SendProblem(w, cors, 500, problem::kInternal, "the file worker sent malformed bytes");
      net::Headers h = {{"Content-Type", "application/octet-stream"}};
      h.insert(h.end(), cors.begin(), cors.end());
      return (void)w.Send(200, h, *bytes);
    }
    if (req.body.size() > kMaxFileBytes)
      return SendProblem(w, cors, 413, problem::kPayloadTooLarge, TooBig(req.body.size()));
    auto r = call({{"op", "write"}, {"path", *path}, {"data", Base64Encode(req.body)}});
    if (r) SendJson(w, cors, {{"path", *path}, {"bytesWritten", (*r)["bytesWritten"]}});
    return;
  }
  if (op == "entry") {
    if (m != "DELETE") return not_allowed("DELETE");
    auto path = path_of("path", true);
    if (!path) return;
    auto recursive = QueryBool(query, "recursive", false);
    if (!recursive.ok()) return SendProblem(w, cors, 400, problem::kInvalidRequest, recursive.error().message);
    if (auto r = call({{"op", "delete"}, {"path", *path}, {"recursive", *recursive}}))
      SendJson(w, cors, {{"path", *path}});
    return;
  }
  if (op == "mkdir") {
    if (m != "POST") return not_allowed("POST");
    auto path = path_of("path", true);
    if (!path) return;
    if (auto r = call({{"op", "mkdir"}, {"path", *path}})) SendJson(w, cors, {{"path", *path}});
    return;
  }
  if (op == "move") {
    if (m != "POST") return not_allowed("POST");
    auto body = ParseJson(req.body);
    if (!body.ok() || !body->is_object() || !body->contains("from") || !(*body)["from"].is_string() ||
        !body->contains("to") || !(*body)["to"].is_string() ||
        (body->contains("overwrite") && !(*body)["overwrite"].is_boolean() && !(*body)["overwrite"].is_null()))
      return SendProblem(w, cors, 400, problem::kInvalidRequest,
                         "POST {\"from\": path, \"to\": path, \"overwrite\"?: boolean}");
    std::vector<std::string> resolved;
    for (const char* key : {"from", "to"}) {
      auto r = ResolveFsPath(roots_, (*body)[key].get<std::string>());
      if (!r.ok())
        return SendProblem(w, cors, r.error().kind == "outside" ? 403 : 400,
                           r.error().kind == "outside" ? problem::kPermissionDenied : problem::kInvalidRequest,
                           r.error().message);
      resolved.push_back(*r);
    }
    bool overwrite = body->contains("overwrite") && (*body)["overwrite"].is_boolean() &&
                     (*body)["overwrite"].get<bool>();
    if (auto r = call({{"op", "move"}, {"from", resolved[0]}, {"to", resolved[1]}, {"overwrite", overwrite}}))
      SendJson(w, cors, {{"from", resolved[0]}, {"to", resolved[1]}});
    return;
  }
  if (op == "upload-batch") {
    if (m != "POST") return not_allowed("POST");
    auto base = path_of("path", false);
    if (!base) return;
    auto entries = ReadTar(req.body);
    if (!entries.ok()) return SendProblem(w, cors, 400, problem::kInvalidRequest, entries.error().message);
    // Whole archive checked first: nothing is written from a refused one.
    for (const auto& e : *entries)
      if (e.data.size() > kMaxFileBytes)
        return SendProblem(w, cors, 413, problem::kPayloadTooLarge, e.name + ": " + TooBig(e.data.size()));
    Json paths = Json::array();
    size_t listed = 0;
    for (const auto& e : *entries) {
      std::string target = *base == "/" ? "/" + e.name : *base + "/" + e.name;
      Json request = e.is_dir ? Json{{"op", "mkdir"}, {"path", target}}
                              : Json{{"op", "write"}, {"path", target}, {"data", Base64Encode(e.data)}};
      if (!call(request)) return;
      if (!e.is_dir && listed++ < kMaxListedPaths) paths.push_back(target);
    }
    return SendJson(w, cors, {{"paths", paths}, {"truncated", listed > kMaxListedPaths}});
  }
  SendProblem(w, cors, 404, problem::kNotFound, "no route " + Shown(req.Path()));
}

}  // namespace sepp::front::serve
