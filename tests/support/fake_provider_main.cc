// fake-provider: the scripted fake LLM provider as a program, for end-to-end
// tests and for trying sepp offline (docs/fake-provider.md).
//
//   fake-provider [--script FILE] [--port N]
// Prints "listening on http://127.0.0.1:PORT" as its first stdout line
// (flushed) and serves until killed.
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "base/file.h"
#include "base/json.h"
#include "fake_provider.h"

int main(int argc, char** argv) {
  std::string script_path;
  int port = 0;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if ((a == "--script" || a == "-s") && i + 1 < argc) {
      script_path = argv[++i];
    } else if (a == "--port" && i + 1 < argc) {
      port = std::atoi(argv[++i]);
    } else if (a == "--help" || a == "-h") {
      std::printf("usage: fake-provider [--script FILE] [--port N]\n");
      return 0;
    } else {
      std::fprintf(stderr, "fake-provider: unknown argument %s (try --help)\n", a.c_str());
      return 2;
    }
  }
  sepp::Json script = sepp::Json::object();
  if (!script_path.empty()) {
    auto text = sepp::ReadFile(script_path);
    if (!text.ok()) {
      std::fprintf(stderr, "fake-provider: %s\n", text.error().message.c_str());
      return 1;
    }
    auto parsed = sepp::ParseJson(*text);
    if (!parsed.ok()) {
      std::fprintf(stderr, "fake-provider: %s: %s\n", script_path.c_str(), parsed.error().message.c_str());
      return 1;
    }
    script = std::move(parsed.value());
  }
  // Blocked here, so the server threads inherit the mask and sigwait below
  // is the only place these signals arrive.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);

  sepp::fake::FakeProvider provider(script);
  if (auto s = provider.Start(port); !s.ok()) {
    std::fprintf(stderr, "fake-provider: %s\n", s.error().message.c_str());
    return 1;
  }
  std::printf("listening on %s\n", provider.base_url().c_str());
  std::fflush(stdout);
  int sig = 0;
  sigwait(&set, &sig);
  provider.Stop();
  return 0;
}
