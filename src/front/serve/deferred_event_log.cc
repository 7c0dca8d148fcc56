#include "front/serve/deferred_event_log.h"

namespace sepp::front::serve {

DeferredEventLog::DeferredEventLog(std::string kind, Opener open) : kind_(std::move(kind)) {
  opener_ = std::thread([this, open = std::move(open)] {
    auto opened = open();
    std::lock_guard lock(mu_);
    if (opened.ok()) log_ = std::move(opened).value();
    else error_ = opened.error();
    done_ = true;
    cv_.notify_all();
  });
}

DeferredEventLog::~DeferredEventLog() {
  if (opener_.joinable()) opener_.join();
}

Result<session::EventLog*> DeferredEventLog::Log() {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] { return done_; });
  if (error_) return *error_;
  return log_.get();
}

Status DeferredEventLog::Ready() {
  auto l = Log();
  if (!l.ok()) return l.error();
  return Ok();
}

std::string DeferredEventLog::location() const {
  auto* self = const_cast<DeferredEventLog*>(this);
  auto l = self->Log();
  return l.ok() ? (*l)->location() : "(not open: " + l.error().message + ")";
}

Status DeferredEventLog::Append(std::string_view stream, int64_t seq, int64_t time_ms,
                                std::string_view data) {
  auto l = Log();
  if (!l.ok()) return l.error();
  Status st = (*l)->Append(stream, seq, time_ms, data);
  if (st.ok()) Announce(stream, seq);
  return st;
}

Result<int64_t> DeferredEventLog::AppendNext(std::string_view stream, int64_t time_ms,
                                             std::string_view data) {
  auto l = Log();
  if (!l.ok()) return l.error();
  auto seq = (*l)->AppendNext(stream, time_ms, data);
  if (seq.ok()) Announce(stream, *seq);
  return seq;
}

Result<std::vector<session::LoggedEvent>> DeferredEventLog::Read(std::string_view stream, int64_t after,
                                                                 size_t limit) {
  auto l = Log();
  if (!l.ok()) return l.error();
  return (*l)->Read(stream, after, limit);
}

Result<int64_t> DeferredEventLog::Count(std::string_view stream, int64_t after, int64_t upto) {
  auto l = Log();
  if (!l.ok()) return l.error();
  return (*l)->Count(stream, after, upto);
}

Result<int64_t> DeferredEventLog::LastSeq(std::string_view stream) {
  auto l = Log();
  if (!l.ok()) return l.error();
  return (*l)->LastSeq(stream);
}

Status DeferredEventLog::AddSession(const std::string& id, const Json& record) {
  auto l = Log();
  if (!l.ok()) return l.error();
  return (*l)->AddSession(id, record);
}

Status DeferredEventLog::UpdateSession(const std::string& id, const Json& record) {
  auto l = Log();
  if (!l.ok()) return l.error();
  return (*l)->UpdateSession(id, record);
}

Result<std::vector<Json>> DeferredEventLog::Sessions() {
  auto l = Log();
  if (!l.ok()) return l.error();
  return (*l)->Sessions();
}

}  // namespace sepp::front::serve
