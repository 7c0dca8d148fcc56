#include <gtest/gtest.h>

#include <sys/stat.h>

#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <random>
#include <thread>

#include "base/cancel.h"
#include "base/file.h"
#include "base/ids.h"
#include "base/json.h"
#include "base/paths.h"
#include "base/secrets.h"
#include "base/strings.h"

namespace sepp {
namespace {

// Configuration is read through one bounded reader: a symlink to
// /dev/zero, a FIFO, a folder or an over-size file is refused at once with
// a message naming the file and the limit; a regular file (through a
// symlink too) is read whole.
TEST(BoundedFile, RefusesWhatCouldBeReadForeverOrIsTooLarge) {
  auto dir = std::filesystem::temp_directory_path() / ("sepp-bounded-" + NewId());
  std::filesystem::create_directories(dir);
  ASSERT_TRUE(WriteFileAtomic(dir / "policy.toml", "[network]\n").ok());
  std::filesystem::create_symlink(dir / "policy.toml", dir / "link.toml");
  std::filesystem::create_symlink("/dev/zero", dir / "zero.toml");
  ASSERT_EQ(mkfifo((dir / "fifo.toml").c_str(), 0600), 0);
  ASSERT_TRUE(WriteFileAtomic(dir / "big.toml", std::string(5000, '#')).ok());

  EXPECT_EQ(ReadBoundedFile(dir / "policy.toml", 4096, "a sandbox policy").value(), "[network]\n");
  EXPECT_EQ(ReadBoundedFile(dir / "link.toml", 4096, "a sandbox policy").value(), "[network]\n");
  auto zero = ReadBoundedFile(dir / "zero.toml", 4096, "a sandbox policy");
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(zero.error().message.find("a character device, not a regular file"), std::string::npos)
      << zero.error().message;
  EXPECT_NE(zero.error().message.find("a sandbox policy"), std::string::npos);
  auto fifo = ReadBoundedFile(dir / "fifo.toml", 4096, "settings");  // returns at once, no writer needed
  ASSERT_FALSE(fifo.ok());
  EXPECT_NE(fifo.error().message.find("a FIFO"), std::string::npos) << fifo.error().message;
  EXPECT_FALSE(ReadBoundedFile(dir, 4096, "settings").ok());
  auto big = ReadBoundedFile(dir / "big.toml", 4096, "settings");
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.error().message.find("larger than 4 KiB, the limit for settings"), std::string::npos)
      << big.error().message;
  EXPECT_TRUE(ReadBoundedFile(dir / "big.toml", 5000, "settings").ok());  // exactly the limit
  std::filesystem::remove_all(dir);
}

TEST(Utf8, ValidAndInvalid) {
  EXPECT_TRUE(IsValidUtf8("héllo ✓ 𝄞"));
  EXPECT_FALSE(IsValidUtf8("\xC0\xAF"));          // overlong '/'
  EXPECT_FALSE(IsValidUtf8("\xED\xA0\x80"));      // surrogate
  EXPECT_FALSE(IsValidUtf8("\xF4\x90\x80\x80"));  // > U+10FFFF
  EXPECT_FALSE(IsValidUtf8("abc\xE2\x82"));       // truncated
}

TEST(Utf8, SanitizeReplacesEachBadByte) {
  EXPECT_EQ(SanitizeUtf8("a\xFF" "b"), "a\xEF\xBF\xBD" "b");
  EXPECT_EQ(SanitizeUtf8("ok ✓"), "ok ✓");
}

// Hostile bytes: the sanitizer copies well-formed runs whole; the result
// must be the sequence-by-sequence one (each ill-formed byte becomes
// U+FFFD, every well-formed sequence is kept), and always valid.
TEST(Utf8, SanitizeOfRandomBytesIsTheSequenceBySequenceResult) {
  std::mt19937 rng(3);
  const std::string pieces[] = {"a", "Z ", "\n", "\xC3\xA9", "\xE2\x9C\x93", "\xF0\x9F\x98\x80",
                                "\xFF", "\xC0\xAF", "\xED\xA0\x80", "\xE2\x82", "\x80", "\xF4\x90\x80\x80"};
  for (int round = 0; round < 2000; ++round) {
    std::string in;
    for (size_t n = rng() % 40; n; --n) {
      if (rng() % 4 == 0) in.push_back(static_cast<char>(rng() % 256));
      else in += pieces[rng() % std::size(pieces)];
    }
    std::string want;
    for (size_t i = 0; i < in.size();) {
      unsigned char c = static_cast<unsigned char>(in[i]);
      size_t n = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3
               : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
      if (n && i + n <= in.size() && IsValidUtf8(in.substr(i, n))) {
        want += in.substr(i, n);
        i += n;
      } else {
        want += "\xEF\xBF\xBD";
        ++i;
      }
    }
    std::string got = SanitizeUtf8(in);
    ASSERT_EQ(got, want) << round;
    ASSERT_TRUE(IsValidUtf8(got));
  }
}

TEST(Utf8, SafePrefixNeverCutsASequence) {
  std::string s = "a✓";  // 1 + 3 bytes
  EXPECT_EQ(Utf8SafePrefix(s, 1), 1u);
  EXPECT_EQ(Utf8SafePrefix(s, 2), 1u);
  EXPECT_EQ(Utf8SafePrefix(s, 3), 1u);
  EXPECT_EQ(Utf8SafePrefix(s, 4), 4u);
}

TEST(Strings, SplitTrimJoin) {
  EXPECT_EQ(Split("a,,b", ','), (std::vector<std::string>{"a", "", "b"}));
  EXPECT_EQ(SplitLines("x\ny\n"), (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(Trim("  x y \n"), "x y");
  EXPECT_EQ(Join({"a", "b"}, ", "), "a, b");
  EXPECT_EQ(ReplaceAll("aaa", "a", "bb"), "bbbbbb");
}

TEST(Json, ParseErrorIsAValueNotAThrow) {
  auto bad = ParseJson("{\"a\": ");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("invalid JSON"), std::string::npos);
  auto good = ParseJson("{\"a\": 1}");
  ASSERT_TRUE(good.ok());
  EXPECT_EQ((*good)["a"], 1);
}

// Found by the session store's damage fuzz: an id mutated into "79e350"
// overflowed a double, and nlohmann throws out_of_range for that, not
// parse_error.
TEST(Json, NumbersOutOfRangeAreErrorsNotThrows) {
  for (const char* text : {"1e999", "[79e350]", "{\"a\": -1e400}", "123456789012345678901234567890e400"}) {
    auto r = ParseJson(text);
    EXPECT_FALSE(r.ok()) << text;
    if (!r.ok()) EXPECT_EQ(r.error().kind, "invalid_json");
  }
}

TEST(Json, DumpSurvivesInvalidUtf8) {
  Json j = std::string("x\xFFy");
  EXPECT_EQ(DumpJson(j), "\"x\xEF\xBF\xBDy\"");
}

TEST(Secrets, NamesThatLookSecret) {
  EXPECT_TRUE(IsSecretEnvName("ANTHROPIC_API_KEY"));
  EXPECT_TRUE(IsSecretEnvName("OPENAI_API_KEY"));
  EXPECT_TRUE(IsSecretEnvName("GITHUB_TOKEN"));
  EXPECT_TRUE(IsSecretEnvName("AWS_SECRET_ACCESS_KEY"));
  EXPECT_TRUE(IsSecretEnvName("DB_PASSWORD"));
  EXPECT_FALSE(IsSecretEnvName("PATH"));
  EXPECT_FALSE(IsSecretEnvName("HOME"));
  EXPECT_FALSE(IsSecretEnvName("LANG"));
}

TEST(Secrets, RedactRemovesRegisteredValues) {
  RegisterSecret("sk-test-1234567890");
  RegisterSecret("short");  // too short to register
  EXPECT_EQ(Redact("key=sk-test-1234567890!"), "key=[REDACTED]!");
  EXPECT_EQ(Redact("short stays"), "short stays");
  EXPECT_TRUE(ContainsSecret("xx sk-test-1234567890"));
}

TEST(Ids, TimeOrderedAndUnique) {
  std::string a = NewId(), b = NewId();
  EXPECT_EQ(a.size(), 32u);
  EXPECT_NE(a, b);
  EXPECT_LE(a.substr(0, 12), b.substr(0, 12));
  EXPECT_EQ(ShortId().size(), 8u);
}

TEST(Cancel, CallbacksRunOnceAndLateOnesAtOnce) {
  CancelToken t;
  int n = 0;
  auto r1 = t.OnCancel([&] { ++n; });
  t.Cancel();
  t.Cancel();
  EXPECT_EQ(n, 1);
  auto r2 = t.OnCancel([&] { ++n; });
  EXPECT_EQ(n, 2);
  EXPECT_TRUE(t.cancelled());
}

// Once a Registration is destroyed its callback neither runs nor is still
// running: what it touches (a pid, an fd) may be released right after. The
// callback below holds on until the destructor has returned or a bound
// passes; with a destructor that does not wait it would see the return
// while still running.
TEST(Cancel, DestroyingARegistrationWaitsForItsRunningCallback) {
  CancelToken t;
  std::mutex mu;
  std::condition_variable cv;
  bool entered = false, finished = false, returned = false, returned_while_running = false;
  auto reg = t.OnCancel([&] {
    std::unique_lock lock(mu);
    entered = true;
    cv.notify_all();
    cv.wait_for(lock, std::chrono::milliseconds(300), [&] { return returned; });
    returned_while_running = returned;
    finished = true;
  });
  std::thread canceller([&] { t.Cancel(); });
  {
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return entered; });
  }
  reg.reset();  // must wait for the callback
  {
    std::lock_guard lock(mu);
    EXPECT_TRUE(finished);
    returned = true;
    cv.notify_all();
  }
  canceller.join();
  EXPECT_FALSE(returned_while_running);
  // A callback may drop its own registration without waiting for itself.
  CancelToken u;
  std::unique_ptr<CancelToken::Registration> self;
  self = u.OnCancel([&] { self.reset(); });
  u.Cancel();
  EXPECT_EQ(self, nullptr);
}

TEST(Cancel, UnregisteredCallbackDoesNotRun) {
  CancelToken t;
  int n = 0;
  { auto r = t.OnCancel([&] { ++n; }); }
  t.Cancel();
  EXPECT_EQ(n, 0);
}

TEST(Cancel, ChildFollowsParent) {
  CancelToken parent;
  auto child = parent.Child();
  EXPECT_FALSE(child->cancelled());
  parent.Cancel();
  EXPECT_TRUE(child->cancelled());
}

TEST(File, AtomicWriteThenRead) {
  auto dir = std::filesystem::temp_directory_path() / ("sepp-base-" + ShortId());
  auto p = dir / "sub" / "f.txt";
  ASSERT_TRUE(WriteFileAtomic(p, "hello").ok());
  auto r = ReadFile(p);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, "hello");
  auto missing = ReadFile(dir / "nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("No such file"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(Paths, ResolveAndDisplay) {
  EXPECT_EQ(ResolveAgainst("/w", "a/../b").string(), "/w/b");
  EXPECT_EQ(ResolveAgainst("/w", "/etc/x").string(), "/etc/x");
  EXPECT_EQ(DisplayPath("/w/src/a.cc", "/w"), "src/a.cc");
  EXPECT_EQ(DisplayPath("/etc/x", "/w"), "/etc/x");
}

}  // namespace
}  // namespace sepp
