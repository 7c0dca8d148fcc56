#include "front/serve/external_session.h"

#include <cerrno>
#include <condition_variable>
#include <deque>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <unistd.h>

#include "base/log.h"
#include "base/secrets.h"
#include "front/acp/jsonrpc.h"
#include "front/acp/line_reader.h"
#include "front/serve/acp_universal.h"
#include "front/serve/agent_launch.h"
#include "sandbox/held_child.h"

namespace sepp::front::serve {

using Clock = std::chrono::steady_clock;

struct ExternalSession::Impl {
  explicit Impl(ExternalSessionOptions opts)
      : o(std::move(opts)), tr(o.session_id, o.agent) {
    tr.ContinueAfter(o.continue_after);
  }

  struct Pending {
    std::string method;
    bool done = false;
    Json result, error;
  };
  struct Permission {
    Json rpc_id;   // the adapter's request id
    Json options;  // [{optionId, name, kind}]
  };

  ExternalSessionOptions o;
  AcpUniversalTranslator tr;

  std::mutex mu;  // everything below, the translator and every sink call
  std::condition_variable cv;
  std::shared_ptr<sandbox::HeldChild> child;
  std::string stderr_tail;
  int64_t next_id = 0;
  std::map<int64_t, Pending> pending;  // our requests (initialize, session/new)
  std::optional<int64_t> prompt_id;    // the running session/prompt
  bool cancelling = false;             // it was cancelled and has not answered yet
  std::deque<std::string> queued;      // prompts waiting for it
  std::map<std::string, Permission> permissions;  // waiting, by permission_id
  int next_permission = 0;
  std::string native_id;
  // Updates that came before session/new's answer was taken in (the
  // adapter sends some at once after it): translated right after
  // session.started, in order.
  std::vector<Json> early;
  bool closing = false, exited = false, ended = false;
  bool stderr_done = false;  // the keeper read its stderr to the end

  std::mutex write_mu;  // one writer of the adapter's stdin at a time
  std::thread keeper, reader;
  std::once_flag closed;

  // Nothing is translated before session.started (the callers check
  // native_id): what an agent says while it starts, or fails to, is in the
  // error Start returns.
  void Emit(std::vector<Json> events) {
    for (Json& e : events) o.sink(std::move(e));
  }

  // Never under mu: the adapter may be blocked writing to us while the
  // reader waits for mu.
  void Write(const Json& message) {
    std::lock_guard lock(write_mu);
    if (!child) return;
    Status s = child->WriteStdin(DumpJson(message) + "\n");
    if (!s.ok()) log::Debug("sepp serve: agent " + o.agent + " of session " + o.session_id +
                            " no longer reads: " + s.error().message);
  }

  // Under mu: a new request id.
  int64_t NewRequest(const std::string& method) {
    int64_t id = ++next_id;
    if (method != "session/prompt") pending[id].method = method;
    return id;
  }

  // Waits for the answer of request id: its result, or the error saying why not.
  Result<Json> Await(int64_t id, Clock::time_point deadline) {
    std::unique_lock lock(mu);
    cv.wait_until(lock, deadline, [&] { return pending[id].done || exited || closing; });
    Pending p = pending[id];
    pending.erase(id);
    if (!p.done) {
      std::string why = exited ? "the agent exited" + LastStderr() : closing ? "the session was closed"
                                                                           : "it did not answer in time";
      return Error::Make("agent " + o.agent + " did not answer " + p.method + ": " + why,
                         exited || closing ? "agent" : "timeout");
    }
    if (!p.error.is_null()) {
      std::string message = p.error.is_object() && p.error.value("message", Json()).is_string()
                                ? p.error["message"].get<std::string>() : DumpJson(p.error);
      return Error::Make("agent " + o.agent + " refused " + p.method + ": " + Redact(message), "agent");
    }
    return p.result;
  }

  // Under mu: ": <the last line of its stderr>" or "".
  std::string LastStderr() const {
    std::string t = stderr_tail;
    while (!t.empty() && (t.back() == '\n' || t.back() == '\r' || t.back() == ' ')) t.pop_back();
    if (t.empty()) return "";
    size_t nl = t.rfind('\n');
    std::string last = nl == std::string::npos ? t : t.substr(nl + 1);
    if (last.size() > 300) last = last.substr(last.size() - 300);
    return " (its stderr: " + Redact(last) + ")";
  }

  // Under mu: starts the next waiting prompt; the request to write.
  std::optional<Json> NextPrompt() {
    if (prompt_id || queued.empty() || closing || exited) return std::nullopt;
    std::string text = std::move(queued.front());
    queued.pop_front();
    int64_t id = NewRequest("session/prompt");
    prompt_id = id;
    Emit(tr.PromptSent(text));
    return jsonrpc::MakeRequest(id, "session/prompt",
                                {{"sessionId", native_id}, {"prompt", {{{"type", "text"}, {"text", text}}}}});
  }

  void OnLine(const std::string& line) {
    auto parsed = jsonrpc::ParseMessage(line);
    std::vector<Json> to_write;
    {
      std::lock_guard lock(mu);
      if (closing) return;
      if (!parsed.message) {
        if (!native_id.empty()) Emit(tr.Malformed("a line that is not a JSON-RPC message"));
        return;
      }
      const jsonrpc::Message& m = *parsed.message;
      using Kind = jsonrpc::Message::Kind;
      if (native_id.empty() && m.kind != Kind::kResponse) {
        // Not started yet: nothing is translated (or numbered) before
        // session.started. A request now is refused; it cannot be shown.
        if (m.kind == Kind::kNotification && m.method == "session/update" && early.size() < 1024)
          early.push_back(m.params);
        else if (m.kind == Kind::kRequest)
          to_write.push_back(jsonrpc::MakeError(m.id, jsonrpc::kInvalidRequest, "the session is not open yet"));
      } else if (m.kind == Kind::kResponse) {
        if (!m.id.is_number_integer()) {
          if (!native_id.empty()) Emit(tr.Malformed("an answer to a request it was never sent"));
          return;
        }
        int64_t id = m.id.get<int64_t>();
        if (prompt_id && *prompt_id == id) {
          prompt_id.reset();
          cancelling = false;
          Emit(tr.PromptEnded(m.result, m.error));
          if (auto next = NextPrompt()) to_write.push_back(std::move(*next));
        } else if (auto it = pending.find(id); it != pending.end() && !it->second.done) {
          it->second.done = true;
          it->second.result = m.result;
          it->second.error = m.error;
          cv.notify_all();
        } else if (!native_id.empty()) {
          Emit(tr.Malformed("an answer to a request it was never sent"));
        }
      } else if (m.kind == Kind::kNotification) {
        if (m.method == "session/update") Emit(tr.Update(m.params));
        else if (m.method.rfind("_", 0) != 0)  // "_..." are extensions, ignored by the protocol
          Emit(tr.Malformed("an unknown notification " + m.method.substr(0, 64)));
      } else if (m.method == "session/request_permission") {
        std::string pid = "perm-" + std::to_string(++next_permission);
        Json options = m.params.is_object() && m.params.contains("options") && m.params["options"].is_array()
                           ? m.params["options"] : Json::array();
        if (permissions.size() >= 256) {  // an adapter that asks and asks: not shown
          to_write.push_back(jsonrpc::MakeResult(m.id, {{"outcome", {{"outcome", "cancelled"}}}}));
          Emit(tr.Malformed("more than 256 permission requests waiting at once"));
        } else {
          Emit(tr.PermissionRequested(pid, m.params));
          if (cancelling) {
            // Asked after the cancel went out (the adapter had not seen it
            // yet): answered at once as the cancel answered the others.
            to_write.push_back(jsonrpc::MakeResult(m.id, {{"outcome", {{"outcome", "cancelled"}}}}));
            Emit(tr.PermissionResolved(pid, "reject", {{"source", "cancelled"}}));
          } else {
            permissions[pid] = {m.id, options};
          }
        }
      } else {
        to_write.push_back(jsonrpc::MakeError(
            m.id, jsonrpc::kMethodNotFound,
            "sepp serve's session API offers no " + m.method.substr(0, 64) +
                " (no client file system or terminal: the agent's own tools run in its sandbox)"));
      }
    }
    Flush(to_write);
  }
  void Flush(const std::vector<Json>& to_write) {  // not under mu
    for (const Json& w : to_write) Write(w);
  }

  void OnExit() {
    std::unique_lock lock(mu);
    // Its stdout ended; its last words on stderr may still be in the pipe
    // (the keeper reads them): they say why, so wait for them, briefly.
    cv.wait_for(lock, std::chrono::seconds(2), [&] { return stderr_done; });
    exited = true;
    cv.notify_all();
    if (closing || ended || native_id.empty()) return;  // Start says why
    std::string why = "agent " + o.agent + " exited" + LastStderr();
    Emit(tr.Failure(why, "agent_exited"));
    for (auto& [pid, p] : permissions)
      Emit(tr.PermissionResolved(pid, "reject", {{"source", "ended"}}));
    permissions.clear();
    Emit(tr.Ended("error", "agent", why));
    ended = true;
  }
};

ExternalSession::ExternalSession(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

ExternalSession::~ExternalSession() { Close(); }

Result<std::unique_ptr<ExternalSession>> ExternalSession::Start(ExternalSessionOptions options) {
  const AgentSpec* spec = options.catalog ? options.catalog->Find(options.agent) : nullptr;
  if (!spec) return Error::Make("no agent \"" + options.agent + "\"", "usage");
  auto impl = std::make_unique<Impl>(std::move(options));
  Impl* s = impl.get();
  // Launched from a keeper thread that lives until the child has exited:
  // the child dies with the thread that made it (PDEATHSIG), and the
  // request's thread ends with its connection.
  auto started = std::make_shared<std::promise<Status>>();
  auto launched = started->get_future();
  s->keeper = std::thread([s, spec, started] {
    auto child = LaunchAgent(*s->o.catalog, *spec, s->o.workspaces, s->o.unconfined);
    if (!child.ok()) return started->set_value(child.error());
    std::shared_ptr<sandbox::HeldChild> c = std::move(*child);
    {
      std::lock_guard lock(s->write_mu);
      s->child = c;
    }
    started->set_value(Ok());
    char buf[4096];
    for (;;) {
      ssize_t n = read(c->stderr_fd(), buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      std::lock_guard lock(s->mu);
      s->stderr_tail.append(buf, static_cast<size_t>(n));
      if (s->stderr_tail.size() > 8192) s->stderr_tail.erase(0, s->stderr_tail.size() - 4096);
    }
    {
      std::lock_guard lock(s->mu);
      s->stderr_done = true;
      s->cv.notify_all();
    }
    c->Wait();  // an agent that closed its stderr still runs: stay
  });
  Status st = launched.get();
  if (!st.ok()) {
    s->keeper.join();
    return st.error();
  }
  s->reader = std::thread([s] {
    jsonrpc::LineReader lines(s->child->stdout_fd(), s->o.max_line);
    while (auto line = lines.Next()) {
      if (line->too_long) {
        std::lock_guard lock(s->mu);
        if (!s->native_id.empty()) s->Emit(s->tr.Malformed("a line longer than " + std::to_string(s->o.max_line) + " bytes"));
      } else if (!line->text.empty()) {
        s->OnLine(line->text);
      }
    }
    s->OnExit();
  });
  std::unique_ptr<ExternalSession> session(new ExternalSession(std::move(impl)));
  auto deadline = Clock::now() + s->o.start_timeout;
  auto call = [&](const std::string& method, Json params) -> Result<Json> {
    int64_t id;
    {
      std::lock_guard lock(s->mu);
      id = s->NewRequest(method);
    }
    s->Write(jsonrpc::MakeRequest(id, method, std::move(params)));
    auto r = s->Await(id, deadline);
    if (r.ok() && r->is_object()) s->o.catalog->Remember(s->o.agent, method, *r);
    return r;
  };
  auto init = call("initialize",
                   {{"protocolVersion", 1},
                    {"clientCapabilities",
                     {{"fs", {{"readTextFile", false}, {"writeTextFile", false}}}, {"terminal", false}}},
                    {"clientInfo", {{"name", "sepp serve"}, {"version", "1"}}}});
  if (!init.ok()) return init.error();
  auto created = call("session/new", {{"cwd", s->o.cwd.string()}, {"mcpServers", Json::array()}});
  if (!created.ok()) return created.error();
  if (!created->is_object() || !created->value("sessionId", Json()).is_string() ||
      (*created)["sessionId"].get<std::string>().empty())
    return Error::Make("agent " + s->o.agent + " answered session/new without a sessionId", "agent");
  session->native_id_ = (*created)["sessionId"].get<std::string>();
  if (created->contains("models") && (*created)["models"].is_object() &&
      (*created)["models"].value("currentModelId", Json()).is_string())
    session->model_ = (*created)["models"]["currentModelId"].get<std::string>();
  {
    std::lock_guard lock(s->mu);
    if (s->exited)
      return Error::Make("agent " + s->o.agent + " exited right after session/new" + s->LastStderr(), "agent");
    s->native_id = session->native_id_;
    s->Emit(s->tr.Started(s->native_id, s->o.cwd.string(), *created));
    for (const Json& params : s->early) s->Emit(s->tr.Update(params));
    s->early.clear();
  }
  return session;
}

Status ExternalSession::Prompt(const std::string& text) {
  std::optional<Json> request;
  {
    std::lock_guard lock(impl_->mu);
    if (impl_->closing || impl_->ended || impl_->exited)
      return Error::Make("the session has ended", "ended");
    impl_->queued.push_back(text);
    request = impl_->NextPrompt();
  }
  if (request) impl_->Write(*request);
  return Ok();
}

Status ExternalSession::Cancel() {
  std::vector<Json> to_write;
  {
    std::lock_guard lock(impl_->mu);
    if (impl_->closing || impl_->ended) return Ok();
    impl_->queued.clear();
    // ACP: the client answers its waiting permission requests "cancelled".
    for (auto& [pid, p] : impl_->permissions) {
      to_write.push_back(jsonrpc::MakeResult(p.rpc_id, {{"outcome", {{"outcome", "cancelled"}}}}));
      impl_->Emit(impl_->tr.PermissionResolved(pid, "reject", {{"source", "cancelled"}}));
    }
    impl_->permissions.clear();
    if (impl_->prompt_id) {
      impl_->cancelling = true;
      to_write.push_back(jsonrpc::MakeNotification("session/cancel", {{"sessionId", impl_->native_id}}));
    }
  }
  for (const Json& w : to_write) impl_->Write(w);
  return Ok();
}

Status ExternalSession::AnswerPermission(const std::string& permission_id, const std::string& reply) {
  Json response;
  {
    std::lock_guard lock(impl_->mu);
    auto it = impl_->permissions.find(permission_id);
    if (it == impl_->permissions.end())
      return Error::Make("no permission request " + permission_id.substr(0, 128) + " waits", "not_found");
    // Our reply as the agent's own option: the first of the kinds that fit.
    std::vector<std::string> kinds = reply == "once"     ? std::vector<std::string>{"allow_once"}
                                     : reply == "always" ? std::vector<std::string>{"allow_always"}
                                                         : std::vector<std::string>{"reject_once", "reject_always"};
    std::string option, kind, offered;
    for (const std::string& want : kinds) {
      for (const Json& o : it->second.options) {
        if (!o.is_object() || !o.value("optionId", Json()).is_string() || !o.value("kind", Json()).is_string())
          continue;
        if (option.empty() && o["kind"] == want) {
          option = o["optionId"].get<std::string>();
          kind = want;
        }
      }
    }
    if (option.empty()) {
      for (const Json& o : it->second.options)
        if (o.is_object() && o.value("kind", Json()).is_string())
          offered += (offered.empty() ? "" : ", ") + o["kind"].get<std::string>().substr(0, 32);
      return Error::Make("agent " + impl_->o.agent + " offered no " + kinds[0] + " option for " + permission_id +
                             " (it offered: " + (offered.empty() ? "none" : offered) + ")",
                         "invalid");
    }
    response = jsonrpc::MakeResult(it->second.rpc_id, {{"outcome", {{"outcome", "selected"}, {"optionId", option}}}});
    impl_->permissions.erase(it);
    const char* status = reply == "once" ? "accept" : reply == "always" ? "accept_for_session" : "reject";
    impl_->Emit(impl_->tr.PermissionResolved(permission_id, status,
                                             {{"optionId", option}, {"kind", kind}, {"source", "user"}}));
  }
  impl_->Write(response);
  return Ok();
}

void ExternalSession::Close() {
  if (!impl_) return;
  Impl* s = impl_.get();
  std::call_once(s->closed, [s] {
    {
      std::lock_guard lock(s->mu);
      if (!s->ended)
        for (auto& [pid, p] : s->permissions)
          s->Emit(s->tr.PermissionResolved(pid, "reject", {{"source", "ended"}}));
      s->permissions.clear();
      s->closing = true;
      s->cv.notify_all();
    }
    // Its whole tree (pid 1 of its namespace): nothing it started stays.
    std::shared_ptr<sandbox::HeldChild> c;
    {
      std::lock_guard lock(s->write_mu);
      c = s->child;
    }
    if (c) c->Kill();
    if (s->reader.joinable()) s->reader.join();
    if (s->keeper.joinable()) s->keeper.join();
    std::lock_guard lock(s->mu);
    if (!s->ended && !s->native_id.empty()) s->Emit(s->tr.Ended("terminated", "daemon", ""));
    s->ended = true;
  });
}

bool ExternalSession::ended() {
  std::lock_guard lock(impl_->mu);
  return impl_->ended;
}

}  // namespace sepp::front::serve
