// SessionBinding: connects one agent run to its session file: opens a new,
// the latest (-c) or a named (-r) session, gives the agent the history, and
// appends each message as it completes. Every front end resumes through it
// (via runtime::AgentSession), so a session rebuilds into the same context
// whichever way it is opened.
//
// Thread-safe: the loop records from its thread, sub-agents and denials from
// tool threads, and front ends query entries and the tree from theirs.
#pragma once
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "agent/compaction.h"
#include "agent/subagent_tool.h"
#include "base/result.h"
#include "llm/message.h"
#include "sandbox/denial.h"

namespace sepp::session {
class Store;
}  // namespace sepp::session

namespace sepp::runtime {

struct SessionRequest {
  std::filesystem::path cwd;
  std::string provider;
  std::string model;
  bool continue_latest = false;
  std::string resume_id;  // id, unique prefix, or a session file's path
  // With -c/-r: go on from this earlier entry instead of the leaf.
  std::string branch_entry;  // as a new branch of the same session
  std::string fork_entry;    // as a new session (a copy of the path to it)
  // The store to use (shared, thread-safe); null: the one the settings name.
  std::shared_ptr<session::Store> store;
};

class SessionBinding {
 public:
  SessionBinding();
  ~SessionBinding();
  Status Open(const SessionRequest& request);
  // Appends; a failure to write is reported once on stderr and the run goes
  // on (losing the rest of the record is better than losing the work).
  void Record(const llm::Message& message);
  // Records a compaction: a "compaction" entry naming the first kept entry.
  void RecordCompaction(const agent::CompactionResult& result);
  // Records what the sandbox refused a tool call (a "denial" entry): the
  // audit trail of every denial. Thread-safe.
  void RecordDenial(const std::string& call_id, const std::string& tool,
                    const std::vector<sandbox::Denial>& denials);
  // A session for a sub-agent, linked from this one by a "subagent" entry.
  // Thread-safe (parallel sub-agents). Empty id when sessions are off.
  agent::ChildSession OpenChild(const std::string& task, const std::string& agent_name);
  // Records the sandbox denial of a sub-agent's call in this (the parent's)
  // session too: the parent's audit trail names the child session.
  void RecordChildDenial(const std::string& child_session, const std::string& call_id,
                         const std::string& tool, const std::vector<sandbox::Denial>& denials);
  // Any other entry (a "model_change", "session_info", "permission" grant).
  void RecordEntry(const std::string& type, const Json& payload);
  // Moves the leaf to entry (a branch) and rebuilds history().
  Status Branch(const std::string& entry_id);
  Status Label(const std::string& entry_id, const std::string& label);
  // The current branch as an HTML page (session/render.h).
  std::string ExportHtml() const;
  // Every entry in append order, as stored.
  Json Entries() const;
  // {"leaf", "nodes": [{"id", "parent_id", "type", "label", "children": [...]}]}.
  Json Tree() const;
  std::string location() const;  // the session file ("" when sessions are off)
  std::string name() const;      // the latest session_info name
  const std::vector<llm::Message>& history() const { return history_; }
  const std::string& id() const { return id_; }

 private:
  Status MoveToEntry(const SessionRequest& request);
  void RebuildContext();
  void Warn(const Error& error);
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::vector<llm::Message> history_;
  // The entry id behind each message of the agent's context, in order (the
  // summary message of a compaction maps to the compaction entry).
  std::vector<std::string> context_ids_;
  std::string id_;
};

}  // namespace sepp::runtime
