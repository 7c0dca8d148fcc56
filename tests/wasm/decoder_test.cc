// Decoder hostile-input tests: truncated, oversized and malformed modules are
// rejected with an error, never a crash.
#include <gtest/gtest.h>

#include <vector>

#include "module_builder.h"
#include "wasm/compiler.h"
#include "wasm/decoder.h"

namespace sepp::wasm {
namespace {

Result<std::shared_ptr<const Module>> Decode(const std::vector<uint8_t>& b) { return DecodeModule(b); }

const std::vector<uint8_t> kHeader = {0x00, 0x61, 0x73, 0x6D, 0x01, 0x00, 0x00, 0x00};

TEST(WasmDecoder, AcceptsEmptyModule) { EXPECT_TRUE(Decode(kHeader).ok()); }

TEST(WasmDecoder, RejectsBadMagicAndVersion) {
  EXPECT_EQ(Decode({}).error().kind, "malformed");
  EXPECT_EQ(Decode({0x00, 0x61, 0x73}).error().kind, "malformed");
  EXPECT_EQ(Decode({0x00, 0x61, 0x73, 0x6E, 1, 0, 0, 0}).error().kind, "malformed");
  EXPECT_EQ(Decode({0x00, 0x61, 0x73, 0x6D, 2, 0, 0, 0}).error().kind, "malformed");
}

TEST(WasmDecoder, RejectsSectionLongerThanInput) {
  auto b = kHeader;
  b.insert(b.end(), {0x01, 0xFF, 0xFF, 0xFF, 0x0F});  // type section of 4 GiB
  EXPECT_EQ(Decode(b).error().kind, "malformed");
}

TEST(WasmDecoder, RejectsHugeCountsWithoutAllocating) {
  auto b = kHeader;
  b.insert(b.end(), {0x01, 0x05, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F});  // 4G types in 5 bytes
  EXPECT_FALSE(Decode(b).ok());
}

TEST(WasmDecoder, RejectsOverlongLeb) {
  auto b = kHeader;
  b.insert(b.end(), {0x01, 0x07, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00, 0x00});
  EXPECT_EQ(Decode(b).error().kind, "malformed");
}

TEST(WasmDecoder, RejectsOutOfOrderSections) {
  auto b = kHeader;
  b.insert(b.end(), {0x03, 0x01, 0x00, 0x01, 0x01, 0x00});  // function then type
  EXPECT_EQ(Decode(b).error().kind, "malformed");
}

TEST(WasmDecoder, RejectsTooManyLocals) {
  auto b = kHeader;
  // type () -> (); one function; body declaring 2^32-1 i32 locals.
  b.insert(b.end(), {0x01, 0x04, 0x01, 0x60, 0x00, 0x00});
  b.insert(b.end(), {0x03, 0x02, 0x01, 0x00});
  b.insert(b.end(), {0x0A, 0x0A, 0x01, 0x08, 0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0x7F, 0x0B});
  auto r = Decode(b);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("too many locals"), std::string::npos);
}

TEST(WasmDecoder, TruncationAtEveryByteNeverCrashes) {
  // A module with a function using several instruction kinds.
  std::vector<uint8_t> b = kHeader;
  b.insert(b.end(), {0x01, 0x06, 0x01, 0x60, 0x01, 0x7F, 0x01, 0x7F});  // (i32)->i32
  b.insert(b.end(), {0x03, 0x02, 0x01, 0x00});
  b.insert(b.end(), {0x05, 0x03, 0x01, 0x00, 0x01});  // memory 1
  b.insert(b.end(), {0x0A, 0x0D, 0x01, 0x0B, 0x00, 0x20, 0x00, 0x28, 0x02, 0x00, 0x41, 0x01, 0x6A, 0x0F, 0x0B});
  ASSERT_TRUE(Decode(b).ok()) << Decode(b).error().message;
  for (size_t n = 0; n < b.size(); ++n) {
    std::vector<uint8_t> cut(b.begin(), b.begin() + static_cast<ptrdiff_t>(n));
    if (n == 8 || n == 16) continue;  // header alone, header + types: valid modules
    EXPECT_FALSE(Decode(cut).ok()) << "prefix of " << n << " bytes was accepted";
  }
  // Every single-byte corruption must be handled: accepted, or rejected with
  // a kind and a message.
  int rejected = 0;
  for (size_t i = 8; i < b.size(); ++i) {
    for (int v : {0x00, 0x0B, 0x7F, 0x80, 0xFF}) {
      auto c = b;
      c[i] = static_cast<uint8_t>(v);
      auto r = Decode(c);
      if (r.ok()) continue;
      ++rejected;
      EXPECT_TRUE(r.error().kind == "malformed" || r.error().kind == "invalid") << r.error().kind;
      EXPECT_FALSE(r.error().message.empty());
    }
  }
  EXPECT_GT(rejected, 0);
}

TEST(WasmDecoder, RejectsTypeMismatchAsInvalid) {
  std::vector<uint8_t> b = kHeader;
  b.insert(b.end(), {0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7F});  // () -> i32
  b.insert(b.end(), {0x03, 0x02, 0x01, 0x00});
  b.insert(b.end(), {0x0A, 0x06, 0x01, 0x04, 0x00, 0x42, 0x00, 0x0B});  // i64.const 0 ; end
  auto r = Decode(b);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, "invalid");
}

}  // namespace
}  // namespace sepp::wasm

namespace sepp::wasm {
namespace {

// Hostile but valid shapes must validate in time linear in their size: a
// deep operand stack followed by a huge br_table, and many functions that
// each declare the maximum number of locals.
TEST(WasmDecoder, LargeBrTableOverDeepStackIsLinear) {
  testing::ModuleBuilder b;
  uint32_t t = b.Type({}, {});
  testing::Bytes body;
  for (int i = 0; i < 20000; ++i) body.insert(body.end(), {0x41, 0x00});  // i32.const 0
  body.insert(body.end(), {0x41, 0x00, 0x0E});
  testing::Leb(body, 200000);
  for (int i = 0; i <= 200000; ++i) body.push_back(0x00);
  body.push_back(0x0B);
  b.Func(t, body);
  auto m = DecodeModule(b.Build());
  EXPECT_TRUE(m.ok()) << m.error().message;
}

TEST(WasmDecoder, ManyLocalHeavyFunctionsDoNotKeepLocalTypes) {
  testing::ModuleBuilder b;
  uint32_t t = b.Type({}, {});
  for (int i = 0; i < 2000; ++i) b.Func(t, {0x0B}, {{kMaxLocals, testing::kI64}});
  auto m = DecodeModule(b.Build());
  ASSERT_TRUE(m.ok()) << m.error().message;
  for (const CompiledFunc& f : (*m)->funcs) EXPECT_TRUE(f.local_types.empty());
}

}  // namespace
}  // namespace sepp::wasm
