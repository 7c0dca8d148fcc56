#include "front/serve/acp_hub.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <deque>
#include <future>
#include <system_error>

#include "base/clock.h"
#include "base/fd.h"
#include "base/log.h"
#include "base/terminal_text.h"
#include "front/acp/jsonrpc.h"
#include "front/acp/line_reader.h"
#include "front/serve/agent_launch.h"
#include "front/serve/problem.h"

namespace sepp::front::serve {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using session::LoggedEvent;

// One server id: its event stream, and (while it runs) its agent.
class Channel {
 public:
  // closed: a stream of an id deleted earlier, readable to its end only.
  Channel(std::string id, std::string agent, int64_t last_seq, const AcpHubOptions& o,
          bool closed = false)
      : id_(std::move(id)), agent_(std::move(agent)), options_(o), closed_(closed),
        last_seq_(last_seq) {}

  const std::string& id() const { return id_; }
  std::string agent() {
    std::lock_guard lock(mu_);
    return agent_;
  }
  int64_t created_ms() const { return created_ms_; }
  bool has_agent() {
    std::lock_guard lock(mu_);
    return running_;
  }

  // Starts the agent, sepp's in process or an external one confined, and
  // the reader that turns each line it writes into an event.
  Status StartAgent(const std::string& agent) {
    std::lock_guard lock(mu_);
    if (running_ || closed_) return Ok();
    if (agent != "sepp") return StartExternal(agent);
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) != 0) return Error::Make("pipe: " + ErrnoText(errno), "io");
    if (pipe2(out, O_CLOEXEC) != 0) {
      close(in[0]);
      close(in[1]);
      return Error::Make("pipe: " + ErrnoText(errno), "io");
    }
    to_agent_.Reset(in[1]);
    int agent_in = in[0], agent_out = out[1], from_agent = out[0];
    agent_ = agent;
    running_ = true;
    created_ms_ = NowMs();
    acp::AcpOptions o = options_.agent;
    agent_thread_ = std::thread([o = std::move(o), agent_in, agent_out]() mutable {
      acp::RunAcpServer(agent_in, agent_out, std::move(o));
      close(agent_in);
      close(agent_out);  // the reader sees EOF
    });
    reader_thread_ = std::thread([this, from_agent] {
      jsonrpc::LineReader reader(from_agent, options_.agent.max_line + 1024);
      while (auto line = reader.Next())
        if (!line->too_long && !line->text.empty()) Publish(line->text);
      close(from_agent);
    });
    return Ok();
  }

  // An external agent (agent_launch.h): a held child, its stdout read
  // line by line like the in-process agent's pipe, its stderr kept (the
  // last few KiB) for the log when it ends. It is started from a keeper
  // thread that lives until the child has exited: the child dies with the
  // thread that made it (PDEATHSIG), and the request's thread ends with
  // its connection. Called under mu_.
  Status StartExternal(const std::string& agent) {
    const AgentSpec* spec = options_.agents ? options_.agents->Find(agent) : nullptr;
    if (!spec) return Error::Make("no agent \"" + agent + "\"", "usage");
    auto started = std::make_shared<std::promise<Result<sandbox::HeldChild*>>>();
    auto launched = started->get_future();
    keeper_thread_ = std::thread([this, spec, started] {
      auto child = LaunchAgent(*options_.agents, *spec, options_.workspaces, options_.agents_unconfined);
      if (!child.ok()) return started->set_value(child.error());
      std::shared_ptr<sandbox::HeldChild> c = std::move(*child);
      external_ = c;
      started->set_value(c.get());
      char buf[4096];
      for (;;) {
        ssize_t n = read(c->stderr_fd(), buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        std::lock_guard lock(mu_);
        stderr_tail_.append(buf, static_cast<size_t>(n));
        if (stderr_tail_.size() > 8192) stderr_tail_.erase(0, stderr_tail_.size() - 4096);
      }
      c->Wait();  // an agent that closed its stderr still runs: stay
    });
    auto child = launched.get();
    if (!child.ok()) {
      keeper_thread_.join();
      return child.error();
    }
    sandbox::HeldChild* c = *child;
    agent_ = agent;
    running_ = true;
    created_ms_ = NowMs();
    reader_thread_ = std::thread([this, c] {
      jsonrpc::LineReader reader(c->stdout_fd(), options_.agent.max_line + 1024);
      while (auto line = reader.Next())
        if (!line->too_long && !line->text.empty()) Publish(line->text);
    });
    return Ok();
  }

  // Logs the line, then shows it to the subscribers and to a POST waiting
  // for it (a response to a request in flight). One publisher at a time
  // (the reader, and a POST refused before it reached the agent), so the
  // numbers are logged in order; the log is written outside mu_, so the
  // subscribers and the waiting POSTs are not held up by the store, and
  // nobody sees the event before it is logged.
  void Publish(const std::string& line) {
    // Only a response can answer a waiting POST, and a line without
    // "result" or "error" in it is none (unless it spells its keys with
    // \u escapes: such a line is parsed too). A turn's updates, most of what
    // an agent writes, are logged and streamed without being parsed.
    const bool maybe_response = line.find("\"result\"") != std::string::npos ||
                                line.find("\"error\"") != std::string::npos ||
                                line.find("\\u") != std::string::npos;
    jsonrpc::Parsed parsed;
    if (maybe_response) parsed = jsonrpc::ParseMessage(line);
    std::lock_guard publishing(publish_mu_);
    int64_t seq;
    {
      std::lock_guard lock(mu_);
      seq = last_seq_ + 1;  // only Publish moves last_seq_
    }
    int64_t now = NowMs();
    if (options_.log) {
      Status s = options_.log->Append(id_, seq, now, line);
      if (!s.ok() && !log_failed_) {
        log_failed_ = true;  // replays that need it will say so (410)
        log::Warn("sepp serve: the event log of " + id_ + " failed: " + s.error().message);
      }
    }
    std::unique_lock lock(mu_);
    last_seq_ = seq;
    ring_.push_back({seq, now, line});
    if (ring_.size() > options_.ring) ring_.pop_front();
    bool answered = false;
    if (parsed.message && parsed.message->kind == jsonrpc::Message::Kind::kResponse) {
      auto it = pending_.find(DumpJson(parsed.message->id));
      if (it != pending_.end() && !it->second.done) {
        answered = true;
        it->second.done = true;
        it->second.response = line;
        it->second.seq = seq;
        // What an external agent says it can do, for GET /v1/agents.
        const std::string& method = it->second.method;
        if (external_ && options_.agents && (method == "initialize" || method == "session/new") &&
            parsed.message->result.is_object())
          options_.agents->Remember(agent_, method, parsed.message->result);
      }
    }
    lock.unlock();  // the woken do not wait for the lock
    events_cv_.notify_all();
    // A POST is woken by its own answer only, not by every update.
    if (answered) answers_cv_.notify_all();
  }

  // Writes one line to the agent; false when it is gone.
  bool WriteToAgent(const std::string& line) {
    std::lock_guard lock(write_mu_);
    if (external_) return !stdin_closed_ && external_->WriteStdin(line).ok();
    if (!to_agent_.valid()) return false;
    std::string_view rest = line;
    while (!rest.empty()) {
      ssize_t n = write(to_agent_.get(), rest.data(), rest.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      rest.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }

  // Sends a request and waits for its answer. nullopt: timed out (or the
  // client left); a JSON-RPC error line when the channel closed first.
  enum class Wait { kAnswered, kTimedOut, kClosed, kClientGone, kDuplicate, kAgentGone };
  Wait Request(const std::string& key, const std::string& method, const std::string& line,
               const std::function<bool()>& client_gone, std::string* answer) {
    {
      std::lock_guard lock(mu_);
      if (pending_.count(key)) return Wait::kDuplicate;
      if (closed_) return Wait::kClosed;
      pending_[key] = {};
      pending_[key].method = method;
    }
    if (!WriteToAgent(line)) {
      std::lock_guard lock(mu_);
      pending_.erase(key);
      return Wait::kAgentGone;
    }
    auto deadline = Clock::now() + options_.request_timeout;
    std::unique_lock lock(mu_);
    for (;;) {
      Pending& p = pending_[key];
      if (p.done) break;
      if (closed_) {
        pending_.erase(key);
        return Wait::kClosed;
      }
      if (Clock::now() >= deadline) {
        pending_.erase(key);
        return Wait::kTimedOut;
      }
      if (client_gone && client_gone()) {
        pending_.erase(key);
        return Wait::kClientGone;
      }
      // Wakes on the answer; the period only bounds how late a vanished
      // client is noticed.
      answers_cv_.wait_until(lock, std::min(deadline, Clock::now() + std::chrono::milliseconds(250)));
    }
    Pending p = std::move(pending_[key]);
    pending_.erase(key);
    // Let the subscribers write the events that came before the answer
    // (not the answer's own frame: the body carries it, and clients dedup
    // by id). They usually have by now, having been woken by the first of
    // them: then the answer goes out without waiting for another thread.
    auto flush_until = Clock::now() + options_.flush_wait;
    ++flushing_;
    answers_cv_.wait_until(lock, flush_until, [&] {
      for (const auto& [sub, cursor] : cursors_)
        if (cursor < p.seq - 1) return closed_;
      return true;
    });
    --flushing_;
    *answer = std::move(p.response);
    return Wait::kAnswered;
  }

  // Ends the streams and the waits, and closes the agent's input: it aborts
  // its turns and returns. Joined by Join().
  void Close() {
    {
      std::lock_guard lock(mu_);
      closed_ = true;
      events_cv_.notify_all();
      answers_cv_.notify_all();
    }
    std::lock_guard lock(write_mu_);
    to_agent_.Reset();
    // An external agent is killed, its whole tree (it is pid 1 of its pid
    // namespace): a DELETE never waits for an adapter that ignores EOF.
    if (external_) {
      stdin_closed_ = true;
      external_->Kill();
    }
  }
  void Join() {
    if (agent_thread_.joinable()) agent_thread_.join();
    if (reader_thread_.joinable()) reader_thread_.join();
    if (external_) {
      external_->Kill();  // ended by Close() already, or on its own
      if (keeper_thread_.joinable()) keeper_thread_.join();
      std::string tail;
      {
        std::lock_guard lock(mu_);
        tail = stderr_tail_;
      }
      if (!tail.empty()) log::Debug("sepp serve: agent " + agent_ + " of " + id_ + " wrote on stderr: " + tail);
    }
  }

  // The range of the stream: [first in memory, last].
  void Bounds(int64_t* ring_front, int64_t* last) {
    std::lock_guard lock(mu_);
    *last = last_seq_;
    *ring_front = ring_.empty() ? last_seq_ + 1 : ring_.front().seq;
  }

  // Serves one SSE subscriber from after `cursor` until it leaves or the
  // channel closes.
  void Serve(int64_t cursor, net::ResponseWriter& w) {
    int sub;
    {
      std::lock_guard lock(mu_);
      sub = next_sub_++;
      cursors_[sub] = cursor;
    }
    auto next_beat = Clock::now() + options_.heartbeat;
    for (;;) {
      std::vector<LoggedEvent> batch;
      bool from_log = false;
      {
        std::unique_lock lock(mu_);
        int64_t front = ring_.empty() ? last_seq_ + 1 : ring_.front().seq;
        if (cursor < last_seq_ && cursor + 1 < front) {
          from_log = true;  // fell behind the ring: read the log, unlocked
        } else if (cursor < last_seq_) {
          for (size_t i = static_cast<size_t>(cursor + 1 - front); i < ring_.size() && batch.size() < 256;
               ++i)
            batch.push_back(ring_[i]);
        } else if (closed_) {
          break;
        } else {
          events_cv_.wait_until(lock, std::min(next_beat, Clock::now() + std::chrono::milliseconds(250)));
        }
      }
      if (from_log) {
        auto read = options_.log ? options_.log->Read(id_, cursor, 256)
                                 : Result<std::vector<LoggedEvent>>(Error::Make("no event log"));
        if (!read.ok() || read->empty() || read->front().seq != cursor + 1) {
          // The events are lost: end the stream rather than skip them.
          w.Write(": the events after " + std::to_string(cursor) +
                  " are no longer stored; reconnect without Last-Event-ID\n\n");
          break;
        }
        batch = std::move(*read);
        for (size_t i = 1; i < batch.size(); ++i)
          if (batch[i].seq != batch[i - 1].seq + 1) {
            batch.resize(i);
            break;
          }
      }
      if (!batch.empty()) {
        std::string frames;
        for (const auto& e : batch)
          frames += "event: message\nid: " + std::to_string(e.seq) + "\ndata: " + e.data + "\n\n";
        if (!w.Write(frames)) break;
        cursor = batch.back().seq;
        bool flushing;
        {
          std::lock_guard lock(mu_);
          cursors_[sub] = cursor;
          flushing = flushing_ > 0;
        }
        // Only a POST in its flush wait cares (the other subscribers do not).
        if (flushing) answers_cv_.notify_all();
        continue;
      }
      if (w.client_gone()) break;
      if (Clock::now() >= next_beat) {
        if (!w.Write(": heartbeat\n\n")) break;
        next_beat = Clock::now() + options_.heartbeat;
      }
    }
    std::lock_guard lock(mu_);
    cursors_.erase(sub);
    if (flushing_ > 0) answers_cv_.notify_all();
  }

 private:
  struct Pending {
    std::string method;  // of the request
    bool done = false;
    std::string response;
    int64_t seq = 0;
  };

  const std::string id_;
  std::string agent_;
  const AcpHubOptions& options_;
  int64_t created_ms_ = 0;

  std::mutex write_mu_;  // one writer of the agent's input at a time
  UniqueFd to_agent_;
  std::shared_ptr<sandbox::HeldChild> external_;  // set once, before StartAgent returns
  bool stdin_closed_ = false;                      // under write_mu_

  std::mutex publish_mu_;  // one Publish at a time; guards log_failed_
  std::mutex mu_;  // guards what follows
  std::condition_variable events_cv_;   // subscribers: a new event, or closed
  std::condition_variable answers_cv_;  // POSTs: an answer, a flush's progress, or closed
  int flushing_ = 0;                    // POSTs in their flush wait
  bool running_ = false;
  bool closed_ = false;
  bool log_failed_ = false;
  int64_t last_seq_;
  std::deque<LoggedEvent> ring_;
  std::map<std::string, Pending> pending_;  // by the request id's JSON
  std::map<int, int64_t> cursors_;          // subscriber -> last seq written
  int next_sub_ = 0;
  std::string stderr_tail_;  // an external agent's last words
  std::thread agent_thread_, reader_thread_, keeper_thread_;
};

AcpHub::AcpHub(AcpHubOptions options) : options_(std::move(options)) {
  for (const auto& w : options_.workspaces) {
    std::error_code ec;
    fs::path c = fs::weakly_canonical(w, ec);
    roots_.push_back(ec ? w.lexically_normal() : c);
  }
}

AcpHub::~AcpHub() { Shutdown(); }

std::shared_ptr<Channel> AcpHub::Find(const std::string& id) {
  std::lock_guard lock(mu_);
  auto it = channels_.find(id);
  return it == channels_.end() ? nullptr : it->second;
}

std::optional<std::string> AcpHub::OutsideWorkspaces(const std::string& method,
                                                     const Json& params) {
  if (method != "session/new" && method != "session/load" && method != "session/resume" &&
      method != "session/fork" && method != "session/list")
    return std::nullopt;
  if (!params.is_object() || !params.contains("cwd") || !params["cwd"].is_string()) {
    // Without a cwd, session/list would list the sessions of every folder
    // on this machine.
    if (method == "session/list")
      return std::string("give session/list a \"cwd\" inside the server's workspaces");
    return std::nullopt;  // the agent itself says what is missing
  }
  fs::path cwd(params["cwd"].get<std::string>());
  std::error_code ec;
  fs::path c = fs::weakly_canonical(cwd, ec);
  if (ec) c = cwd.lexically_normal();
  for (const auto& root : roots_) {
    auto mismatch = std::mismatch(root.begin(), root.end(), c.begin(), c.end());
    if (mismatch.first == root.end()) return std::nullopt;
  }
  std::string list;
  for (const auto& r : roots_) list += (list.empty() ? "" : ", ") + r.string();
  return "\"cwd\" " + cwd.string() + " is outside the workspaces this server was started with (" +
         list + "); pick a folder inside one, or restart `sepp serve` with --workspace";
}

PostAnswer AcpHub::Post(const std::string& server_id, const std::optional<std::string>& agent,
                        std::string_view body, const std::function<bool()>& client_gone) {
  PostAnswer a;
  auto fail = [&](int status, const char* kind, std::string detail, Json extra = nullptr) {
    a.status = status;
    a.problem_kind = kind;
    a.detail = std::move(detail);
    a.extra = std::move(extra);
    return a;
  };
  auto parsed = jsonrpc::ParseMessage(body);
  if (!parsed.message) {
    Json err = parsed.error_response.is_object() ? parsed.error_response["error"] : Json();
    std::string why = err.is_object() && err.contains("message") && err["message"].is_string()
                          ? err["message"].get<std::string>()
                          : "not a JSON-RPC 2.0 message";
    return fail(400, problem::kInvalidEnvelope,
                "the body is not one valid JSON-RPC 2.0 message: " + why,
                Json{{"jsonrpc_error", err}});
  }
  const jsonrpc::Message& m = *parsed.message;
  if (agent && *agent != "sepp" && !(options_.agents && options_.agents->Find(*agent))) {
    std::string known = "sepp";
    if (options_.agents)
      for (const auto& s : options_.agents->specs()) known += ", " + s.id;
    return fail(400, problem::kUnsupportedAgent,
                "no agent \"" + VisibleControls(agent->substr(0, 64)) + "\"; this server runs " + known +
                    " (GET /v1/agents)");
  }

  std::shared_ptr<Channel> ch;
  {
    std::lock_guard lock(mu_);
    if (shut_down_) return fail(503, problem::kInternal, "the server is shutting down");
    auto it = channels_.find(server_id);
    if (it != channels_.end()) ch = it->second;
    if (!ch || !ch->has_agent()) {
      if (!agent)
        return fail(400, problem::kInvalidRequest,
                    "the first POST to a new server id must name its agent: add ?agent=sepp");
      bool created = !ch;
      if (!ch) {
        int64_t last = 0;
        if (options_.log) {
          auto l = options_.log->LastSeq(server_id);
          if (l.ok()) last = *l;
        }
        ch = std::make_shared<Channel>(server_id, *agent, last, options_);
        channels_[server_id] = ch;
        deleted_.erase(server_id);
      }
      if (Status s = ch->StartAgent(*agent); !s.ok()) {
        if (created) channels_.erase(server_id);  // nothing ran: the id stays free
        return fail(s.error().kind == "not_installed" ? 409 : 502,
                    s.error().kind == "not_installed" ? problem::kConflict : problem::kStreamError,
                    "could not start the agent: " + s.error().message);
      }
    }
  }
  // One line, whatever the body's layout (a pretty-printed body has
  // newlines; a body without any is one line already, and valid JSON).
  std::string line = body.find_first_of("\r\n") == std::string_view::npos
                         ? std::string(body) + "\n"
                         : DumpJson(*ParseJson(body)) + "\n";

  if (m.kind != jsonrpc::Message::Kind::kRequest) {
    ch->WriteToAgent(line);  // a dead agent has no one left to tell
    a.status = 202;
    return a;
  }
  if (auto outside = OutsideWorkspaces(m.method, m.params)) {
    std::string err = DumpJson(jsonrpc::MakeError(m.id, jsonrpc::kInvalidParams, *outside));
    ch->Publish(err);
    a.body = err;
    return a;
  }
  std::string answer;
  switch (ch->Request(DumpJson(m.id), m.method, line, client_gone, &answer)) {
    case Channel::Wait::kAnswered:
      a.body = std::move(answer);
      return a;
    case Channel::Wait::kTimedOut:
      return fail(504, problem::kTimeout,
                  "the agent did not answer \"" + m.method + "\" (id " + DumpJson(m.id) +
                      ") within " + std::to_string(options_.request_timeout.count()) +
                      " ms; its answer, when it comes, is sent on GET /v1/acp/" + server_id);
    case Channel::Wait::kDuplicate:
      a.body = DumpJson(jsonrpc::MakeError(
          m.id, jsonrpc::kInvalidRequest,
          "a request with id " + DumpJson(m.id) + " is still in flight; use a new id"));
      return a;
    case Channel::Wait::kClosed:
    case Channel::Wait::kAgentGone:
      a.body = DumpJson(jsonrpc::MakeError(
          m.id, jsonrpc::kInternalError,
          "the connection " + server_id + " was closed before the agent answered"));
      return a;
    case Channel::Wait::kClientGone:
      a.status = 499;  // nobody reads it
      return a;
  }
  return a;
}

void AcpHub::Stream(const std::string& server_id, const std::optional<int64_t>& last_event_id,
                    net::ResponseWriter& w, const net::Headers& extra) {
  std::shared_ptr<Channel> ch;
  {
    std::lock_guard lock(mu_);
    auto it = channels_.find(server_id);
    if (it != channels_.end()) {
      ch = it->second;
    } else if (!shut_down_ && options_.log) {
      // Not running, but logged (before a restart): the stream can be read,
      // and a POST with ?agent= brings its agent back on the same numbers.
      auto last = options_.log->LastSeq(server_id);
      if (last.ok() && *last > 0) {
        // An id deleted by this process replays to its end and stops; one
        // from before a restart stays open for the agent to come back.
        bool deleted = deleted_.count(server_id) > 0;
        ch = std::make_shared<Channel>(server_id, "sepp", *last, options_, deleted);
        if (!deleted) channels_[server_id] = ch;
      }
    }
  }
  if (!ch)
    return SendProblem(w, extra, 404, problem::kSessionNotFound,
                       "no ACP connection " + server_id +
                           "; POST a JSON-RPC message to it with ?agent=sepp to open one");
  int64_t front, last;
  ch->Bounds(&front, &last);
  int64_t cursor = front - 1;  // no Last-Event-ID: what memory holds
  if (last_event_id) {
    if (*last_event_id > last)
      return SendProblem(w, extra, 400, problem::kInvalidRequest,
                         "Last-Event-ID " + std::to_string(*last_event_id) +
                             " is ahead of this stream, whose last event is " +
                             std::to_string(last));
    cursor = *last_event_id;
  }
  if (cursor + 1 < front) {
    // Older than memory: every one of them must be in the log.
    int64_t want = front - 1 - cursor;
    Result<int64_t> have =
        options_.log ? options_.log->Count(server_id, cursor, front - 1) : Result<int64_t>(0);
    if (!have.ok() || *have != want) {
      int64_t oldest = front;
      if (options_.log) {
        auto first = options_.log->Read(server_id, 0, 1);
        if (first.ok() && !first->empty()) oldest = first->front().seq;
      }
      return SendProblem(
          w, extra, 410, problem::kReplayUnavailable,
          "the events after " + std::to_string(cursor) + " up to " + std::to_string(front - 1) +
              " are not all stored any more; reconnect without Last-Event-ID, or resume from " +
              std::to_string(std::max<int64_t>(oldest, front) - 1) + " or later",
          Json{{"lastEventId", cursor}, {"oldestStored", oldest}});
    }
  }
  net::Headers h = {{"Content-Type", "text/event-stream"},
                    {"Cache-Control", "no-cache"},
                    {"X-Accel-Buffering", "no"}};
  h.insert(h.end(), extra.begin(), extra.end());
  if (!w.Begin(200, h)) return;
  ch->Serve(cursor, w);
}

void AcpHub::Delete(const std::string& server_id) {
  std::shared_ptr<Channel> ch;
  {
    std::lock_guard lock(mu_);
    auto it = channels_.find(server_id);
    if (it == channels_.end()) return;
    ch = std::move(it->second);
    channels_.erase(it);
    deleted_.insert(server_id);
  }
  ch->Close();
  Reap(std::move(ch));
}

void AcpHub::Reap(std::shared_ptr<Channel> ch) {
  std::list<Reaper> finished;
  {
    std::lock_guard lock(mu_);
    for (auto it = reapers_.begin(); it != reapers_.end();)
      if (it->done->load()) {
        finished.splice(finished.end(), reapers_, it++);
      } else {
        ++it;
      }
    auto done = std::make_shared<std::atomic<bool>>(false);
    reapers_.push_back({std::thread([ch = std::move(ch), done] {
                          ch->Join();
                          *done = true;
                        }),
                        done});
  }
  for (auto& r : finished) r.thread.join();
}

Json AcpHub::List() {
  std::vector<std::shared_ptr<Channel>> all;
  {
    std::lock_guard lock(mu_);
    for (auto& [id, ch] : channels_) all.push_back(ch);
  }
  Json servers = Json::array();
  for (auto& ch : all)
    if (ch->has_agent())
      servers.push_back({{"serverId", ch->id()}, {"agent", ch->agent()}, {"createdAtMs", ch->created_ms()}});
  return Json{{"servers", servers}};
}

size_t AcpHub::running() { return List()["servers"].size(); }

void AcpHub::Shutdown() {
  std::map<std::string, std::shared_ptr<Channel>> all;
  std::list<Reaper> reapers;
  {
    std::lock_guard lock(mu_);
    shut_down_ = true;
    all.swap(channels_);
  }
  for (auto& [id, ch] : all) ch->Close();
  for (auto& [id, ch] : all) ch->Join();
  {
    std::lock_guard lock(mu_);
    reapers.swap(reapers_);
  }
  for (auto& r : reapers) r.thread.join();
}

}  // namespace sepp::front::serve
