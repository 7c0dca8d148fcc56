// End-to-end: the real sepp binary, scripted by the fake provider. A bash
// call prints 1 MB; the model gets a receipt instead, context_search finds
// a rare line in it, and in the next run of the same session (-c)
// context_get returns that line with its neighbours, context_export writes
// the whole output where sandboxed commands can read it, a sub-agent finds
// the line too, and durable memory carries a fact to the next session. The
// provider key the command printed is in none of the stores.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "base/ids.h"
#include "base/json.h"
#include "e2e/run_sepp.h"
#include "support/fake_provider.h"

namespace sepp::e2e {
namespace {

namespace fs = std::filesystem;
constexpr char kKey[] = "sk-e2e-sidecar-key-0123456789abcdef";
constexpr char kRare[] = "RARE_NEEDLE_e2e_x93";

std::vector<std::string> ToolResults(const fake::RecordedRequest& r) {
  std::vector<std::string> out;
  for (const auto& m : r.body.value("messages", Json::array()))
    if (m.value("role", "") == "user" && m["content"].is_array())
      for (const auto& c : m["content"])
        if (c.value("type", "") == "tool_result") {
          const Json& content = c.value("content", Json());
          std::string text = content.is_string() ? content.get<std::string>() : "";
          if (content.is_array())
            for (const auto& b : content) text += b.value("text", "");
          out.push_back(text);
        }
  return out;
}

Json Call(const std::string& name, Json args) {
  return {{"tool_calls", {{{"name", name}, {"arguments", std::move(args)}}}}};
}

std::string After(const std::string& text, const std::string& label) {
  size_t at = text.find(label);
  if (at == std::string::npos) return "";
  at += label.size();
  size_t end = text.find_first_of(" \n", at);
  return text.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

std::string Slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

TEST(SidecarE2E, OneMegabyteOfBashBecomesASearchableReceipt) {
  fs::path root = fs::temp_directory_path() / ("sepp-sidecar-e2e-" + ShortId());
  fs::path ws = root / "ws", home = root / "home";
  fs::create_directories(ws);
  fs::create_directories(home);
  // The command prints the key (from a file: the sandbox's environment has
  // no secrets) in the middle of its output.
  std::ofstream(ws / "leak.txt") << "token=" << kKey << "\n";
  const std::string command =
      "for i in $(seq 1 20000); do echo \"line $i: compiling unit with flags -O2 -Wall -Wextra\"; "
      "if [ $i = 12345 ]; then echo " + std::string(kRare) + "; cat leak.txt; fi; done";
  fake::FakeProvider fp;
  ASSERT_TRUE(fp.Start().ok());
  RunOptions o;
  o.env = {{"PATH", "/usr/local/bin:/usr/bin:/bin"},
           {"HOME", home.string()},
           {"SEPP_HOME", (home / ".sepp").string()},
           {"SEPP_PROVIDER", "anthropic"},
           {"ANTHROPIC_BASE_URL", fp.base_url()},
           {"ANTHROPIC_API_KEY", kKey},
           {"LANG", "C.UTF-8"}};
  o.cwd = ws.string();
  o.timeout_s = 120;

  fp.SetScript({{"responses",
                 {Call("bash", {{"command", command}}),
                  Call("context_search", {{"query", kRare}}),
                  {{"text", "done"}}}}});
  o.args = {"-p", "build it"};
  RunOutput r = RunSepp(o);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto reqs = fp.requests();
  ASSERT_EQ(reqs.size(), 3u) << r.err;
  std::string tools = reqs[0].body.value("tools", Json::array()).dump();
  for (const char* t : {"context_search", "context_get", "context_export", "memory_add", "memory_search"})
    EXPECT_NE(tools.find(std::string("\"") + t + "\""), std::string::npos) << t;
  auto results = ToolResults(reqs.back());
  ASSERT_EQ(results.size(), 2u);
  const std::string& receipt = results[0];
  EXPECT_EQ(receipt.rfind("[context-sidecar] Large bash output indexed locally", 0), 0u) << receipt.substr(0, 400);
  EXPECT_LT(receipt.size(), 10u * 1024) << "the bulk must stay out of the context";
  EXPECT_NE(receipt.find("20002 lines"), std::string::npos) << receipt.substr(0, 400);
  EXPECT_NE(receipt.find("line 20000: compiling"), std::string::npos);  // the preview's tail
  EXPECT_NE(receipt.find("exit code 0"), std::string::npos);
  EXPECT_EQ(receipt.find(kKey), std::string::npos);
  std::string source = After(receipt, "Source: ");
  ASSERT_EQ(source.rfind("ctx_", 0), 0u) << receipt.substr(0, 400);
  // The search finds the line from the middle of the whole output, which
  // bash's own head and tail had cut.
  EXPECT_NE(results[1].find(kRare), std::string::npos) << results[1];
  EXPECT_EQ(results[1].find(kKey), std::string::npos) << results[1];
  std::string chunk = After(results[1], "Chunk: ");
  ASSERT_EQ(chunk.rfind(source + "_", 0), 0u) << results[1];

  // The same session again: get with neighbours, export, a sub-agent, memory.
  fp.Reset();
  fp.SetScript({{"responses",
                 {Call("context_get", {{"source_id", source}, {"chunk_id", chunk}, {"before", 1}, {"after", 1}}),
                  Call("context_export", {{"source_id", source}}),
                  Call("agent", {{"task", "find the rare line"}}),
                  Call("context_search", {{"query", kRare}}),  // the sub-agent's call
                  {{"text", "child found it"}},
                  Call("memory_add", {{"text", "The build prints RARE_NEEDLE lines when flags change"}}),
                  {{"text", "done again"}}}}});
  o.args = {"-c", "-p", "look closer"};
  r = RunSepp(o);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  reqs = fp.requests();
  ASSERT_EQ(reqs.size(), 7u) << r.err;
  results = ToolResults(reqs.back());
  ASSERT_GE(results.size(), 4u);
  const std::string& got = results[results.size() - 4];
  EXPECT_NE(got.find(kRare), std::string::npos) << got.substr(0, 300);
  EXPECT_NE(got.find("line 12345: compiling"), std::string::npos);
  EXPECT_NE(got.find("line 12346: compiling"), std::string::npos);
  EXPECT_EQ(got.find(kKey), std::string::npos);
  const std::string& exported = results[results.size() - 3];
  EXPECT_NE(exported.find("Exported"), std::string::npos) << exported;
  fs::path file = ws / "context-exports" / (source + ".txt");
  std::string bytes = Slurp(file);
  EXPECT_GT(bytes.size(), 1000000u) << exported;
  EXPECT_NE(bytes.find(kRare), std::string::npos);
  EXPECT_NE(bytes.find("token=[REDACTED]"), std::string::npos);
  EXPECT_EQ(bytes.find(kKey), std::string::npos);
  // The sub-agent had the sidecar's tools and the session's sources.
  ASSERT_EQ(reqs[3].body.value("tools", Json::array()).dump().find("\"context_search\"") != std::string::npos, true);
  auto child = ToolResults(reqs[4]);
  ASSERT_FALSE(child.empty());
  EXPECT_NE(child.back().find(kRare), std::string::npos) << child.back();
  EXPECT_NE(results.back().find("1. mem_"), std::string::npos) << results.back();

  // A new session of the project finds the memory (offline, BM25).
  fp.Reset();
  fp.SetScript({{"responses", {Call("memory_search", {{"query", "what do flags change"}}), {{"text", "ok"}}}}});
  o.args = {"-p", "remember?"};
  r = RunSepp(o);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  results = ToolResults(fp.requests().back());
  ASSERT_EQ(results.size(), 1u);
  EXPECT_NE(results[0].find("RARE_NEEDLE lines"), std::string::npos) << results[0];

  // The key is in no store sepp wrote.
  for (const auto& e : fs::recursive_directory_iterator(home / ".sepp")) {
    if (!e.is_regular_file()) continue;
    EXPECT_EQ(Slurp(e.path()).find(kKey), std::string::npos) << e.path();
  }
  fp.Stop();
  fs::remove_all(root);
}

}  // namespace
}  // namespace sepp::e2e
