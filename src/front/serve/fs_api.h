// /v1/fs/*: sandbox-agent 0.4.2's file API (docs/serve.md), confined to the
// server's workspaces. A path is absolute or relative to the first
// workspace; one outside every workspace is refused here (403, a clear
// message), and everything else is done by the fs worker inside its own
// sandbox (fs_worker.h), where a symlink or a race that leads outside finds
// nothing to reach.
#pragma once
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "front/serve/fs_worker.h"
#include "front/serve/query.h"
#include "net/http_server.h"

namespace sepp::front::serve {

class FsApi {
 public:
  // worker: the server's fs worker, shared with the config API (not owned).
  FsApi(std::vector<std::filesystem::path> roots, FsWorker& worker);

  // seg: the path's segments ("v1", "fs", op). Answers the request.
  void Handle(const net::HttpServerRequest& req, net::ResponseWriter& w, const net::Headers& cors,
              const std::vector<std::string>& seg, const Query& query);

 private:
  const std::vector<std::filesystem::path> roots_;  // canonical
  FsWorker& worker_;
};

// The absolute path `raw` names (relative: to roots[0]), normalised, or an
// error: kind "outside" when it lies in no root, "invalid" when it is
// malformed.
Result<std::string> ResolveFsPath(const std::vector<std::filesystem::path>& roots, std::string_view raw);

// A failed worker answer ({"ok":false,"errno":N,"message"}) as the problem
// it is: ENOENT 404, EXDEV/EACCES/... 403, EEXIST 409, EFBIG 413, ...
void SendFsFailure(net::ResponseWriter& w, const net::Headers& cors, const Json& reply);

}  // namespace sepp::front::serve
