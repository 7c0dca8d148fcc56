// Runs the built sepp binary as a child process for end-to-end tests.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace sepp::e2e {

struct RunOptions {
  std::vector<std::string> args;            // after "sepp"
  std::map<std::string, std::string> env;   // the whole environment (plus PATH, HOME given)
  std::string cwd;
  std::string stdin_data;                   // empty: /dev/null
  double sigint_after_s = 0;                // > 0: send SIGINT after this long
  double sigkill_after_s = 0;               // > 0: kill -9 after this long (a crash)
  double timeout_s = 60;                    // kill -9 after this long (a hang is a failure)
};

struct RunOutput {
  int exit_code = -1;
  bool killed = false;  // hit timeout_s
  std::string out;
  std::string err;
};

RunOutput RunSepp(const RunOptions& options);
std::string SeppPath();

}  // namespace sepp::e2e
