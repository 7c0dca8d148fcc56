// `sepp replay show FILE`: prints a cassette (written by sepp --record FILE)
// readably. Exit status: 0 done, 1 unreadable or damaged cassette, 2 usage.
#include <CLI/CLI.hpp>

#include <cstdio>

#include "app/commands.h"
#include "llm/cassette.h"
#include "llm/cassette_render.h"

namespace sepp::app {

int RunReplayCommand(int argc, char** argv) {
  CLI::App cli{"sepp replay: cassettes written by sepp --record FILE (docs/replay.md)", "sepp replay"};
  cli.require_subcommand(1);
  std::string path;
  auto* show = cli.add_subcommand("show", "print a cassette: each exchange's request and response");
  show->add_option("FILE", path, "the cassette")->required();
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = cli.exit(e);
    return code == 0 ? 0 : 2;
  }
  auto cassette = llm::LoadCassette(path);
  if (!cassette) {
    std::fprintf(stderr, "sepp replay: %s\n", cassette.error().message.c_str());
    return 1;
  }
  std::string text = llm::RenderCassette(*cassette, path);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}

}  // namespace sepp::app
