// Several tool calls at once on the same tool objects (the agent runs a
// turn's calls in parallel): every call must see only its own work.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "base/strings.h"
#include "tool_test_util.h"

namespace sepp::tools {
namespace {

TEST(Parallel, ConcurrentCallsOnSharedTools) {
  testing::TempDir dir;
  for (int i = 0; i < 8; ++i)
    dir.Write("f" + std::to_string(i) + ".txt", "value " + std::to_string(i) + "\nother\n");
  auto reg = MakeBuiltinTools();
  Tool* read = reg->Find("read");
  Tool* edit = reg->Find("edit");
  Tool* grep = reg->Find("grep");
  Tool* bash = reg->Find("bash");
  Tool* find = reg->Find("find");
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] {
      ToolContext ctx;
      ctx.cwd = dir.path();
      ctx.output_dir = dir.path() / ".out";
      std::string f = "f" + std::to_string(i) + ".txt";
      std::string v = "value " + std::to_string(i);
      for (int round = 0; round < 5; ++round) {
        if (grep->Run({{"pattern", v + "$"}}, ctx).text != f + ":1: " + v + "\n") ++failures;
        if (!StartsWith(read->Run({{"path", f}}, ctx).text, "     1\t" + v)) ++failures;
        if (find->Run({{"pattern", f}}, ctx).text != f + "\n") ++failures;
      }
      if (edit->Run({{"path", f}, {"old_string", "other"}, {"new_string", "edited " + std::to_string(i)}}, ctx)
              .is_error)
        ++failures;
      if (bash->Run({{"command", "cat " + f}}, ctx).text != v + "\nedited " + std::to_string(i) + "\nexit code 0")
        ++failures;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
}

}  // namespace
}  // namespace sepp::tools
