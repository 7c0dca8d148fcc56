// The spec runner and suite driver on a small hand-written script.
#include <gtest/gtest.h>

#include <filesystem>

#include "base/file.h"
#include "module_builder.h"
#include "wasm/spec_suite.h"

namespace sepp::wasm {
namespace {

namespace fs = std::filesystem;

class SpecRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("sepp_wasm_spec_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    testing::ModuleBuilder b;
    uint32_t t = b.Type({testing::kI32, testing::kI32}, {testing::kI32});
    b.ExportFunc("div", b.Func(t, {0x20, 0x00, 0x20, 0x01, 0x6D, 0x0B}));
    testing::Bytes wasm = b.Build();
    ASSERT_TRUE(WriteFileAtomic(dir_ / "m.0.wasm", std::string(wasm.begin(), wasm.end())).ok());
    ASSERT_TRUE(WriteFileAtomic(dir_ / "bad.wasm", std::string("\0asm\2\0\0\0", 8)).ok());
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Script(const std::string& commands) {
    std::string path = (dir_ / "s.json").string();
    EXPECT_TRUE(WriteFileAtomic(path, "{\"commands\": [" + commands + "]}").ok());
    return path;
  }

  fs::path dir_;
};

constexpr const char* kModule = R"({"type": "module", "line": 1, "filename": "m.0.wasm"})";

TEST_F(SpecRunnerTest, CountsPassesAndFailures) {
  std::string path = Script(std::string(kModule) + R"(,
    {"type": "assert_return", "line": 2, "action": {"type": "invoke", "field": "div",
      "args": [{"type": "i32", "value": "7"}, {"type": "i32", "value": "2"}]},
      "expected": [{"type": "i32", "value": "3"}]},
    {"type": "assert_return", "line": 3, "action": {"type": "invoke", "field": "div",
      "args": [{"type": "i32", "value": "4294967290"}, {"type": "i32", "value": "2"}]},
      "expected": [{"type": "i32", "value": "4294967293"}]},
    {"type": "assert_return", "line": 4, "action": {"type": "invoke", "field": "div",
      "args": [{"type": "i32", "value": "8"}, {"type": "i32", "value": "2"}]},
      "expected": [{"type": "i32", "value": "5"}]},
    {"type": "assert_trap", "line": 5, "action": {"type": "invoke", "field": "div",
      "args": [{"type": "i32", "value": "1"}, {"type": "i32", "value": "0"}]},
      "text": "integer divide by zero", "expected": [{"type": "i32"}]},
    {"type": "assert_malformed", "line": 6, "filename": "bad.wasm", "text": "unknown binary version", "module_type": "binary"},
    {"type": "assert_malformed", "line": 7, "filename": "x.wat", "text": "unexpected token", "module_type": "text"},
    {"type": "assert_invalid", "line": 8, "filename": "m.0.wasm", "text": "type mismatch", "module_type": "binary"}
  )");
  auto r = RunSpecFile(path);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->passed, 5);  // the module command counts too
  EXPECT_EQ(r->failed, 2);  // line 4 (wrong value) and line 8 (valid module)
  EXPECT_EQ(r->skipped, 1);
  ASSERT_EQ(r->failures.size(), 2u);
  EXPECT_NE(r->failures[0].find("s.json:4"), std::string::npos);

  auto suite = RunSpecSuite({path}, {{"s.json", 2}}, false);
  EXPECT_TRUE(suite.ok);
  EXPECT_NE(suite.text.find("5 passed, 2 failed\n"), std::string::npos);
  auto strict = RunSpecSuite({path}, {}, false);
  EXPECT_FALSE(strict.ok);
}

TEST_F(SpecRunnerTest, HostileScriptsAreErrorsNotCrashes) {
  EXPECT_FALSE(RunSpecFile((dir_ / "missing.json").string()).ok());
  std::string path = (dir_ / "junk.json").string();
  ASSERT_TRUE(WriteFileAtomic(path, "{\"commands\": 5}").ok());
  EXPECT_FALSE(RunSpecFile(path).ok());
  auto r = RunSpecFile(Script(R"({"type": "assert_return", "line": 1, "action": {"type": "invoke"}},
                                 {"type": "module", "filename": "../../../../etc/passwd"},
                                 {"nothing": 1})"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->failed, 3);
}

TEST(SpecSuite, ParsesExpectedFailures) {
  auto ok = ParseExpectedFailures("# comment\n\nf32.json 3\n  conversions.json\t12 \n");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok->at("f32.json"), 3);
  EXPECT_EQ(ok->at("conversions.json"), 12);
  EXPECT_FALSE(ParseExpectedFailures("f32.json\n").ok());
  EXPECT_FALSE(ParseExpectedFailures("f32.json many\n").ok());
}

}  // namespace
}  // namespace sepp::wasm
