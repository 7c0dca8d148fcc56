// Denial explanations from the error text of real tools, and hostile text.
#include "sandbox/denials.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "sandbox/defaults.h"

namespace sepp::sandbox {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<std::string> Explain(std::string_view out) {
  Policy p = DefaultToolPolicy("/work/ws");
  std::vector<std::string> texts;
  for (const auto& d : ExplainDenials(p, RunFacts{1, 0, false, 0, 0}, out)) texts.push_back(d.text);
  return texts;
}

std::string First(std::string_view out) {
  auto d = Explain(out);
  return d.empty() ? "" : d.front();
}

TEST(Denials, NameThePathAsTheToolWroteIt) {
  EXPECT_THAT(First("sh: 1: cannot create .git/hooks/pre-commit: Read-only file system\n"),
              HasSubstr("writing .git/hooks/pre-commit is not allowed"));
  EXPECT_THAT(First("/bin/bash: line 1: /etc/x: Read-only file system\n"),
              HasSubstr("writing /etc/x is not allowed"));
  EXPECT_THAT(First("touch: cannot touch 'my dir/f': Read-only file system\n"),
              HasSubstr("writing my dir/f is not allowed"));
  EXPECT_THAT(First("mkdir: cannot create directory \xE2\x80\x98/usr/x\xE2\x80\x99: Read-only file system\n"),
              HasSubstr("writing /usr/x is not allowed"));
  EXPECT_THAT(First("cat: /home/u/notes: Permission denied\n"),
              HasSubstr("access to /home/u/notes was refused"));
  EXPECT_THAT(First("PermissionError: [Errno 13] Permission denied: '/srv/data'\n"),
              HasSubstr("access to /srv/data was refused"));
}

TEST(Denials, SecretsAreCalledSecrets) {
  Policy p = DefaultToolPolicy("/work/ws");
  ASSERT_FALSE(p.deny_paths.empty());
  std::string secret = p.deny_paths.front() + "/key";
  auto d = ExplainDenials(p, RunFacts{1, 0, false, 0, 0}, "cat: " + secret + ": Permission denied\n");
  ASSERT_FALSE(d.empty());
  EXPECT_THAT(d.front().text, HasSubstr("reading " + secret + " is not allowed"));
}

TEST(Denials, WordsThatAreNotPathsNameNoPath) {
  EXPECT_THAT(First("rm: Permission denied\n"), HasSubstr("access to a path was refused"));
  EXPECT_THAT(First(": Read-only file system"), HasSubstr("writing there is not allowed"));
  EXPECT_THAT(First("ping: socket: Operation not permitted\n"), HasSubstr("network"));
}

TEST(Denials, NothingForCleanOutputAndOnePerCause) {
  EXPECT_TRUE(Explain("all good\n").empty());
  EXPECT_THAT(Explain("a: /x: Read-only file system\na: /x: Read-only file system\n"),
              ElementsAre(HasSubstr("writing /x")));
}

// Hostile text: unterminated quotes, lone UTF-8 lead bytes, markers at the
// very start or end, a megabyte line, random bytes. Nothing may crash or
// read out of bounds (run under ASan in the sanitizer build).
TEST(Denials, HostileTextIsHandled) {
  const char* cases[] = {"'Permission denied", "\"Read-only file system", "\xE2\x80: Permission denied",
                         "\xE2: Read-only file system", "Permission denied: '", "Permission denied: 'abc",
                         "'': Permission denied", "\xE2\x80\x99: Permission denied", ":::: Permission denied"};
  for (const char* c : cases) Explain(c);
  Explain(std::string(1 << 20, '/') + ": Permission denied");
  std::mt19937 rng(11);
  const std::string pieces[] = {"Permission denied", "Read-only file system", "'", "\"", "\xE2\x80",
                                "\xE2\x80\x98", "/", ".", " ", ":", "\n", "socket", "connect"};
  for (int i = 0; i < 5000; ++i) {
    std::string s;
    int n = static_cast<int>(rng() % 12);
    for (int k = 0; k < n; ++k) s += pieces[rng() % std::size(pieces)];
    Explain(s);
  }
}

}  // namespace
}  // namespace sepp::sandbox
