#include "front/rpc/rpc_mode.h"

#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "base/fd.h"
#include "base/json.h"
#include "base/log.h"
#include "front/rpc/line_reader.h"
#include "front/rpc/pi_events.h"
#include "front/rpc/pi_format.h"
#include "front/rpc/question_dialogs.h"

namespace sepp::front::rpc {
namespace {

using runtime::AgentSession;

// Lines for stdout, written by one thread at a time. Whoever hands lines
// in (the reader answering, the thread delivering events) writes them
// itself when nothing is queued or being written and stdout can take them
// without blocking, so a response or a turn's events cost no hand-off;
// otherwise they queue for the writer thread (order is kept), which alone
// ever waits on stdout (the reader must never block on it: a client that
// stops reading could then not abort). Responses always go in (they are few
// and bounded by the commands read). Events wait while the buffer is over
// its limit (Event), or are not taken then (HasRoom, for a thread that must
// not wait), so a client that stops reading stalls only the event pump.
class Output {
 public:
  Output(int fd, size_t max_event_bytes) : fd_(fd), max_(max_event_bytes) {
    writer_ = std::thread([this] { Run(); });
  }
  ~Output() { Stop(); }

  void Response(std::string line) {
    std::unique_lock<std::mutex> l(mu_);
    Put(l, std::move(line));
  }
  // Whole lines of events. False when they had to be dropped (the client is
  // gone, or the buffer stayed full until `give_up`).
  bool Event(std::string lines, const std::atomic<bool>& give_up) {
    std::unique_lock<std::mutex> l(mu_);
    space_cv_.wait(l, [&] { return bytes_ < max_ || dead_ || stopping_ || give_up; });
    if (dead_ || bytes_ >= max_) return false;
    return Put(l, std::move(lines));
  }
  // For a thread that must not wait: true while the buffer is under its
  // limit; EventNow then takes the next lines (which may go past the limit
  // by that much, as with Event).
  bool HasRoom() {
    std::lock_guard<std::mutex> l(mu_);
    return bytes_ < max_ && !dead_;
  }
  void EventNow(std::string lines) {
    std::unique_lock<std::mutex> l(mu_);
    Put(l, std::move(lines));
  }
  void Stop() {
    {
      std::lock_guard<std::mutex> l(mu_);
      if (stopping_ && !writer_.joinable()) return;
      stopping_ = true;
    }
    cv_.notify_all();
    space_cv_.notify_all();
    if (writer_.joinable()) writer_.join();
  }
  void WakeWaiters() { space_cv_.notify_all(); }

 private:
  // Writes lines at once (l is let go meanwhile) when that cannot wait,
  // else queues them for the writer thread. False when the client is gone.
  bool Put(std::unique_lock<std::mutex>& l, std::string lines) {
    if (dead_) return false;
    if (q_.empty() && !writing_ && lines.size() <= kDirectMax) {
      writing_ = true;
      l.unlock();
      bool wrote = false, ok = true;
      if (WritableNow(fd_)) {
        ok = WriteAll(fd_, lines).ok();
        wrote = true;
      }
      l.lock();
      writing_ = false;
      if (!ok) dead_ = true;  // the client went away: write nothing more
      if (!q_.empty()) cv_.notify_all();  // lines that came meanwhile
      if (wrote) return ok;
    }
    bytes_ += lines.size();
    q_.push_back(std::move(lines));
    cv_.notify_all();
    return true;
  }

  // Everything queued goes out in one write: a burst of lines costs one
  // system call, not one per line.
  void Run() {
    for (;;) {
      std::string lines;
      bool gone;
      {
        std::unique_lock<std::mutex> l(mu_);
        cv_.wait(l, [&] { return (!q_.empty() || stopping_) && !writing_; });
        if (q_.empty()) return;
        while (!q_.empty() && lines.size() < kMaxBatch) {
          lines += q_.front();
          q_.pop_front();
        }
        writing_ = true;
        gone = dead_;
      }
      bool ok = !gone && WriteAll(fd_, lines).ok();
      std::lock_guard<std::mutex> l(mu_);
      writing_ = false;
      bytes_ -= lines.size();
      if (!ok) dead_ = true;  // the client went away: keep draining, write nothing
      space_cv_.notify_all();
    }
  }

  // stdout has room now for a write of up to kDirectMax bytes: a pipe that
  // polls writable has a free page at least, and a write of at most
  // PIPE_BUF bytes then goes in whole without waiting.
  static bool WritableNow(int fd) {
    pollfd p{fd, POLLOUT, 0};
    return poll(&p, 1, 0) == 1 && (p.revents & POLLOUT) && !(p.revents & (POLLERR | POLLHUP));
  }

  static constexpr size_t kDirectMax = PIPE_BUF;
  static constexpr size_t kMaxBatch = 256 * 1024;
  int fd_;
  size_t max_;
  std::mutex mu_;
  std::condition_variable cv_, space_cv_;
  std::deque<std::string> q_;
  size_t bytes_ = 0;
  bool writing_ = false;  // a thread is in write()
  bool dead_ = false;
  bool stopping_ = false;
  std::thread writer_;
};

std::string Line(const Json& j) { return DumpJson(j) + "\n"; }

// The id of a line that is not valid JSON, if one can be read from it: a
// client that sent {"id":"7", ... garbage still gets its answer.
Json SalvageId(std::string_view line) {
  size_t k = line.find("\"id\"");
  if (k == std::string_view::npos) return nullptr;
  size_t p = k + 4;
  while (p < line.size() && (line[p] == ' ' || line[p] == '\t')) ++p;
  if (p >= line.size() || line[p] != ':') return nullptr;
  ++p;
  while (p < line.size() && (line[p] == ' ' || line[p] == '\t')) ++p;
  if (p < line.size() && line[p] == '"') {
    std::string id;
    for (size_t i = p + 1; i < line.size(); ++i) {
      if (line[i] == '\\') return nullptr;  // keep it simple: no escapes
      if (line[i] == '"') return id;
      id += line[i];
    }
    return nullptr;
  }
  size_t e = p;
  while (e < line.size() && (isdigit(static_cast<unsigned char>(line[e])) || line[e] == '-')) ++e;
  if (e == p) return nullptr;
  auto n = ParseJson(line.substr(p, e - p));
  return n.ok() ? *n : Json(nullptr);
}

std::string Utf8Prefix(std::string_view s, size_t n) {
  if (s.size() <= n) return std::string(s);
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return std::string(s.substr(0, n)) + "…";
}

const char* kChoiceLabels[] = {"Allow once", "Allow for this session", "Always allow for this project",
                               "Deny"};
const char* kTrustLabels[] = {"Allow", "Deny"};
const agent::PermissionChoice kChoices[] = {
    agent::PermissionChoice::kAllowOnce, agent::PermissionChoice::kAllowSession,
    agent::PermissionChoice::kAllowProject, agent::PermissionChoice::kDeny};

class RpcServer {
 public:
  RpcServer(AgentSession& session, const RpcOptions& o)
      : s_(session), o_(o), out_(o.out_fd, o.max_buffered_event_bytes),
        mapper_(session.GetState().provider) {}

  int Run() {
    std::thread pump([this, sub = Listen(s_.Subscribe(8192))] { Pump(sub); });
    LineReader reader(o_.max_line_bytes, [this](std::string_view line, bool too_long) {
      OnLine(line, too_long);
    });
    char buf[65536];
    for (;;) {
      pollfd fds[2] = {{o_.in_fd, POLLIN, 0}, {o_.stop_fd, POLLIN, 0}};
      int pr = poll(fds, o_.stop_fd >= 0 ? 2 : 1, -1);
      if (pr < 0 && errno == EINTR) continue;
      if (pr < 0 || (o_.stop_fd >= 0 && fds[1].revents)) break;
      ssize_t n = read(o_.in_fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      reader.Feed(std::string_view(buf, static_cast<size_t>(n)));
    }
    reader.Finish();
    // stdin closed: end a running turn (and the user's commands) cleanly,
    // then leave.
    s_.Abort();
    s_.AbortBash();
    s_.WaitIdle();
    for (auto& t : helpers_) t.join();
    s_.Close();  // publishes session.ended, closes the subscription
    stop_pump_ = true;
    out_.WakeWaiters();
    pump.join();
    out_.Stop();
    return 0;
  }

 private:
  // While a prompt command is being answered, the pump holds its events.
  struct ResponseFirst {
    RpcServer& s;
    explicit ResponseFirst(RpcServer& server) : s(server) {
      std::lock_guard<std::mutex> l(s.first_mu_);
      s.answering_ = true;
    }
    // The events held meanwhile (the run's agent_start) go out now, from
    // this thread, right behind the response.
    ~ResponseFirst() {
      {
        std::lock_guard<std::mutex> l(s.first_mu_);
        s.answering_ = false;
      }
      s.first_cv_.notify_all();
      s.DeliverPending();
    }
  };
  void WaitWhileAnswering() {
    std::unique_lock<std::mutex> l(first_mu_);
    first_cv_.wait(l, [&] { return !answering_; });
  }
  bool Answering() {
    std::lock_guard<std::mutex> l(first_mu_);
    return answering_;
  }

  // agent_settled records the pump has written (or lost to a lag): what an
  // abort's response waits for.
  uint64_t SettledCount() {
    std::lock_guard<std::mutex> l(settle_mu_);
    return settled_;
  }
  void NoteSettled(bool pump_done = false) {
    std::lock_guard<std::mutex> l(settle_mu_);
    ++settled_;
    pump_done_ |= pump_done;
    settle_cv_.notify_all();
  }
  void WaitSettledAfter(uint64_t before) {
    std::unique_lock<std::mutex> l(settle_mu_);
    settle_cv_.wait(l, [&] { return settled_ > before || pump_done_; });
  }

  // Events reach stdout on the thread that published them (the agent's
  // loop; the reader for a prompt's agent_start, after its response): the
  // bus calls DeliverNow there, which maps and writes what is queued when
  // that needs no waiting. What does (a full buffer, a dialog to open, a
  // lost-events notice, a response still being written) is left to the
  // pump thread, which may wait: so a client that stops reading stalls the
  // pump, never the loop. pump_mu_ keeps the two in order.
  std::shared_ptr<runtime::Subscription> Listen(std::shared_ptr<runtime::Subscription> sub) {
    std::weak_ptr<runtime::Subscription> weak = sub;
    sub->SetListener([this, weak] {
      if (auto s = weak.lock()) DeliverNow(*s);
    });
    std::lock_guard<std::mutex> l(sub_mu_);
    sub_ = sub;
    return sub;
  }

  void DeliverPending() {
    std::shared_ptr<runtime::Subscription> sub;
    {
      std::lock_guard<std::mutex> l(sub_mu_);
      sub = sub_;
    }
    if (sub) DeliverNow(*sub);
  }

  // Never waits (see above).
  void DeliverNow(runtime::Subscription& sub) {
    std::unique_lock<std::mutex> pl(pump_mu_, std::try_to_lock);
    if (!pl.owns_lock()) return sub.Wake();  // the pump thread takes it after its holder
    std::vector<agent::Event> events;
    events.swap(held_);  // older than what is queued
    sub.DrainInto(&events);
    if (events.empty()) return;
    // While a prompt is answered its events wait (ResponseFirst delivers
    // them); past the buffer's limit the pump thread waits for room.
    bool answering = Answering();
    size_t done = answering || !out_.HasRoom() ? 0 : Handle(events, false);
    if (done == events.size()) return;
    held_.assign(std::make_move_iterator(events.begin() + static_cast<ptrdiff_t>(done)),
                 std::make_move_iterator(events.end()));
    if (!answering) sub.Wake();
  }

  void Pump(std::shared_ptr<runtime::Subscription> sub) {
    struct Done {
      RpcServer* s;
      ~Done() { s->NoteSettled(true); }
    } done{this};
    std::vector<agent::Event> events;
    for (;;) {
      sub->Wait();
      std::lock_guard<std::mutex> pl(pump_mu_);
      events.clear();
      events.swap(held_);
      sub->DrainInto(&events);
      if (!events.empty()) {
        Handle(events, true);
        continue;
      }
      if (!sub->closed()) continue;
      if (!sub->lagged() || stop_pump_) return;
      // Fell behind: said so once (events_lost); go on with a fresh subscription.
      sub = Listen(s_.Subscribe(8192));
    }
  }

  // Maps events into one batch of lines, written at once; the batch goes
  // out before anything whose order matters to a client (a dialog, a
  // lost-events notice, a settled run an abort's response waits for).
  // may_wait false (DeliverNow): stops before the first event that needs
  // the pump thread and returns how many were handled. Under pump_mu_.
  size_t Handle(const std::vector<agent::Event>& events, bool may_wait) {
    std::string batch;
    auto flush = [&] {
      if (batch.empty()) return;
      if (may_wait) {
        WaitWhileAnswering();
        out_.Event(std::move(batch), stop_pump_);
      } else {
        out_.EventNow(std::move(batch));
      }
      batch.clear();
    };
    for (size_t i = 0; i < events.size(); ++i) {
      const agent::Event& e = events[i];
      bool dialog = e.type == agent::EventType::kSubscriberLagged ||
                    e.type == agent::EventType::kPermissionRequested ||
                    e.type == agent::EventType::kQuestionRequested;
      if (dialog && !may_wait) {
        flush();
        return i;
      }
      if (e.type == agent::EventType::kSubscriberLagged) {
        flush();
        Json lost = {{"type", "events_lost"}, {"dropped", e.data.value("dropped", 0)},
                     {"message", "the client read stdout too slowly and some events were dropped; "
                                 "resynchronise with get_state and get_messages"}};
        out_.Response(Line(lost));
        NoteSettled();  // an agent_settled may have been among the lost
        continue;
      }
      if (e.type == agent::EventType::kPermissionRequested) {
        flush();
        AskPermission(e);
        continue;
      }
      if (e.type == agent::EventType::kQuestionRequested) {
        flush();
        if (Json dialog = questions_.Open(e); !dialog.is_null()) out_.Response(Line(dialog));
        continue;
      }
      if (e.type == agent::EventType::kQuestionResolved)
        questions_.Forget(e.data.value("question_id", ""));
      mapper_.Map(e, &batch);
      if (e.type == agent::EventType::kAgentSettled && e.parent_call_id.empty()) {
        flush();
        NoteSettled();
      }
    }
    flush();
    return events.size();
  }

  // A trust request (a project's code, an extension's capabilities): pi's
  // select dialog with two options; the files or capabilities are listed in
  // the title and in sepp.permission.items.
  void AskTrust(const agent::Event& e) {
    const Json& d = e.data;
    bool project = d.value("kind", "") == "project_trust";
    std::string title = project ? "Trust the code of the project " + d.value("subject", "") + "?"
                                : "Start the extension " + d.value("subject", "") +
                                      " with the capabilities it declares?";
    for (const auto& i : d.value("items", Json::array())) {
      title += "\n  " + i.value("detail", "") + ": " + i.value("path", "");
      if (!i.value("sha256", "").empty()) title += " (sha256 " + i.value("sha256", "").substr(0, 16) + ")";
      for (const auto& c : i.value("capabilities", Json::array()))
        if (c.is_string()) title += "\n      may: " + c.get<std::string>();
    }
    std::string why = d.value("justification", "");
    if (!why.empty()) title += "\n" + why;
    Json req = {{"type", "extension_ui_request"},
                {"id", d.value("request_id", "")},
                {"method", "select"},
                {"title", title},
                {"options", {kTrustLabels[0], kTrustLabels[1]}},
                {"timeout", static_cast<int64_t>(d.value("timeout_s", 300.0) * 1000)},
                {"sepp", {{"permission", d}}}};
    out_.Response(Line(req));
  }

  void AskPermission(const agent::Event& e) {
    const Json& d = e.data;
    if (d.value("kind", "sandbox") != "sandbox") return AskTrust(e);
    std::string what;
    for (const auto& w : d.value("widen", Json::array())) {
      if (!what.empty()) what += ", ";
      std::string kind = w.value("kind", "");
      what += (kind == "domain" ? "network access to " : kind == "write" ? "writing to " : "reading ")
              + w.value("target", "");
    }
    Json options = Json::array();
    for (const char* l : kChoiceLabels) options.push_back(l);
    Json req = {{"type", "extension_ui_request"},
                {"id", d.value("request_id", "")},
                {"method", "select"},
                {"title", std::string(d.value("parent_call_id", "").empty()
                                          ? ""
                                          : "A sub-agent (of call " +
                                                d.value("parent_call_id", "") + ") asks: ") +
                              "Allow " + what + "? " + d.value("justification", "")},
                {"options", options},
                {"timeout", static_cast<int64_t>(d.value("timeout_s", 300.0) * 1000)},
                {"sepp", {{"permission", d}}}};
    out_.Response(Line(req));  // a dialog must not wait behind buffered events
  }

  void Respond(const Json& id, const std::string& command, bool ok, Json data = nullptr,
               const std::string& error = "") {
    Json r = {{"type", "response"}, {"command", command}, {"success", ok}};
    if (!id.is_null()) r["id"] = id;
    if (ok && !data.is_null()) r["data"] = std::move(data);
    if (!ok) r["error"] = error;
    out_.Response(Line(r));
  }

  void OnLine(std::string_view line, bool too_long) {
    if (too_long) {
      Respond(SalvageId(line), "parse", false, nullptr,
              "Failed to parse command: the line is longer than " +
                  std::to_string(o_.max_line_bytes) + " bytes");
      return;
    }
    if (line.find_first_not_of(" \t") == std::string_view::npos) return;  // blank: nothing asked
    auto parsed = ParseJson(line);
    if (!parsed.ok()) {
      Respond(SalvageId(line), "parse", false, nullptr,
              "Failed to parse command: " + parsed.error().message);
      return;
    }
    Json& cmd = *parsed;
    if (!cmd.is_object()) {
      Respond(nullptr, "parse", false, nullptr,
              "Failed to parse command: a command is a JSON object with a \"type\"");
      return;
    }
    Json id = cmd.contains("id") ? cmd["id"] : Json(nullptr);
    if (!cmd.contains("type") || !cmd["type"].is_string()) {
      Respond(id, "parse", false, nullptr, "Failed to parse command: \"type\" (a string) is missing");
      return;
    }
    std::string type = cmd["type"];
    try {
      Dispatch(id, type, cmd);
    } catch (const std::exception& ex) {
      // Wrong field types (a number where a string belongs) and the like.
      Respond(id, type, false, nullptr, std::string("bad arguments: ") + ex.what());
    }
  }

  static std::string Str(const Json& cmd, const char* key) {
    auto it = cmd.find(key);
    if (it == cmd.end() || it->is_null()) return {};
    if (!it->is_string()) throw std::invalid_argument(std::string("\"") + key + "\" must be a string");
    return it->get<std::string>();
  }

  Json StateJson() {
    runtime::SessionState st = s_.GetState();
    Json d = {{"model", PiModel(st.provider, st.model)},
              {"thinkingLevel", runtime::ToString(st.thinking)},
              {"isStreaming", st.busy},
              {"isCompacting", st.compacting},
              {"steeringMode", "all"},
              {"followUpMode", "one-at-a-time"},
              {"sessionId", st.session_id},
              {"autoCompactionEnabled", st.auto_compaction},
              {"messageCount", st.message_count},
              {"pendingMessageCount", st.queue.steering.size() + st.queue.follow_up.size()}};
    if (!st.session_file.empty()) d["sessionFile"] = st.session_file;
    if (!st.session_name.empty()) d["sessionName"] = st.session_name;
    return d;
  }

  Json MessagesJson() {
    std::string provider = s_.GetState().provider;
    Json ms = Json::array();
    for (const auto& m : s_.Messages()) ms.push_back(PiMessage(m, provider, 0));
    return ms;
  }

  Json StatsJson() {
    runtime::SessionState st = s_.GetState();
    int user = 0, assistant = 0, calls = 0, results = 0;
    auto msgs = s_.Messages();
    for (const auto& m : msgs) {
      if (m.role == llm::Role::kUser) ++user;
      if (m.role == llm::Role::kAssistant) {
        ++assistant;
        calls += static_cast<int>(m.ToolCalls().size());
      }
      if (m.role == llm::Role::kToolResult) ++results;
    }
    const llm::Usage& u = st.total_usage;
    Json d = {{"sessionId", st.session_id},
              {"userMessages", user},
              {"assistantMessages", assistant},
              {"toolCalls", calls},
              {"toolResults", results},
              {"totalMessages", msgs.size()},
              {"tokens", {{"input", u.input}, {"output", u.output}, {"cacheRead", u.cache_read},
                          {"cacheWrite", u.cache_write}, {"total", u.total()}}},
              {"cost", 0}};
    if (!st.session_file.empty()) d["sessionFile"] = st.session_file;
    return d;
  }

  // Nested tree of pi's get_tree from the runtime's flat node list.
  Json TreeJson() {
    Json tree = s_.Tree();
    std::map<std::string, Json> entries;
    std::string provider = s_.GetState().provider;
    for (const auto& e : s_.Entries()) entries[e.value("id", "")] = PiEntry(e, provider);
    std::map<std::string, const Json*> nodes;
    for (const auto& n : tree["nodes"]) nodes[n.value("id", "")] = &n;
    std::function<Json(const Json&, int)> build = [&](const Json& n, int depth) -> Json {
      Json kids = Json::array();
      if (depth < 10000)
        for (const auto& c : n["children"])
          if (auto it = nodes.find(c.get<std::string>()); it != nodes.end())
            kids.push_back(build(*it->second, depth + 1));
      Json out = {{"entry", entries[n.value("id", "")]}, {"children", kids}};
      if (n.contains("label")) out["label"] = n["label"];
      return out;
    };
    Json roots = Json::array();
    for (const auto& n : tree["nodes"]) {
      std::string parent = n.value("parent_id", "");
      if (parent.empty() || !nodes.count(parent)) roots.push_back(build(n, 0));
    }
    std::string leaf = tree.value("leaf", "");
    return {{"tree", roots}, {"leafId", leaf.empty() ? Json(nullptr) : Json(leaf)}};
  }

  void Later(std::function<void()> fn) {
    std::lock_guard<std::mutex> l(helpers_mu_);
    helpers_.emplace_back(std::move(fn));
  }

  void Dispatch(const Json& id, const std::string& type, const Json& cmd) {
    auto ok = [&](Json data = nullptr) { Respond(id, type, true, std::move(data)); };
    auto fail = [&](const std::string& why) { Respond(id, type, false, nullptr, why); };
    auto status = [&](const Status& st, Json data = nullptr) {
      if (st.ok()) ok(std::move(data));
      else fail(st.error().message);
    };

    if (type == "prompt" || type == "steer" || type == "follow_up") {
      // As in pi, the response comes before the events of the run it
      // starts: the pump holds events while this command is answered (it
      // never waits the other way round, so the reader cannot be stalled).
      ResponseFirst first(*this);
      std::string message = Str(cmd, "message");
      if (cmd.contains("images") && cmd["images"].is_array() && !cmd["images"].empty())
        return fail("images are not supported by sepp yet: send text");
      std::string behaviour = type == "steer" ? "steer" : type == "follow_up" ? "followUp"
                                                                             : Str(cmd, "streamingBehavior");
      bool was_busy = s_.GetState().busy;
      Status st = Ok();
      if (type == "prompt" && behaviour.empty()) {
        st = s_.Prompt(message);
        if (!st.ok() && st.error().kind == "busy")
          return fail("Agent is already processing. Specify streamingBehavior ('steer' or "
                      "'followUp') to queue the message.");
      } else if (behaviour == "steer") {
        st = s_.Steer(message);
      } else if (behaviour == "followUp") {
        st = s_.FollowUp(message);
      } else {
        return fail("streamingBehavior must be \"steer\" or \"followUp\"");
      }
      // Steer and follow-up start a run themselves when the agent is idle.
      bool queued = was_busy && !(type == "prompt" && behaviour.empty());
      return status(st, {{"disposition", queued ? "queued" : "started"}});
    }
    if (type == "abort") {
      // pi answers after the aborted run's agent_settled. The reader must
      // not wait for that (a permission answer or another command may come
      // first), so a helper does.
      uint64_t before = SettledCount();
      bool busy = s_.GetState().busy;
      s_.Abort();
      if (!busy) return ok();
      Later([this, id, type, before] {
        s_.WaitIdle();
        WaitSettledAfter(before);
        Respond(id, type, true);
      });
      return;
    }
    if (type == "clear_queue") {
      runtime::QueueState q = s_.ClearQueue();
      return ok({{"steering", q.steering}, {"followUp", q.follow_up}});
    }
    if (type == "get_state") return ok(StateJson());
    if (type == "get_messages") return ok({{"messages", MessagesJson()}});
    if (type == "get_session_stats") return ok(StatsJson());
    if (type == "get_available_models") {
      runtime::SessionState st = s_.GetState();
      return ok({{"models", Json::array({PiModel(st.provider, st.model)})}});
    }
    if (type == "set_model") {
      std::string provider = Str(cmd, "provider"), model = Str(cmd, "modelId");
      runtime::SessionState st = s_.GetState();
      if (!provider.empty() && provider != st.provider)
        return fail("Model not found: " + provider + "/" + model + " (this sepp runs provider " +
                    st.provider + "; start it with --provider to use another)");
      Status r = s_.SetModel(model);
      if (!r.ok()) return fail(r.error().message);
      return ok(PiModel(st.provider, model));
    }
    if (type == "cycle_model") return ok(nullptr);  // one model: pi answers null
    if (type == "get_available_thinking_levels") {
      Json levels = Json::array();
      for (auto l : runtime::AllThinkingLevels()) levels.push_back(runtime::ToString(l));
      return ok({{"levels", levels}});
    }
    if (type == "set_thinking_level") {
      runtime::ThinkingLevel level;
      std::string name = Str(cmd, "level");
      if (name == "max") name = "xhigh";
      if (!runtime::ParseThinkingLevel(name, &level))
        return fail("unknown thinking level \"" + name + "\": off, minimal, low, medium, high, xhigh");
      return status(s_.SetThinking(level));
    }
    if (type == "cycle_thinking_level") {
      auto levels = runtime::AllThinkingLevels();
      runtime::ThinkingLevel now = s_.GetState().thinking;
      size_t i = 0;
      while (i < levels.size() && levels[i] != now) ++i;
      runtime::ThinkingLevel next = levels[(i + 1) % levels.size()];
      Status st = s_.SetThinking(next);
      return status(st, {{"level", runtime::ToString(next)}});
    }
    if (type == "set_steering_mode" || type == "set_follow_up_mode") {
      std::string mode = Str(cmd, "mode");
      std::string supported = type == "set_steering_mode" ? "all" : "one-at-a-time";
      if (mode == supported) return ok();
      return fail("sepp delivers " + std::string(type == "set_steering_mode"
                                                     ? "all queued steering messages at the next tool boundary"
                                                     : "follow-ups one at a time") +
                  "; mode \"" + mode + "\" is not supported");
    }
    if (type == "compact") {
      std::string focus = Str(cmd, "customInstructions");
      auto fut = std::make_shared<std::future<Result<agent::CompactionResult>>>(s_.Compact(focus));
      Later([this, id, type, fut] {
        auto r = fut->get();
        if (!r.ok()) return Respond(id, type, false, nullptr, r.error().message);
        Respond(id, type, true,
                {{"summary", r->summary}, {"tokensBefore", r->tokens_before},
                 {"estimatedTokensAfter", r->tokens_after}, {"usage", PiUsage(r->usage)},
                 {"details", Json::object()}});
      });
      return;
    }
    if (type == "new_session") return status(s_.NewSession(), {{"cancelled", false}});
    if (type == "switch_session") {
      std::string path = Str(cmd, "sessionPath");
      if (path.empty()) return fail("\"sessionPath\" is required");
      return status(s_.SwitchSession(path), {{"cancelled", false}});
    }
    if (type == "fork") {
      std::string entry = Str(cmd, "entryId");
      Json entries = s_.Entries();
      const Json* target = nullptr;
      for (const auto& e : entries)
        if (e.value("id", "") == entry) target = &e;
      if (!target || target->value("type", "") != "message" ||
          (*target)["message"].value("role", "") != "user")
        return fail("Invalid entry ID for forking: " + entry + " (fork needs a user message's entry; "
                    "see get_fork_messages)");
      auto m = llm::MessageFromJson((*target)["message"]);
      std::string text = m.ok() ? m->Text() : "";
      std::string parent = target->value("parentId", "");
      Result<std::string> r = parent.empty() ? Result<std::string>(std::string())
                                             : s_.Fork(parent);
      if (parent.empty()) {
        Status st = s_.NewSession();
        if (!st.ok()) return fail(st.error().message);
      } else if (!r.ok()) {
        return fail(r.error().message);
      }
      return ok({{"text", text}, {"cancelled", false}});
    }
    if (type == "clone") {
      std::string leaf = s_.Tree().value("leaf", "");
      if (leaf.empty()) return status(s_.NewSession(), {{"cancelled", false}});
      auto r = s_.Fork(leaf);
      if (!r.ok()) return fail(r.error().message);
      return ok({{"cancelled", false}});
    }
    if (type == "get_fork_messages") {
      Json out = Json::array();
      for (const auto& e : s_.Entries()) {
        if (e.value("type", "") != "message" || !e.contains("message")) continue;
        if (e["message"].value("role", "") != "user") continue;
        auto m = llm::MessageFromJson(e["message"]);
        out.push_back({{"entryId", e.value("id", "")}, {"text", m.ok() ? m->Text() : ""}});
      }
      return ok({{"messages", out}});
    }
    if (type == "get_entries") {
      std::string since = Str(cmd, "since");
      std::string provider = s_.GetState().provider;
      Json entries = s_.Entries();
      Json out = Json::array();
      bool found = since.empty();
      for (const auto& e : entries) {
        if (found) out.push_back(PiEntry(e, provider));
        else if (e.value("id", "") == since) found = true;
      }
      if (!found) return fail("no entry with id " + since + " in this session");
      std::string leaf = s_.Tree().value("leaf", "");
      return ok({{"entries", out}, {"leafId", leaf.empty() ? Json(nullptr) : Json(leaf)}});
    }
    if (type == "get_tree") return ok(TreeJson());
    if (type == "get_last_assistant_text") {
      std::string t = s_.LastAssistantText();
      return ok({{"text", t.empty() ? Json(nullptr) : Json(t)}});
    }
    if (type == "set_session_name") return status(s_.SetSessionName(Str(cmd, "name")));
    if (type == "get_commands") {  // pi's shape: templates and skills the runtime expands
      Json list = Json::array();
      for (const ext::CommandInfo& c : s_.Commands())
        list.push_back({{"name", c.name}, {"description", c.description}, {"source", c.source},
                        {"location", c.scope}, {"path", c.path.string()}});
      return ok({{"commands", list}});
    }
    if (type == "extension_ui_response") return AnswerUi(cmd);
    if (type == "question_response") {  // sepp's: the whole question at once
      const std::string qid = Str(cmd, "questionId");
      Status st = cmd.value("decline", false) ? s_.DeclineQuestion(qid)
                  : cmd.contains("answers")   ? s_.AnswerQuestionStrings(qid, cmd["answers"])
                                              : s_.AnswerQuestion(qid, cmd.value("values", Json::object()));
      if (st.ok()) questions_.Forget(qid);  // its dialogs are over
      return status(st);
    }
    if (type == "permission_response") {
      agent::PermissionAnswer a;
      if (!agent::ParsePermissionChoice(Str(cmd, "choice"), &a.choice))
        return fail("\"choice\" must be allow_once, allow_session, allow_project or deny "
                    "(allow or deny for a project_trust or extension request)");
      a.message = Str(cmd, "message");
      return status(s_.AnswerPermission(Str(cmd, "requestId"), a));
    }
    if (type == "bash") {
      // Answered when the command ends; meanwhile the reader goes on (an
      // abort_bash must get through). Output streams as pi's
      // bash_execution_update events.
      std::string command = Str(cmd, "command");
      bool exclude = cmd.value("excludeFromContext", false);
      Later([this, id, type, command, exclude] {
        auto r = s_.RunBash(command, exclude, [&](std::string_view delta) {
          Json u = {{"type", "bash_execution_update"}, {"delta", std::string(delta)}};
          if (!id.is_null()) u["id"] = id;
          out_.Event(Line(u), stop_pump_);
        });
        if (!r.ok()) return Respond(id, type, false, nullptr, r.error().message);
        Json d = {{"output", r->output},
                  {"exitCode", r->cancelled ? Json(nullptr) : Json(r->exit_code)},
                  {"cancelled", r->cancelled},
                  {"truncated", r->truncated}};
        if (!r->full_output_path.empty()) d["fullOutputPath"] = r->full_output_path;
        Respond(id, type, true, d);
      });
      return;
    }
    if (type == "abort_bash") {
      s_.AbortBash();
      return ok();
    }
    // sepp's extensions (docs/rpc.md): one running tool call of the prompt,
    // by the toolCallId of its tool_execution_start, alone.
    if (type == "abort_tool_call" || type == "background_tool_call") {
      std::string call = Str(cmd, "toolCallId");
      if (call.empty()) return fail("\"toolCallId\" (the id of a running tool call) is required");
      Status st = type == "abort_tool_call" ? s_.AbortCall(call) : s_.BackgroundCall(call);
      if (!st.ok()) return fail(st.error().message);
      return ok();
    }
    if (type == "export_html") {
      auto r = s_.ExportHtml(Str(cmd, "outputPath"));
      if (!r.ok()) return fail(r.error().message);
      return ok({{"path", *r}});
    }
    if (type == "set_auto_compaction" || type == "set_auto_retry") {
      if (!cmd.contains("enabled") || !cmd["enabled"].is_boolean())
        return fail("\"enabled\" (true or false) is required");
      if (type == "set_auto_compaction") s_.SetAutoCompaction(cmd["enabled"].get<bool>());
      else s_.SetAutoRetry(cmd["enabled"].get<bool>());
      return ok();
    }
    if (type == "abort_retry") {  // as pi: succeeds whether or not a retry was waiting
      s_.AbortRetry();
      return ok();
    }
    fail("Unknown command: " + type);
  }

  // pi's extension UI answer: no response record of its own.
  void AnswerUi(const Json& cmd) {
    std::string id = Str(cmd, "id");
    if (questions_.Owns(id)) {
      if (Json next = questions_.Respond(cmd); !next.is_null()) out_.Response(Line(next));
      return;
    }
    agent::PermissionAnswer a;
    a.choice = agent::PermissionChoice::kDeny;
    if (cmd.value("cancelled", false)) {
      a.message = "denied: the user dismissed the request";
    } else if (cmd.contains("value") && cmd["value"].is_string()) {
      std::string v = cmd["value"];
      bool known = false;
      for (size_t i = 0; i < std::size(kChoiceLabels); ++i)
        if (v == kChoiceLabels[i]) {
          a.choice = kChoices[i];
          known = true;
        }
      if (v == kTrustLabels[0]) {
        a.choice = agent::PermissionChoice::kAllowProject;
        known = true;
      } else if (v == kTrustLabels[1]) {
        known = true;
      }
      if (!known) a.message = "denied: unknown answer \"" + Utf8Prefix(v, 80) + "\"";
    } else if (cmd.contains("confirmed")) {
      a.choice = cmd.value("confirmed", false) ? agent::PermissionChoice::kAllowOnce
                                              : agent::PermissionChoice::kDeny;
    }
    Status st = s_.AnswerPermission(id, a);
    if (!st.ok()) log::Warn("extension_ui_response: " + st.error().message);
  }

  AgentSession& s_;
  RpcOptions o_;
  Output out_;
  PiEventMapper mapper_;
  QuestionDialogs questions_{s_};
  std::atomic<bool> stop_pump_{false};
  std::mutex pump_mu_;  // one thread maps and writes events at a time
  std::vector<agent::Event> held_;  // taken, left to the pump thread (pump_mu_)
  std::mutex sub_mu_;
  std::shared_ptr<runtime::Subscription> sub_;  // the current one
  std::mutex first_mu_;
  std::condition_variable first_cv_;
  bool answering_ = false;
  std::mutex settle_mu_;
  std::condition_variable settle_cv_;
  uint64_t settled_ = 0;
  bool pump_done_ = false;
  std::mutex helpers_mu_;
  std::vector<std::thread> helpers_;
};

}  // namespace

int RunRpcMode(AgentSession& session, const RpcOptions& options) {
  RpcServer server(session, options);
  return server.Run();
}

}  // namespace sepp::front::rpc
