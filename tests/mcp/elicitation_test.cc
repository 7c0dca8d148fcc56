// elicitation/create on the ask-the-user path: the schema becomes typed
// fields, the answer goes back with the schema's defaults (SEP-1034), and
// schemas outside the spec's subset (or hostile ones) are declined.
#include <gtest/gtest.h>

#include <filesystem>

#include "ext/mcp/elicitation.h"
#include "ext/mcp/servers.h"
#include "sandbox/policy.h"

namespace sepp::ext::mcp {
namespace {

using agent::QuestionField;
using agent::QuestionStatus;

// The conformance scenario's request (elicitation-sep1034-client-defaults).
Json DefaultsRequest() {
  return Json::parse(R"({"message": "please accept with defaults", "requestedSchema": {"type": "object",
    "properties": {
      "name": {"type": "string", "description": "User name", "default": "John Doe"},
      "age": {"type": "integer", "default": 30},
      "score": {"type": "number", "default": 95.5},
      "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
      "verified": {"type": "boolean", "default": true}},
    "required": []}})");
}

// Answers with fixed values (empty: the user accepted the form unchanged).
class Scripted : public agent::QuestionAsker {
 public:
  agent::QuestionAnswer Ask(const agent::Question& q, CancelToken&) override {
    asked = q;
    agent::QuestionAnswer a;
    a.status = status;
    if (status == QuestionStatus::kAnswered) {
      auto v = agent::CheckAnswer(q, values);
      if (!v.ok()) return agent::QuestionAnswer{};
      a.values = *v;
    }
    return a;
  }
  QuestionStatus status = QuestionStatus::kAnswered;
  Json values = Json::object();
  agent::Question asked;
};

TEST(Elicitation, TheSchemaBecomesTypedFields) {
  auto q = QuestionFromElicitation("srv", DefaultsRequest());
  ASSERT_TRUE(q.ok()) << q.error().message;
  EXPECT_EQ(q->source, "mcp:srv");
  EXPECT_EQ(q->prompt, "please accept with defaults");
  ASSERT_EQ(q->fields.size(), 5u);
  std::map<std::string, QuestionField> by;
  for (const auto& f : q->fields) by[f.name] = f;
  EXPECT_EQ(by["name"].kind, QuestionField::Kind::kText);
  EXPECT_EQ(by["age"].kind, QuestionField::Kind::kInteger);
  EXPECT_EQ(by["score"].kind, QuestionField::Kind::kNumber);
  EXPECT_EQ(by["status"].kind, QuestionField::Kind::kChoice);
  EXPECT_EQ(by["status"].options.size(), 3u);
  EXPECT_EQ(by["verified"].kind, QuestionField::Kind::kBoolean);
  EXPECT_EQ(by["age"].default_value, 30);
}

TEST(Elicitation, AnAcceptedFormCarriesTheDefaultsOfWhatTheUserLeftOut) {
  Scripted user;
  user.values = {{"age", 41}};
  Json r = Elicit(user, "srv", DefaultsRequest());
  EXPECT_EQ(r["action"], "accept");
  EXPECT_EQ(r["content"], (Json{{"name", "John Doe"}, {"age", 41}, {"score", 95.5}, {"status", "active"},
                                 {"verified", true}}));
}

TEST(Elicitation, DeclinedAndCancelledMapToTheirActions) {
  Scripted user;
  user.status = QuestionStatus::kDeclined;
  EXPECT_EQ(Elicit(user, "srv", DefaultsRequest()), (Json{{"action", "decline"}}));
  user.status = QuestionStatus::kCancelled;
  EXPECT_EQ(Elicit(user, "srv", DefaultsRequest()), (Json{{"action", "cancel"}}));
}

TEST(Elicitation, MultiSelectAndTitledOptions) {
  Json req = Json::parse(R"({"message": "pick", "requestedSchema": {"type": "object", "properties": {
    "colors": {"type": "array", "items": {"anyOf": [{"const": "r", "title": "Red"}, {"const": "g", "title": "Green"}]}},
    "size": {"type": "string", "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}]}},
    "required": ["size"]}})");
  auto q = QuestionFromElicitation("srv", req);
  ASSERT_TRUE(q.ok()) << q.error().message;
  EXPECT_TRUE(q->fields[0].multiple);
  EXPECT_EQ(q->fields[0].options[1].description, "Green");
  EXPECT_TRUE(q->fields[1].required);
  Scripted user;
  user.values = {{"colors", {"g"}}, {"size", "l"}};
  EXPECT_EQ(Elicit(user, "srv", req)["content"], (Json{{"colors", {"g"}}, {"size", "l"}}));
  user.values = {{"colors", {"blue"}}, {"size", "l"}};  // not an option: not sent as accepted
  EXPECT_EQ(Elicit(user, "srv", req)["action"], "decline");
}

TEST(Elicitation, WhatIsOutsideTheSpecsSubsetIsDeclinedWithTheReason) {
  Scripted user;
  for (const char* bad : {
           R"({"mode": "url", "url": "https://example.com", "message": "go"})",
           R"({"requestedSchema": {"type": "object"}})",
           R"({"message": "x", "requestedSchema": {"type": "array"}})",
           R"({"message": "x", "requestedSchema": {"type": "object", "properties": {"a": {"type": "object"}}}})",
           R"({"message": "x", "requestedSchema": {"type": "object", "properties": {"a": 5}}})",
           R"({"message": "x", "requestedSchema": {"type": "object", "properties": {"a": {"type": "string", "enum": [1, 2]}}}})",
           R"({"message": "x", "requestedSchema": {"type": "object", "properties": {"a": {"type": "integer", "default": "x"}}}})",
           R"({"message": "x", "requestedSchema": {"type": "object", "properties": {"a": {"type": "array", "items": {}}}}})",
           R"("not an object")"}) {
    std::string why;
    Json r = Elicit(user, "srv", Json::parse(bad), &why);
    EXPECT_EQ(r, (Json{{"action", "decline"}})) << bad;
    EXPECT_FALSE(why.empty()) << bad;
  }
}

// Over the wire: a confined stdio server asks, the session's path answers.
class ElicitationWire : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(std::filesystem::exists(SEPP_NODE)) << "node is not installed: run scripts/setup";
    char tmpl[] = "/tmp/sepp-elicit-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    std::filesystem::create_directories(root_ / "ws");
    setenv("SEPP_HOME", (root_ / "sepp-home").c_str(), 1);
  }
  void TearDown() override {
    unsetenv("SEPP_HOME");
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }
  std::string Ask(agent::QuestionAsker* asker) {
    ServerConfig c;
    c.name = "elicit";
    c.command = {SEPP_NODE, (std::filesystem::path(SEPP_SOURCE_DIR) / "tests/mcp/servers/elicit_server.mjs").string()};
    c.tool_timeout_s = 20;
    StartOptions o;
    o.workspace = root_ / "ws";
    if (asker) o.on_elicitation = [asker](const std::string& server, const Json& p) { return Elicit(*asker, server, p); };
    auto s = StartServer(c, o);
    EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
    if (!s.ok()) return "";
    capabilities_ = (*s)->client().server().instructions;
    for (const auto& t : (*s)->Tools()) {
      auto tool = MakeMcpTool(*s, t);
      tools::ToolContext ctx;
      ctx.cwd = "/";
      return tool->Run(Json::object(), ctx).text;
    }
    return "";
  }
  std::filesystem::path root_;
  std::string capabilities_;
};

TEST_F(ElicitationWire, TheServersFormIsAcceptedWithItsDefaults) {
  Scripted user;  // accepts the form unchanged
  std::string r = Ask(&user);
  EXPECT_EQ(user.asked.source, "mcp:elicit");
  auto j = ParseJson(r);
  ASSERT_TRUE(j.ok()) << r;
  EXPECT_EQ((*j)["action"], "accept");
  EXPECT_EQ((*j)["content"], (Json{{"name", "John Doe"}, {"age", 30}, {"score", 95.5}, {"status", "active"},
                                    {"verified", true}}));
  EXPECT_NE(capabilities_.find("elicitation"), std::string::npos) << capabilities_;
}

TEST_F(ElicitationWire, WithoutAHandlerItIsDeclinedAndNotOffered) {
  std::string r = Ask(nullptr);
  EXPECT_EQ(ParseJson(r).value(), (Json{{"action", "decline"}})) << r;
  EXPECT_EQ(capabilities_.find("elicitation"), std::string::npos) << capabilities_;
}

}  // namespace
}  // namespace sepp::ext::mcp
