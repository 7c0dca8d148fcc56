#include "front/acp/client_files.h"

#include <condition_variable>
#include <memory>

#include "base/terminal_text.h"

namespace sepp::front::acp {
namespace {

// The client's words go to the model: control characters made visible and
// the length bounded, so a hostile client cannot flood the context.
std::string ClientWords(const Json& error) {
  std::string message = error.is_object() && error.contains("message") && error["message"].is_string()
                            ? error["message"].get<std::string>()
                            : error.dump();
  if (message.size() > 500) message = message.substr(0, 500) + "…";
  return VisibleControls(message);
}

struct Waiter {
  std::mutex mu;
  std::condition_variable cv;
  bool answered = false, cancelled = false;
  Json result, error;
};

}  // namespace

void ClientFiles::set_session_id(std::string id) {
  std::lock_guard lock(mu_);
  session_id_ = std::move(id);
}

Result<Json> ClientFiles::Ask(const std::string& method, Json params, CancelToken* cancel) {
  {
    std::lock_guard lock(mu_);
    params["sessionId"] = session_id_;
  }
  if (cancel && cancel->cancelled()) return Error::Make("cancelled", "cancelled");
  auto w = std::make_shared<Waiter>();
  int64_t id = caller_.call(method, std::move(params), [w](const Json& result, const Json& error) {
    std::lock_guard lock(w->mu);
    w->answered = true;
    w->result = result;
    w->error = error;
    w->cv.notify_all();
  });
  if (id == 0) return Error::Make("the editor cannot be reached (its connection is closed)");
  std::unique_ptr<CancelToken::Registration> on_cancel;
  if (cancel)
    on_cancel = cancel->OnCancel([w] {
      std::lock_guard lock(w->mu);
      w->cancelled = true;
      w->cv.notify_all();
    });
  std::unique_lock lock(w->mu);
  bool settled = w->cv.wait_for(lock, timeout_, [&] { return w->answered || w->cancelled; });
  if (!w->answered) {
    lock.unlock();
    caller_.forget(id);  // a late answer finds nothing to wake
    if (settled) return Error::Make("cancelled", "cancelled");
    return Error::Make("the editor did not answer " + method + " within " +
                           std::to_string(timeout_.count()) + " ms",
                       "timeout");
  }
  if (!w->error.is_null()) return Error::Make("the editor refused: " + ClientWords(w->error));
  return w->result;
}

Result<std::string> ClientFiles::ReadText(const std::filesystem::path& path, CancelToken* cancel) {
  auto r = Ask("fs/read_text_file", {{"path", path.string()}}, cancel);
  if (!r.ok()) return r.error();
  if (!r->is_object() || !(*r).contains("content") || !(*r)["content"].is_string())
    return Error::Make("the editor's answer to fs/read_text_file has no \"content\" text");
  return (*r)["content"].get<std::string>();
}

Result<void> ClientFiles::WriteText(const std::filesystem::path& path, const std::string& content,
                                    CancelToken* cancel) {
  auto r = Ask("fs/write_text_file", {{"path", path.string()}, {"content", content}}, cancel);
  if (!r.ok()) return r.error();
  return {};
}

}  // namespace sepp::front::acp
