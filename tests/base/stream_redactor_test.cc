// StreamRedactor: a secret split across pieces at any offset is caught, text
// without secrets passes through unchanged (only delayed), and what comes
// out never ends inside a UTF-8 character.
#include <gtest/gtest.h>

#include <random>

#include "base/secrets.h"
#include "base/stream_redactor.h"

namespace sepp {
namespace {

constexpr char kKey[] = "sk-stream-0123456789abcdefXYZ";

std::string RedactPieces(const std::vector<std::string>& pieces) {
  StreamRedactor r;
  std::string out;
  for (const auto& p : pieces) out += r.Push(p);
  return out + r.Flush();
}

class StreamRedactorTest : public ::testing::Test {
 protected:
  void SetUp() override { RegisterSecret(kKey); }
};

TEST_F(StreamRedactorTest, AKeySplitInTwoAtEveryOffsetIsRedacted) {
  const std::string text = std::string("before ") + kKey + " after";
  for (size_t cut = 0; cut <= text.size(); ++cut) {
    SCOPED_TRACE(cut);
    EXPECT_EQ(RedactPieces({text.substr(0, cut), text.substr(cut)}), "before [REDACTED] after");
  }
}

TEST_F(StreamRedactorTest, AKeySplitInThreeAtEveryPairOfOffsetsIsRedacted) {
  const std::string key = kKey;
  for (size_t a = 0; a <= key.size(); ++a)
    for (size_t b = a; b <= key.size(); ++b) {
      SCOPED_TRACE(std::to_string(a) + "," + std::to_string(b));
      EXPECT_EQ(RedactPieces({"x" + key.substr(0, a), key.substr(a, b - a), key.substr(b) + "y"}),
                "x[REDACTED]y");
    }
}

TEST_F(StreamRedactorTest, OneByteAtATimeAndRandomPiecesGiveWhatRedactGives) {
  std::string text;
  for (int i = 0; i < 20; ++i) text += std::string("line ") + std::to_string(i) + " " + kKey + (i % 3 ? "" : kKey) + "\n";
  std::vector<std::string> bytes;
  for (char c : text) bytes.push_back(std::string(1, c));
  EXPECT_EQ(RedactPieces(bytes), Redact(text));
  std::mt19937 rng(17);
  for (int round = 0; round < 200; ++round) {
    std::vector<std::string> pieces;
    for (size_t i = 0; i < text.size();) {
      size_t n = std::uniform_int_distribution<size_t>(0, 40)(rng);
      pieces.push_back(text.substr(i, n));
      i += n;
    }
    ASSERT_EQ(RedactPieces(pieces), Redact(text)) << "round " << round;
  }
}

TEST_F(StreamRedactorTest, TextWithoutSecretsIsUnchangedAndHeldBackBoundedly) {
  StreamRedactor r;
  std::string out = r.Push("sk-stream-01");  // could be the start of the key
  EXPECT_EQ(out, "");
  EXPECT_EQ(r.pending(), 12u);
  out += r.Push("!");  // now it cannot
  out += r.Push(std::string(100, 'a'));
  EXPECT_LE(r.pending(), RegisteredSecrets().front().size() - 1 + 3);
  out += r.Flush();
  EXPECT_EQ(out, "sk-stream-01!" + std::string(100, 'a'));
  EXPECT_EQ(r.pending(), 0u);
  // Text whose end cannot start a secret is not delayed at all.
  EXPECT_EQ(r.Push("hello world\n"), "hello world\n");
  EXPECT_EQ(r.Push("key: sk-"), "key: ");
  EXPECT_EQ(r.pending(), 3u);
}

TEST_F(StreamRedactorTest, ALongerSecretThatStartsWithAShorterOneIsRedactedWhole) {
  RegisterSecret("sk-stream-short");
  RegisterSecret("sk-stream-short-and-then-longer");
  const std::string text = "a sk-stream-short-and-then-longer b sk-stream-short c";
  for (size_t cut = 0; cut <= text.size(); ++cut)
    EXPECT_EQ(RedactPieces({text.substr(0, cut), text.substr(cut)}), "a [REDACTED] b [REDACTED] c") << cut;
}

// Secrets that share prefixes and overlap, text made of their pieces: every
// way of cutting the text gives what the whole text in one piece gives, and
// no secret survives.
TEST_F(StreamRedactorTest, AnySplitGivesWhatOnePieceGives) {
  const std::vector<std::string> family = {"zq-prefix-0001", "zq-prefix-0001-longer-tail",
                                           "prefix-0001-lo", "zq-prefix-0002xx"};
  for (const auto& f : family) RegisterSecret(f);
  const std::string frags[] = {"zq-", "prefix-", "0001", "-longer", "-tail", "0002", "xx", " ", "zq-prefix-0001"};
  std::mt19937 rng(99);
  for (int round = 0; round < 3000; ++round) {
    std::string text;
    for (int n = std::uniform_int_distribution<int>(1, 12)(rng); n > 0; --n)
      text += frags[std::uniform_int_distribution<int>(0, 8)(rng)];
    const std::string whole = RedactPieces({text});
    for (const auto& f : family) ASSERT_EQ(whole.find(f), std::string::npos) << text << " -> " << whole;
    std::vector<std::string> pieces;
    for (size_t i = 0; i < text.size();) {
      size_t n = std::uniform_int_distribution<size_t>(0, 7)(rng);
      pieces.push_back(text.substr(i, n));
      i += n;
    }
    ASSERT_EQ(RedactPieces(pieces), whole) << text;
  }
}

TEST_F(StreamRedactorTest, OutputNeverEndsInsideAUtf8Character) {
  const std::string text = "h\xC3\xA9llo \xE2\x82\xAC \xF0\x9F\x98\x80 end";  // é € 😀
  for (size_t cut = 0; cut <= text.size(); ++cut) {
    StreamRedactor r;
    std::string first = r.Push(text.substr(0, cut));
    // The first part is whole characters: a prefix of text cut at a boundary.
    ASSERT_EQ(text.compare(0, first.size(), first), 0);
    if (!first.empty() && first.size() < text.size()) {
      EXPECT_NE(static_cast<unsigned char>(text[first.size()]) & 0xC0, 0x80) << cut;
    }
    std::string second = r.Push(text.substr(cut));
    EXPECT_EQ(first + second + r.Flush(), text) << cut;
  }
}

}  // namespace
}  // namespace sepp
