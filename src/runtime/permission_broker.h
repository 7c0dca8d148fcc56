// PermissionBroker: the session runtime's permission gate. It answers what
// it can itself (grants made earlier in this session, the headless
// --allow-domain / --allow-write flags) and asks the attached front end for
// the rest: it publishes `permission.requested`, waits for
// AgentSession::AnswerPermission (at most the timeout; then it denies), and
// publishes `permission.resolved`. Without a front end that can answer, it
// denies and says how to allow the access instead.
#pragma once
#include <condition_variable>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "agent/events.h"
#include "agent/permission_gate.h"
#include "runtime/agent_session.h"

namespace sepp::runtime {

class PermissionBroker : public agent::PermissionGate {
 public:
  PermissionBroker(PermissionDefaults defaults, std::filesystem::path cwd,
                   std::function<void(agent::Event)> publish);

  agent::PermissionAnswer Ask(const agent::PermissionRequest& request,
                              CancelToken& cancel) override;

  std::vector<PendingPermission> Pending() const;
  Status Answer(const std::string& id, agent::PermissionAnswer answer);
  // Denies every waiting request (the session is closing).
  void CancelAll();
  // Where allow_project grants are saved (.sepp/policy.toml of the cwd).
  std::filesystem::path project_policy_file() const;
  std::vector<PermissionGrant> Grants() const;
  Status RevokeSessionGrant(const agent::Widening& widening);

 private:
  struct Waiting {
    PendingPermission pending;
    bool answered = false;
    agent::PermissionAnswer answer;
  };
  bool Covered(const std::vector<agent::Widening>& wanted,
               const std::vector<agent::Widening>& granted) const;
  void Resolve(const agent::PermissionRequest& r, const agent::PermissionAnswer& a);
  Status SaveForProject(const std::vector<agent::Widening>& widenings);

  PermissionDefaults defaults_;
  std::filesystem::path cwd_;
  std::function<void(agent::Event)> publish_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, Waiting> waiting_;
  std::vector<PermissionGrant> grants_;  // the project's and this session's
  std::vector<agent::Widening> GrantedLocked() const;
  int next_id_ = 0;
  bool closing_ = false;
};

}  // namespace sepp::runtime
