// The record codec, and above all the envelope scan that lets a long session
// open without building a JSON document per line.
#include <gtest/gtest.h>

#include <random>

#include "base/secrets.h"
#include "base/strings.h"
#include "session/entry_codec.h"

namespace sepp::session {
namespace {

TEST(EntryFromText, FastPathReadsTheEnvelopeAndDefersTheRest) {
  std::string line =
      R"({"type":"message","id":"1a2b","parentId":"0f0f","timestamp":"2026-11-29T10:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":"hi \"there\" {[}"}]}})";
  auto e = EntryFromText(line);
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_EQ(e->type, "message");
  EXPECT_EQ(e->id, "1a2b");
  EXPECT_EQ(e->parent_id, "0f0f");
  EXPECT_EQ(e->timestamp, "2026-11-29T10:00:00.000Z");
  ASSERT_NE(e->unparsed_text(), nullptr);
  EXPECT_EQ(EncodeEntry(*e), line);  // verbatim while unparsed
  EXPECT_EQ(e->data(), Json::parse(line));
  EXPECT_EQ(e->unparsed_text(), nullptr);
  EXPECT_EQ(Json::parse(EncodeEntry(*e)), Json::parse(line));  // same content once parsed
}

TEST(EntryFromText, AnyKeyOrderWhitespaceAndNullParent) {
  auto e = EntryFromText(" { \"x\" : [ 1 , {\"id\":\"inner\"} ] , \"id\" : \"b\" ,\t\"parentId\" : null , \"type\" : \"t\" } ");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->id, "b");  // not the nested one
  EXPECT_EQ(e->parent_id, "");
  EXPECT_EQ(e->type, "t");
  EXPECT_EQ(e->timestamp, "");
}

TEST(EntryFromText, EscapedEnvelopeStringsTakeTheFullParse) {
  auto e = EntryFromText(R"({"type":"t","id":"a\"b\u00e9","parentId":null})");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->id, "a\"b\xC3\xA9");
  EXPECT_EQ(e->unparsed_text(), nullptr);
}

TEST(EntryFromText, RejectsWhatIsNotAnEntry) {
  for (const char* bad : {
           "", "   ", "{}", "[]", "null", "\"str\"", "{\"type\":\"a\"}", "{\"id\":\"a\"}",
           "{\"type\":\"\",\"id\":\"a\"}", "{\"type\":\"a\",\"id\":\"\"}",
           "{\"type\":\"a\",\"id\":\"b\"", "{\"type\":\"a\",\"id\":\"b\"}}",
           "{\"type\":\"a\",\"id\":\"b\",\"x\":[1,2}", "{\"type\":\"a\",\"id\":\"b\",\"x\":\"\x01\"}",
           "{\"type\":\"a\",\"id\":\"b\",\"parentId\":7}", "{\"type\":1,\"id\":\"b\"}",
"{\"type\":\"a\",\"id\":\"b\"} x",
           "{\"type\":\"a\",\"id\":\"b\",}", "{\"type\":\"a\" \"id\":\"b\"}", "{\"type\":\"a\",\"id\":\"b\\",
       }) {
    EXPECT_FALSE(EntryFromText(bad).ok()) << bad;
  }
}

TEST(EntryFromText, BadBodyBehindAGoodEnvelopeNeverThrows) {
  auto e = EntryFromText(R"({"type":"a","id":"b","parentId":"p","x":tru})");
  ASSERT_TRUE(e.ok());  // the scan does not check literals...
  const Json& d = e->data();  // ...so data() falls back to the envelope
  EXPECT_EQ(d["id"], "b");
  EXPECT_EQ(d["parentId"], "p");
  EXPECT_FALSE(d.contains("x"));
}

TEST(EntryFromText, InvalidUtf8InThePayloadIsRepairedLazily) {
  auto e = EntryFromText("{\"type\":\"a\",\"id\":\"b\",\"t\":\"x\xff\"}");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->data()["t"], "x\xEF\xBF\xBD");
  // In the envelope itself, invalid UTF-8 takes the repairing full parse.
  auto f = EntryFromText("{\"type\":\"a\xff\",\"id\":\"b\"}");
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->type, "a\xEF\xBF\xBD");
}

// Mutated lines: the scan never crashes, and whenever nlohmann reads the
// line as an entry, the scan agrees on the envelope.
TEST(EntryFromText, AgreesWithAFullParseOnMutatedInput) {
  const std::string base =
      R"({"type":"message","id":"1a2b","parentId":null,"timestamp":"t","message":{"role":"user","content":[{"type":"text","text":"a\"b"}],"n":[1,2.5e3,true,false,null]}})";
  std::mt19937 rng(1234);
  const char alphabet[] = "{}[]\",:\\ \x01\xff" "abtnul0-";
  for (int i = 0; i < 10000; ++i) {
    std::string s = base;
    int edits = 1 + static_cast<int>(rng() % 3);
    for (int k = 0; k < edits; ++k) {
      size_t at = rng() % s.size();
      switch (rng() % 3) {
        case 0: s[at] = alphabet[rng() % (sizeof alphabet - 1)]; break;
        case 1: s.erase(at, 1 + rng() % 4); break;
        default: s.insert(at, 1, alphabet[rng() % (sizeof alphabet - 1)]);
      }
      if (s.empty()) s = "{";
    }
    auto fast = EntryFromText(s);
    if (fast.ok()) (void)fast->data();  // must not throw
    auto full = ParseRecord(s);
    if (!full.ok()) continue;
    auto slow = EntryFromJson(*full);
    if (!slow.ok()) continue;
    ASSERT_TRUE(fast.ok()) << s;
    EXPECT_EQ(fast->type, slow->type) << s;
    EXPECT_EQ(fast->id, slow->id) << s;
    EXPECT_EQ(fast->parent_id, slow->parent_id) << s;
  }
}

TEST(EncodeRecord, EnvelopeFirstThenSortedKeys) {
  Json j = {{"z", 1}, {"id", "i"}, {"a", 2}, {"type", "t"}};
  EXPECT_EQ(EncodeRecord(j, {"type", "id", "parentId"}), R"({"type":"t","id":"i","a":2,"z":1})");
}

TEST(RedactStrings, ValuesAndKeysAtAnyDepth) {
  RegisterSecret("codec-test-secret-12345");
  Json j = {{"a", {{"b", Json::array({"x codec-test-secret-12345 y"})}}},
            {"codec-test-secret-12345", 1}};
  RedactStrings(j);
  EXPECT_EQ(DumpJson(j).find("codec-test-secret-12345"), std::string::npos);
  EXPECT_EQ(j["a"]["b"][0], "x [REDACTED] y");
  EXPECT_TRUE(j.contains("[REDACTED]"));
}

TEST(ParseIso8601Ms, KnownInstants) {
  EXPECT_EQ(ParseIso8601Ms("1970-01-01T00:00:00.000Z"), 0);
  EXPECT_EQ(ParseIso8601Ms("2026-11-29T14:39:14.123Z"), 1795963154123);
  EXPECT_EQ(ParseIso8601Ms("2000-02-29T00:00:01Z"), 951782401000);
  EXPECT_FALSE(ParseIso8601Ms("yesterday").has_value());
  EXPECT_FALSE(ParseIso8601Ms("2026-13-01T00:00:00Z").has_value());
}

}  // namespace
}  // namespace sepp::session
