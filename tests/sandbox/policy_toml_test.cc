// Policy files: the happy path, and hostile or broken input that must give
// an error naming file, line and key (never a crash, never silent acceptance).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sandbox/capabilities.h"
#include "sandbox/policy_toml.h"

namespace sepp::sandbox {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;

const std::filesystem::path kWs = "/work/ws";

Result<Policy> Parse(const std::string& text) { return ParsePolicyToml(text, "agent.toml", kWs); }

std::string ErrorOf(const std::string& text) {
  auto r = Parse(text);
  return r.ok() ? std::string("<parsed>") : r.error().message;
}

TEST(PolicyToml, FullFile) {
  auto r = Parse(R"(
base = "default"
[filesystem]
read = ["~/.config/claude", "docs"]
write = ["build"]
deny = ["secrets"]
protect = ["Makefile"]
[network]
mode = "proxy"
allow_domains = ["api.anthropic.com", "*.GitHub.com"]
[environment]
pass = ["EDITOR"]
pass_secrets = ["ANTHROPIC_API_KEY"]
set = { LANG = "C.UTF-8" }
[limits]
timeout = "2m"
processes = 64
memory = "2GiB"
file_size = "100MiB"
open_files = 512
)");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_THAT(r->read_roots, Contains("/work/ws/docs"));
  EXPECT_THAT(r->read_roots, Contains("/usr"));  // from the defaults
  EXPECT_THAT(r->write_roots, Contains("/work/ws/build"));
  EXPECT_THAT(r->deny_paths, Contains("/work/ws/secrets"));
  EXPECT_THAT(r->protected_paths, Contains(".git/"));
  EXPECT_THAT(r->protected_paths, Contains("Makefile"));
  EXPECT_EQ(r->net, NetMode::kProxy);
  EXPECT_THAT(r->allow_domains, Contains("*.github.com"));
  EXPECT_THAT(r->env_allow, Contains("EDITOR"));
  EXPECT_THAT(r->env_allow, Contains("PATH"));
  EXPECT_THAT(r->env_allow_secrets, Contains("ANTHROPIC_API_KEY"));
  EXPECT_EQ(r->env_set.at("LANG"), "C.UTF-8");
  EXPECT_DOUBLE_EQ(r->limits.timeout_s, 120);
  EXPECT_EQ(r->limits.max_processes, 64u);
  EXPECT_EQ(r->limits.max_memory_bytes, 2ull << 30);
  EXPECT_EQ(r->limits.max_file_bytes, 100ull << 20);
  EXPECT_EQ(r->limits.max_open_files, 512u);
}

TEST(PolicyToml, EmptyFileIsTheDefaults) {
  auto r = Parse("");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->net, NetMode::kOff);
  EXPECT_THAT(r->write_roots, Contains("/work/ws"));
}

TEST(PolicyToml, BaseNoneStartsEmpty) {
  auto r = Parse("base = \"none\"\n[filesystem]\nread = [\"/usr\"]\n");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->read_roots, std::vector<std::string>{"/usr"});
  EXPECT_TRUE(r->write_roots.empty());
}

TEST(PolicyToml, ErrorsNameFileLineAndKey) {
  EXPECT_EQ(ErrorOf("[network]\n\nmode = \"on\"\n"),
            "agent.toml:3: network.mode: expected \"off\", \"proxy\" or \"host\"");
  EXPECT_THAT(ErrorOf("[filesystem]\nreed = [\"/x\"]\n"),
              HasSubstr("agent.toml:2: filesystem.reed: unknown key"));
  EXPECT_THAT(ErrorOf("[limits]\nmemory = \"lots\"\n"), HasSubstr("agent.toml:2: limits.memory:"));
  EXPECT_THAT(ErrorOf("[limits]\ntimeout = -5\n"), HasSubstr("agent.toml:2: limits.timeout: out of range"));
  EXPECT_THAT(ErrorOf("[filesystem]\nread = \"/usr\"\n"),
              HasSubstr("agent.toml:2: filesystem.read: expected a list"));
  EXPECT_THAT(ErrorOf("[filesystem]\nread = [\"/usr\",\n 3]\n"),
              HasSubstr("agent.toml:3: filesystem.read: every entry must be a string"));
  EXPECT_THAT(ErrorOf("[network]\nallow_domains = [\"evil.com/path\"]\n"),
              HasSubstr("agent.toml:2: network.allow_domains:"));
  EXPECT_THAT(ErrorOf("[environment]\npass = [\"A=B\"]\n"), HasSubstr("agent.toml:2: environment.pass"));
  EXPECT_THAT(ErrorOf("network = 3\n"), HasSubstr("agent.toml:1: network: expected a table"));
  EXPECT_THAT(ErrorOf("colour = 1\n"), HasSubstr("agent.toml:1: colour: unknown key"));
  EXPECT_THAT(ErrorOf("base = \"root\"\n"), HasSubstr("agent.toml:1: base:"));
}

TEST(PolicyToml, SyntaxErrorsNameTheLine) {
  EXPECT_THAT(ErrorOf("[network]\nmode = \n"), HasSubstr("agent.toml:2:"));
  EXPECT_THAT(ErrorOf("[[[\n"), HasSubstr("agent.toml:1:"));
  EXPECT_THAT(ErrorOf("a = \"unterminated\n"), HasSubstr("agent.toml:1:"));
}

TEST(PolicyToml, HostileInputNeverCrashes) {
  std::string deep(5000, '[');
  EXPECT_NE(ErrorOf("x = " + deep), "<parsed>");
  EXPECT_NE(ErrorOf(std::string("a = \"\0\"", 7)), "<parsed>");
  EXPECT_NE(ErrorOf("[limits]\nprocesses = 1e400\n"), "<parsed>");
  EXPECT_NE(ErrorOf("[limits]\nmemory = \"99999999999999999999GiB\"\n"), "<parsed>");
  EXPECT_NE(ErrorOf("\xff\xfe\n"), "<parsed>");
  std::string big = "[filesystem]\nread = [";
  for (int i = 0; i < 10000; ++i) big += "\"/x" + std::to_string(i) + "\",";
  big += "]\n";
  EXPECT_TRUE(Parse(big).ok());
}

TEST(PolicyToml, SizesAndDurations) {
  EXPECT_EQ(*ParseSize("512MiB"), 512ull << 20);
  EXPECT_EQ(*ParseSize("1k"), 1024u);
  EXPECT_EQ(*ParseSize("100"), 100u);
  EXPECT_FALSE(ParseSize("1.5G").ok());
  EXPECT_FALSE(ParseSize("G").ok());
  EXPECT_DOUBLE_EQ(*ParseDuration("250ms"), 0.25);
  EXPECT_DOUBLE_EQ(*ParseDuration("1h"), 3600);
  EXPECT_FALSE(ParseDuration("soon").ok());
  EXPECT_FALSE(ParseDuration("5 days").ok());
}

TEST(PolicyToml, LoadsTheExamples) {
  for (const char* name : {"agent.toml", "strict.toml", "web.toml"}) {
    auto r = LoadPolicyFile(std::filesystem::path(SEPP_SOURCE_DIR) / "examples/policies" / name, kWs);
    EXPECT_TRUE(r.ok()) << name << ": " << (r.ok() ? "" : r.error().message);
  }
}

TEST(Capabilities, MapOntoPolicy) {
  Policy none = PolicyFromCapabilities({}, kWs);
  EXPECT_TRUE(none.write_roots.empty());
  EXPECT_EQ(none.net, NetMode::kOff);
  ASSERT_TRUE(none.exec_only.has_value());
  EXPECT_TRUE(none.exec_only->empty());
  Policy p = PolicyFromCapabilities({{Capability::kFsWrite, {"data"}},
                                     {Capability::kNet, {"api.example.com"}},
                                     {Capability::kEnv, {"EXAMPLE_TOKEN"}},
                                     {Capability::kExec, {"git"}}},
                                    kWs);
  EXPECT_THAT(p.write_roots, Contains("/work/ws/data"));
  EXPECT_EQ(p.net, NetMode::kProxy);
  EXPECT_THAT(p.allow_domains, Contains("api.example.com"));
  EXPECT_THAT(p.env_allow_secrets, Contains("EXAMPLE_TOKEN"));
  EXPECT_EQ(p.exec_only, std::vector<std::string>{"git"});
  EXPECT_GT(p.limits.max_processes, none.limits.max_processes);
  EXPECT_EQ(PolicyFromCapabilities({{Capability::kNet, {"*"}}}, kWs).net, NetMode::kHost);
}

}  // namespace
}  // namespace sepp::sandbox

namespace sepp::sandbox {
namespace {

// Random TOML-ish text: the parser must return (ok or an error), never crash.
TEST(PolicyToml, FuzzedInputNeverCrashes) {
  const std::string alphabet = "[]{}=\"'.,#\n \t\\abcmode=netwrk0123456789-_+:eE";
  uint32_t seed = 12345;
  auto next = [&] {
    seed = seed * 1103515245u + 12345u;
    return (seed >> 16) & 0x7fff;
  };
  const std::string seeds[] = {"[network]\nmode = \"off\"\n", "[limits]\nmemory = \"1GiB\"\n",
                               "[environment]\nset = { A = \"b\" }\n"};
  int parsed = 0, rejected = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string text = seeds[i % 3];
    int edits = 1 + next() % 6;
    for (int e = 0; e < edits; ++e) {
      size_t pos = text.empty() ? 0 : next() % (text.size() + 1);
      char ch = alphabet[next() % alphabet.size()];
      if (next() % 2 && pos < text.size()) text[pos] = ch;
      else text.insert(pos, 1, ch);
    }
    auto r = ParsePolicyToml(text, "fuzz.toml", "/w");
    if (r.ok()) {
      ++parsed;
    } else {
      // A readable error that says which file is wrong.
      EXPECT_NE(r.error().message.find("fuzz.toml"), std::string::npos) << r.error().message;
      ++rejected;
    }
  }
  // Both paths ran: the edits are small enough to leave some policies valid.
  EXPECT_GT(parsed, 0);
  EXPECT_GT(rejected, 0);
}

}  // namespace
}  // namespace sepp::sandbox
