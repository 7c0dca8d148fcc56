// The editor's buffers as the file tools' FileAccess: when the client's
// initialize offers clientCapabilities.fs.readTextFile / writeTextFile, a
// session's read, edit and write go through fs/read_text_file and
// fs/write_text_file, so the model sees unsaved changes and its edits land
// in the editor. Each call is an agent -> client request answered
// asynchronously (through the server's reader thread); the tool waits for
// it, at most `timeout`, and stops waiting when the call is cancelled.
//
// The tools' PathGuard has checked every path before it gets here, so the
// client is never asked for a denied path or to write outside the roots.
#pragma once
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

#include "base/json.h"
#include "tools/file_access.h"

namespace sepp::front::acp {

// The server's side: sends a request to the client and calls done once
// with its result or error (error null on success). Returns the request's
// id, or 0 when it could not be sent. forget(id) drops a request no one
// waits for any more (a late answer is then ignored).
struct ClientCaller {
  std::function<int64_t(std::string method, Json params,
                        std::function<void(const Json& result, const Json& error)> done)>
      call;
  std::function<void(int64_t id)> forget;
};

class ClientFiles : public tools::FileAccess {
 public:
  ClientFiles(bool reads, bool writes, ClientCaller caller, std::chrono::milliseconds timeout)
      : reads_(reads), writes_(writes), caller_(std::move(caller)), timeout_(timeout) {}

  // The ACP session the requests name; set before the session's first turn.
  void set_session_id(std::string id);

  bool reads() const override { return reads_; }
  bool writes() const override { return writes_; }
  Result<std::string> ReadText(const std::filesystem::path& path, CancelToken* cancel) override;
  Result<void> WriteText(const std::filesystem::path& path, const std::string& content,
                         CancelToken* cancel) override;

 private:
  // Sends method and waits for its answer: the result, or an error that
  // says what happened (the client's refusal, no answer, cancelled).
  Result<Json> Ask(const std::string& method, Json params, CancelToken* cancel);

  const bool reads_, writes_;
  ClientCaller caller_;
  const std::chrono::milliseconds timeout_;
  std::mutex mu_;
  std::string session_id_;  // guarded by mu_
};

}  // namespace sepp::front::acp
