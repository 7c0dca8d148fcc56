// Property test: no argument shape the model can send crashes sepp. Every
// built-in tool and the agent tool get thousands of argument objects drawn
// from their own JSON schema, with values of the wrong type, numbers out of
// range, missing and extra properties, nulls, and arbitrary JSON in place of
// the object. For each call: Summary() does not throw, RunTool() returns,
// and an argument that breaks the schema gives an error result that names it.
// The seed is fixed, so a failure reproduces; the failing arguments are printed.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "agent/subagent_tool.h"
#include "agent/test_doubles.h"
#include "tools/search_tools.h"
#include "tools/tool.h"
#include "tools/tool_test_util.h"

namespace sepp::agent {
namespace {

using testing::Assistant;
using testing::ForwardingProvider;
using testing::ScriptedProvider;

class ArgsGenerator {
 public:
  explicit ArgsGenerator(uint32_t seed) : rng_(seed) {}

  int Int(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool Chance(int percent) { return Int(1, 100) <= percent; }

  // Any JSON value, nested up to depth.
  Json AnyValue(int depth = 2) {
    switch (Int(0, depth > 0 ? 9 : 7)) {
      case 0: return nullptr;
      case 1: return Chance(50);
      case 2: return Int(-3, 3);
      case 3: return static_cast<int64_t>(INT64_MIN) + Int(0, 1);
      case 4: return std::vector<double>{1.5, -0.0, 1e300, 3.0, 1e-300}[Int(0, 4)];
      case 5: return UINT64_MAX;
      case 6:
      case 7: return RandomString();
      case 8: {
        Json a = Json::array();
        for (int i = Int(0, 3); i > 0; --i) a.push_back(AnyValue(depth - 1));
        return a;
      }
      default: {
        Json o = Json::object();
        for (int i = Int(0, 3); i > 0; --i) o[RandomName()] = AnyValue(depth - 1);
        return o;
      }
    }
  }

  // A value of a different JSON type than the schema asks for (never null:
  // null means "absent" for optional arguments).
  Json WrongType(const std::string& type) {
    for (;;) {
      Json v = AnyValue(1);
      if (v.is_null() || MatchesType(v, type)) continue;
      return v;
    }
  }

  // A value of the schema's type that is safe to run: commands from a fixed
  // list, paths that stay in the workspace, integers around the bounds.
  Json RightType(const std::string& prop, const Json& schema) {
    std::string type = schema.value("type", "");
    if (type == "string") {
      if (prop == "command") return std::vector<std::string>{"true", "echo hi", "printf 'a\\tb'"}[Int(0, 2)];
      if (prop == "pattern" || prop == "glob" || prop == "old_string") return RandomString("ab*?[]{}()|.^$+\\,\n");
      if (prop == "path") return Chance(20) ? std::string() : RandomName();
      return RandomString();
    }
    if (type == "integer") {
      int64_t lo = schema.value("minimum", int64_t{-5}), hi = schema.value("maximum", lo + 50);
      switch (Int(0, 4)) {
        case 0: return lo - 1;
        case 1: return hi + 1;
        case 2: return static_cast<double>(lo);  // 1.0: integral, accepted
        default: return lo + Int(0, static_cast<int>(std::min<int64_t>(hi - lo, 1000)));
      }
    }
    if (type == "boolean") return Chance(50);
    if (type == "array") {
      Json a = Json::array();
      const Json items = schema.value("items", Json::object());
      for (int i = Int(0, 3); i > 0; --i) {
        if (items.value("type", "") == "object") a.push_back(ObjectFor(items, /*break_it=*/Chance(30)));
        else a.push_back(Chance(80) ? RightType("", items) : WrongType(items.value("type", "")));
      }
      return a;
    }
    if (type == "object") return ObjectFor(schema, false);
    return AnyValue();
  }

  // An object for a schema. With break_it, one property gets a wrong type or
  // a required one is left out.
  Json ObjectFor(const Json& schema, bool break_it) {
    Json o = Json::object();
    const Json props = schema.value("properties", Json::object());  // outlives the loop
    for (const auto& [name, prop] : props.items())
      if (Chance(70) || IsRequired(schema, name)) o[name] = RightType(name, prop);
    if (break_it && !o.empty()) {
      auto it = std::next(o.begin(), Int(0, static_cast<int>(o.size()) - 1));
      *it = WrongType(schema["properties"][it.key()].value("type", ""));
    }
    return o;
  }

  static bool MatchesType(const Json& v, const std::string& type) {
    if (type == "string") return v.is_string();
    if (type == "boolean") return v.is_boolean();
    if (type == "array") return v.is_array();
    if (type == "object") return v.is_object();
    if (type == "integer") {
      if (v.is_number_integer()) return true;
      if (!v.is_number_float()) return false;
      double d = v.get<double>();  // integral and within int64 (checked before the cast)
      return std::abs(d) < 9e18 && d == static_cast<double>(static_cast<int64_t>(d));
    }
    if (type == "number") return v.is_number();
    return true;
  }
  static bool IsRequired(const Json& schema, const std::string& name) {
    for (const auto& r : schema.value("required", Json::array()))
      if (r == name) return true;
    return false;
  }

 private:
  std::string RandomName() {
    std::string s;
    for (int i = Int(1, 8); i > 0; --i) s += "abcxyz_019"[Int(0, 9)];
    return s;
  }
  std::string RandomString(std::string_view alphabet = "abc \t\n\x1b\"\\{}\xc3\xa9\x01") {
    std::string s;
    for (int i = Int(0, 12); i > 0; --i) s += alphabet[Int(0, static_cast<int>(alphabet.size()) - 1)];
    if (Chance(5)) s += std::string(1, '\0') + "tail";
    if (Chance(5)) s += "\xff\xfe";  // not UTF-8
    return s;
  }

  std::mt19937 rng_;
};

// What breaks the schema at the top level: the property names the error must
// mention, or "" when the whole object is wrong (not an object, or a required
// property missing).
struct Breakage {
  bool broken = false;
  std::vector<std::string> wrong_props;
};

Breakage Check(const Json& schema, const Json& given) {
  Breakage b;
  if (!given.is_object() && !given.is_null()) {
    b.broken = true;
    return b;
  }
  const Json args = given.is_null() ? Json::object() : given;  // null counts as {}
  for (const auto& r : schema.value("required", Json::array()))
    if (!args.contains(r.get<std::string>()) || args[r.get<std::string>()].is_null()) b.broken = true;
  const Json props = schema.value("properties", Json::object());  // outlives the loop
  for (const auto& [name, prop] : props.items()) {
    if (!args.contains(name) || args[name].is_null()) continue;
    const Json& v = args[name];
    std::string type = prop.value("type", "");
    bool bad = !ArgsGenerator::MatchesType(v, type);
    if (!bad && type == "integer") {
      double d = v.is_number_float() ? v.get<double>() : 0;
      int64_t n = v.is_number_float() ? static_cast<int64_t>(d)
                  : v.is_number_unsigned() && v.get<uint64_t>() > INT64_MAX ? INT64_MAX
                                                                             : v.get<int64_t>();
      if ((prop.contains("minimum") && n < prop["minimum"].get<int64_t>()) ||
          (prop.contains("maximum") && n > prop["maximum"].get<int64_t>()))
        bad = true;
    }
    if (!bad && type == "array" && prop.contains("items")) {
      std::string item_type = prop["items"].value("type", "");
      for (const auto& item : v) bad = bad || !ArgsGenerator::MatchesType(item, item_type);
    }
    if (bad) {
      b.broken = true;
      b.wrong_props.push_back(name);
    }
  }
  return b;
}

class ToolArgsProperty : public ::testing::Test {
 protected:
  ToolArgsProperty() {
    ctx_.cwd = dir_.path();
    ctx_.output_dir = dir_.path() / ".sepp-output";
    dir_.Write("a", "alpha\nbeta\n");
    dir_.Write("abc", "one two\n");
    dir_.Mkdir("x");

    runtime_ = std::make_shared<SubagentRuntime>();
    runtime_->make_provider = [this] { return std::make_unique<ForwardingProvider>(provider_); };
    runtime_->make_tools = [] { return tools::MakeBuiltinTools(); };
    runtime_->parent.cwd = dir_.path();
    runtime_->parent.model = "m";
    registry_ = tools::MakeBuiltinTools();
    tools::AddSearchTools(*registry_);
    registry_->Add(std::make_unique<SubagentTool>(runtime_, 0));
  }

  // Runs one call and checks the properties; returns false on a violation.
  void CheckCall(tools::Tool& tool, const Json& args) {
    SCOPED_TRACE(tool.name() + " " + args.dump(-1, ' ', false, Json::error_handler_t::replace));
    try {
      (void)tool.Summary(args);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "Summary threw: " << e.what();
    }
    tools::ToolResult r = tools::RunTool(tool, args, ctx_);
    EXPECT_EQ(r.text.find("json.exception"), std::string::npos)
        << "an exception escaped the tool's own checks: " << r.text;
    if (r.is_error) {
      EXPECT_FALSE(r.text.empty()) << "an error result must say what was wrong";
    }
    Breakage b = Check(tool.parameters(), args);
    if (!b.broken) return;
    EXPECT_TRUE(r.is_error) << "arguments that break the schema were accepted: " << r.text;
    if (b.wrong_props.size() == 1) {
      // It names the wrong argument, or another one it found wrong first
      // (an empty path, say, or two that exclude each other): by name.
      bool named = false;
      for (const auto& [name, prop] : args.items())
        named = named || r.text.find(name) != std::string::npos;
      EXPECT_TRUE(named) << "the error names no argument: " << r.text;
      if (args.size() == 1) {
        EXPECT_NE(r.text.find("\"" + b.wrong_props[0] + "\""), std::string::npos) << r.text;
      }
    }
  }

  tools::testing::TempDir dir_;
  tools::ToolContext ctx_;
  ScriptedProvider provider_;
  std::shared_ptr<SubagentRuntime> runtime_;
  std::unique_ptr<tools::ToolRegistry> registry_;
};

TEST_F(ToolArgsProperty, EveryToolTakesAnyArgumentShapeWithoutCrashing) {
  ArgsGenerator gen(20261201);
  std::vector<tools::Tool*> all = registry_->All();
  ASSERT_EQ(all.size(), 10u) << "every built-in tool, the search tools and the agent tool";
  int broken = 0;
  for (int i = 0; i < 1500; ++i) {
    tools::Tool* tool = all[i % all.size()];
    // bash runs a real sandboxed command when its arguments are right: fewer of those.
    bool may_run = tool->name() != "bash" || i % 5 == 0;
    Json args;
    switch (gen.Int(0, 9)) {
      case 0: args = gen.AnyValue(3); break;  // anything at all
      case 1: args = gen.ObjectFor(tool->parameters(), false); args[std::string("extra")] = gen.AnyValue(); break;
      default: args = gen.ObjectFor(tool->parameters(), !may_run || gen.Chance(60)); break;
    }
    if (!may_run && !Check(tool->parameters(), args).broken) continue;
    broken += Check(tool->parameters(), args).broken;
    CheckCall(*tool, args);
    if (HasFailure()) break;  // one reproducible case is enough
  }
  if (!HasFailure()) {
    EXPECT_GT(broken, 500) << "the generator must mostly produce broken arguments";
  }
}

TEST_F(ToolArgsProperty, TheAgentToolGivenANumberForItsTaskIsAnErrorNotACrash) {
  tools::Tool* agent = registry_->Find("agent");
  ASSERT_NE(agent, nullptr);
  Json args = {{"task", 42}, {"agent", 7}, {"tools", "read"}};
  EXPECT_EQ(tools::SummarizeCall(*agent, args), "agent ");
  tools::ToolResult r = tools::RunTool(*agent, args, ctx_);
  EXPECT_TRUE(r.is_error);
  EXPECT_NE(r.text.find("\"task\": expected a string, got integer"), std::string::npos) << r.text;
  r = tools::RunTool(*agent, {{"task", "t"}, {"agent", 7}}, ctx_);
  EXPECT_NE(r.text.find("\"agent\": expected a string"), std::string::npos) << r.text;
  r = tools::RunTool(*agent, {{"task", "t"}, {"tools", {"read", 1}}}, ctx_);
  EXPECT_NE(r.text.find("\"tools\": expected an array of tool names"), std::string::npos) << r.text;
  r = tools::RunTool(*agent, {{"task", "t"}, {"model", false}}, ctx_);
  EXPECT_NE(r.text.find("\"model\": expected a string"), std::string::npos) << r.text;
  EXPECT_EQ(provider_.requests.size(), 0u) << "no sub-agent ran on bad arguments";
  r = tools::RunTool(*agent, {{"task", "t"}, {"tools", {"read"}}}, ctx_);
  EXPECT_FALSE(r.is_error) << r.text;
  EXPECT_EQ(provider_.requests.size(), 1u);
}

// A Summary() that throws (a tool written carelessly, a plugin) falls back
// to the tool's name instead of ending the process.
TEST(SummarizeCall, AThrowingSummaryFallsBackToTheName) {
  class Thrower : public tools::Tool {
   public:
    std::string name() const override { return "thrower"; }
    std::string description() const override { return ""; }
    Json parameters() const override { return Json::object(); }
    std::string Summary(const Json& args) const override { return args.at("missing"); }
    tools::ToolResult Run(const Json&, tools::ToolContext&) override { return {}; }
  } t;
  EXPECT_EQ(tools::SummarizeCall(t, Json::object()), "thrower");
}

}  // namespace
}  // namespace sepp::agent
