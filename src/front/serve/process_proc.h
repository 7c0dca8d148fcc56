// A started process as the processes API keeps it (internal to
// front/serve: process_hub.cc starts and logs it, process_terminal.cc
// relays its terminal over a WebSocket).
#pragma once
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "base/fd.h"
#include "base/result.h"
#include "front/serve/process_hub.h"
#include "sandbox/held_child.h"

namespace sepp::front::serve {

struct ProcessHub::Proc {
  std::string id, command;
  std::vector<std::string> args;
  bool interactive = false;
  bool tty = false;  // on a pty: `master` is its terminal, there are no pipes
  UniqueFd master;
  int64_t created_ms = 0;
  std::thread thread;
  std::mutex mu;  // guards what follows
  std::condition_variable cv;
  bool starting = true, running = false;
  std::string start_error, start_error_kind;
  std::unique_ptr<sandbox::HeldChild> child;
  pid_t pid = 0;
  std::optional<int> exit_code;
  int64_t exited_ms = 0;
  struct Entry {
    int64_t sequence;
    bool err;  // stderr
    bool pty;  // the terminal's output (a tty process has nothing else)
    int64_t time_ms;
    std::string data;
  };
  std::deque<Entry> log;
  int64_t next_seq = 1;
  int64_t log_bytes = 0;
  std::mutex input_mu;  // one writer of stdin at a time
  // eventfds of the terminal sockets that relay this process: written on
  // every new log entry and at the exit (under mu).
  std::vector<int> watchers;
};

// p.mu held: wakes the waiters on p.cv and every watcher.
void NotifyWatchers(ProcessHub::Proc& p);
// The terminal's size (the kernel sends SIGWINCH to its foreground group).
Status SetWindowSize(int master, int64_t cols, int64_t rows);
// All of data to fd (a pty master: what is typed at the terminal).
Status WriteAll(int fd, std::string_view data);

}  // namespace sepp::front::serve
