// `sepp --acp` as a child process the test talks to line by line: it can
// send, stop reading, read with a deadline (a bound for failures, never a
// way to wait for something to happen) and close stdin.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>
#include <sys/types.h>

#include "base/json.h"

namespace sepp::acptest {

class AcpChild {
 public:
  // Starts SEPP_BINARY_DIR/sepp --acp [args...] in cwd with exactly env
  // (plus PATH).
  AcpChild(const std::string& cwd, const std::map<std::string, std::string>& env,
           const std::vector<std::string>& args = {});
  ~AcpChild();  // kills it if still running

  void Send(const Json& message);
  void SendRaw(const std::string& bytes);
  // The next line from stdout, or nullopt at EOF or after timeout_s.
  std::optional<Json> Next(double timeout_s = 60);
  // The response with this id: one already read, or the next one read
  // (everything read is kept in seen()). Fails the test (returns null) at
  // EOF or timeout.
  Json Response(const Json& id, double timeout_s = 60);
  // Sends a request, returns its response.
  Json Call(const Json& id, const std::string& method, Json params);
  void CloseStdin();
  // Waits for the exit; -1 if it did not exit within timeout_s (then killed).
  int Wait(double timeout_s = 60);
  const std::vector<Json>& seen() const { return seen_; }
  std::string stderr_text() const;

 private:
  pid_t pid_ = -1;
  int in_ = -1, out_ = -1;
  std::string err_path_;
  std::string buf_;
  std::vector<Json> seen_;
};

// session/update payloads for sid among messages.
std::vector<Json> UpdatesOf(const std::vector<Json>& messages, const std::string& sid);

}  // namespace sepp::acptest
