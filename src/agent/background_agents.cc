#include "agent/background_agents.h"

#include "base/strings.h"

namespace sepp::agent {

Status BackgroundAgents::Track(std::shared_ptr<BackgroundRun> run) {
  std::lock_guard<std::mutex> lock(mu_);
  if (closed_) return Error::Make("the session is closing: no sub-agent may start", "closed");
  waiting_[run->call_id] = std::move(run);
  return Ok();
}

void BackgroundAgents::Untrack(const std::string& call_id) {
  std::lock_guard<std::mutex> lock(mu_);
  waiting_.erase(call_id);
}

Status BackgroundAgents::Detach(const std::string& call_id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = waiting_.find(call_id);
  if (closed_ || it == waiting_.end())
    return Error::Make("no running \"agent\" call has the id \"" + call_id + "\" (it may have finished)",
                       "not_found");
  std::shared_ptr<BackgroundRun> run = it->second;
  {
    std::lock_guard<std::mutex> run_lock(run->mu);
    if (run->done)  // its report is on the way back to the call
      return Error::Make("the sub-agent of call \"" + call_id + "\" has just finished", "not_found");
    run->detached = true;
  }
  run->cv.notify_all();
  waiting_.erase(it);
  background_[call_id] = std::move(run);
  return Ok();
}

void BackgroundAgents::Deliver(Finished report) {
  std::string call_id = report.call_id;
  {
    std::lock_guard<std::mutex> lock(mu_);
    finished_.push_back(report);
  }
  // Before the run leaves background_: Close() waits for it, so the session
  // (what on_finished publishes to) is still there.
  if (on_finished) on_finished(report);
  {
    std::lock_guard<std::mutex> lock(mu_);
    background_.erase(call_id);
  }
  ended_.notify_all();
}

std::vector<BackgroundAgents::Finished> BackgroundAgents::TakeFinished() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Finished> out;
  out.swap(finished_);
  return out;
}

bool BackgroundAgents::Abort(const std::string& call_id) {
  std::shared_ptr<BackgroundRun> run;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = background_.find(call_id);
    if (it == background_.end()) return false;
    run = it->second;
  }
  run->cancel.Cancel();  // outside mu_: its callbacks end the child's calls
  return true;
}

void BackgroundAgents::AbortAll() {
  std::vector<std::shared_ptr<BackgroundRun>> runs;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [id, run] : background_) runs.push_back(run);
  }
  for (auto& run : runs) run->cancel.Cancel();
}

void BackgroundAgents::StopAll() {
  std::vector<std::shared_ptr<BackgroundRun>> runs;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [id, run] : waiting_) runs.push_back(run);
    for (auto& [id, run] : background_) runs.push_back(run);
  }
  for (auto& run : runs) run->cancel.Cancel();
  std::unique_lock<std::mutex> lock(mu_);
  ended_.wait(lock, [&] { return background_.empty(); });
  finished_.clear();
}

void BackgroundAgents::Close() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
  }
  StopAll();
}

size_t BackgroundAgents::running() const {
  std::lock_guard<std::mutex> lock(mu_);
  return background_.size();
}

std::string BackgroundReportMessage(const BackgroundAgents::Finished& f) {
  std::string task = f.task.substr(0, f.task.find('\n'));
  if (task.size() > 200) task = task.substr(0, Utf8SafePrefix(task, 197)) + "...";
  return "<system-reminder>\nThe sub-agent of your \"agent\" call " + f.call_id +
         " (task: " + task + "), which the user sent to the background, has " +
         (f.is_error ? "ended without a report" : "finished") + ". " +
         (f.is_error ? "What happened:" : "Its report:") + "\n\n" + f.text + "\n</system-reminder>";
}

}  // namespace sepp::agent
