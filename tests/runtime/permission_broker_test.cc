#include <gtest/gtest.h>

#include <fstream>
#include <future>

#include "runtime/permission_broker.h"
#include "runtime_test_util.h"

namespace sepp::runtime {
namespace {

using agent::PermissionChoice;
using agent::Widening;

agent::PermissionRequest Ask(std::vector<Widening> w) {
  agent::PermissionRequest r;
  r.call_id = "c9";
  r.tool = "bash";
  r.args = {{"command", "pip install requests"}};
  r.widenings = std::move(w);
  r.justification = "the task installs a package";
  return r;
}

class BrokerTest : public ::testing::Test {
 protected:
  std::unique_ptr<PermissionBroker> Make(PermissionDefaults d) {
    return std::make_unique<PermissionBroker>(d, home_.work(), [this](agent::Event e) {
      std::lock_guard<std::mutex> l(mu_);
      events_.push_back(std::move(e));
      cv_.notify_all();
    });
  }
  agent::Event WaitFor(agent::EventType t) {
    std::unique_lock<std::mutex> l(mu_);
    cv_.wait(l, [&] {
      for (const auto& e : events_)
        if (e.type == t) return true;
      return false;
    });
    for (const auto& e : events_)
      if (e.type == t) return e;
    return agent::Event(t);
  }
  size_t Count(agent::EventType t) {
    std::lock_guard<std::mutex> l(mu_);
    size_t n = 0;
    for (const auto& e : events_) n += e.type == t;
    return n;
  }
  testing::TempHome home_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<agent::Event> events_;
};

TEST_F(BrokerTest, HeadlessWithoutFlagsDeniesAndSaysHowToAllow) {
  auto b = Make({});
  CancelToken c;
  auto a = b->Ask(Ask({{Widening::Kind::kDomain, "pypi.org"}}), c);
  EXPECT_EQ(a.choice, PermissionChoice::kDeny);
  EXPECT_EQ(a.source, "no_front_end");
  EXPECT_NE(a.message.find("--allow-domain"), std::string::npos);
  auto w = b->Ask(Ask({{Widening::Kind::kWritePath, "/data"}}), c);
  EXPECT_NE(w.message.find("--allow-write"), std::string::npos);
  EXPECT_EQ(Count(agent::EventType::kPermissionRequested), 0u);
  EXPECT_EQ(Count(agent::EventType::kPermissionResolved), 2u);
}

TEST_F(BrokerTest, FlagsCoverExactlyTheirDomainsAndPaths) {
  PermissionDefaults d;
  d.allow_domains = {"*.example.com", "pypi.org"};
  d.allow_writes = {"/data/out"};
  auto b = Make(d);
  CancelToken c;
  auto allowed = [&](Widening w) { return b->Ask(Ask({w}), c).choice != PermissionChoice::kDeny; };
  EXPECT_TRUE(allowed({Widening::Kind::kDomain, "api.example.com"}));
  EXPECT_TRUE(allowed({Widening::Kind::kDomain, "pypi.org"}));
  EXPECT_FALSE(allowed({Widening::Kind::kDomain, "example.com"}));
  EXPECT_FALSE(allowed({Widening::Kind::kDomain, "evilexample.com"}));
  EXPECT_FALSE(allowed({Widening::Kind::kDomain, "pypi.org.evil.net"}));
  EXPECT_TRUE(allowed({Widening::Kind::kWritePath, "/data/out/x/y"}));
  EXPECT_TRUE(allowed({Widening::Kind::kReadPath, "/data/out"}));
  EXPECT_FALSE(allowed({Widening::Kind::kWritePath, "/data/outside"}));
  EXPECT_FALSE(allowed({Widening::Kind::kWritePath, "/data"}));
  // All of a request must be covered.
  EXPECT_EQ(b->Ask(Ask({{Widening::Kind::kDomain, "pypi.org"}, {Widening::Kind::kDomain, "x.org"}}), c)
                .choice,
            PermissionChoice::kDeny);
}

TEST_F(BrokerTest, TheFrontEndAnswersAndASessionGrantIsNotAskedAgain) {
  PermissionDefaults d;
  d.ask_front_end = true;
  auto b = Make(d);
  CancelToken c;
  auto first = std::async(std::launch::async, [&] {
    return b->Ask(Ask({{Widening::Kind::kDomain, "pypi.org"}}), c);
  });
  agent::Event asked = WaitFor(agent::EventType::kPermissionRequested);
  std::string id = asked.data["request_id"];
  EXPECT_EQ(asked.call_id, "c9");
  EXPECT_EQ(asked.data["widen"][0]["target"], "pypi.org");
  EXPECT_NE(asked.data["policy_change"].get<std::string>().find("pypi.org"), std::string::npos);
  ASSERT_EQ(b->Pending().size(), 1u);
  EXPECT_FALSE(b->Answer("perm-999", {PermissionChoice::kAllowOnce, "", ""}).ok());
  ASSERT_TRUE(b->Answer(id, {PermissionChoice::kAllowSession, "", ""}).ok());
  auto a = first.get();
  EXPECT_EQ(a.choice, PermissionChoice::kAllowSession);
  EXPECT_EQ(a.source, "user");
  EXPECT_FALSE(b->Answer(id, {PermissionChoice::kAllowOnce, "", ""}).ok());  // answered once
  auto again = b->Ask(Ask({{Widening::Kind::kDomain, "pypi.org"}}), c);
  EXPECT_EQ(again.choice, PermissionChoice::kAllowOnce);
  EXPECT_EQ(again.source, "session");
  EXPECT_EQ(Count(agent::EventType::kPermissionRequested), 1u);
}

TEST_F(BrokerTest, NoAnswerInTimeIsADenialAndCancelEndsTheWait) {
  PermissionDefaults d;
  d.ask_front_end = true;
  d.timeout_s = 0.05;
  auto b = Make(d);
  CancelToken c;
  auto a = b->Ask(Ask({{Widening::Kind::kDomain, "pypi.org"}}), c);
  EXPECT_EQ(a.choice, PermissionChoice::kDeny);
  EXPECT_EQ(a.source, "timeout");
  EXPECT_TRUE(b->Pending().empty());

  d.timeout_s = 3600;
  auto b2 = Make(d);
  CancelToken c2;
  auto waiting = std::async(std::launch::async, [&] {
    return b2->Ask(Ask({{Widening::Kind::kDomain, "x.org"}}), c2);
  });
  while (b2->Pending().empty()) std::this_thread::yield();
  c2.Cancel();
  auto r = waiting.get();
  EXPECT_EQ(r.choice, PermissionChoice::kDeny);
  EXPECT_EQ(r.source, "cancelled");
}

TEST_F(BrokerTest, AProjectGrantIsSavedOutsideTheWorkspaceAndHonouredNextTime) {
  PermissionDefaults d;
  d.ask_front_end = true;
  {
    auto b = Make(d);
    CancelToken c;
    auto f = std::async(std::launch::async, [&] {
      return b->Ask(Ask({{Widening::Kind::kDomain, "pypi.org"}, {Widening::Kind::kWritePath, "/data/cache"}}), c);
    });
    std::string id = WaitFor(agent::EventType::kPermissionRequested).data["request_id"];
    ASSERT_TRUE(b->Answer(id, {PermissionChoice::kAllowProject, "", ""}).ok());
    EXPECT_EQ(f.get().choice, PermissionChoice::kAllowProject);
    std::filesystem::path file = b->project_policy_file();
    EXPECT_EQ(file.string().rfind(home_.home().string(), 0), 0u) << file;
    std::ifstream in(file);
    std::string text((std::istreambuf_iterator<char>(in)), {});
    EXPECT_NE(text.find("pypi.org"), std::string::npos) << text;
    EXPECT_NE(text.find("/data/cache"), std::string::npos) << text;
  }
  events_.clear();
  auto b = Make(d);
  CancelToken c;
  auto a = b->Ask(Ask({{Widening::Kind::kDomain, "pypi.org"}}), c);
  EXPECT_EQ(a.choice, PermissionChoice::kAllowOnce);
  EXPECT_EQ(a.source, "session");
  EXPECT_EQ(Count(agent::EventType::kPermissionRequested), 0u);
  // Another project does not inherit it.
  PermissionDefaults headless;
  auto h = std::make_unique<PermissionBroker>(headless, home_.work() / "sub", [](agent::Event) {});
  EXPECT_EQ(h->Ask(Ask({{Widening::Kind::kDomain, "pypi.org"}}), c).choice, PermissionChoice::kDeny);
}

// /permissions: the grants are listed with where they come from; revoking a
// session grant makes the next covered request ask again; a project grant
// is not revoked this way (its file is named).
TEST_F(BrokerTest, ARevokedSessionGrantIsAskedAgainAndAProjectGrantStays) {
  PermissionDefaults d;
  d.ask_front_end = true;
  auto b = Make(d);
  CancelToken c;
  auto grant = [&](Widening w, PermissionChoice choice) {
    size_t before = Count(agent::EventType::kPermissionRequested);
    auto f = std::async(std::launch::async, [&, w] { return b->Ask(Ask({w}), c); });
    std::string id;
    {
      std::unique_lock<std::mutex> l(mu_);
      cv_.wait(l, [&] {
        size_t n = 0;
        for (const auto& e : events_) n += e.type == agent::EventType::kPermissionRequested;
        return n > before;
      });
      for (const auto& e : events_)
        if (e.type == agent::EventType::kPermissionRequested) id = e.data["request_id"];
    }
    EXPECT_TRUE(b->Answer(id, {choice, "", ""}).ok());
    return f.get().choice;
  };
  EXPECT_EQ(grant({Widening::Kind::kDomain, "pypi.org"}, PermissionChoice::kAllowSession), PermissionChoice::kAllowSession);
  EXPECT_EQ(grant({Widening::Kind::kWritePath, "/data/out"}, PermissionChoice::kAllowProject), PermissionChoice::kAllowProject);
  auto grants = b->Grants();
  ASSERT_EQ(grants.size(), 2u);
  EXPECT_EQ(grants[0].widening.target, "pypi.org");
  EXPECT_FALSE(grants[0].for_project);
  EXPECT_EQ(grants[1].widening.target, "/data/out");
  EXPECT_TRUE(grants[1].for_project);

  ASSERT_TRUE(b->RevokeSessionGrant({Widening::Kind::kDomain, "pypi.org"}).ok());
  auto unknown = b->RevokeSessionGrant({Widening::Kind::kDomain, "pypi.org"});
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().kind, "not_found");
  auto project = b->RevokeSessionGrant({Widening::Kind::kWritePath, "/data/out"});
  ASSERT_FALSE(project.ok());
  EXPECT_NE(project.error().message.find(b->project_policy_file().string()), std::string::npos) << project.error().message;
  EXPECT_EQ(b->Grants().size(), 1u);
  // The project grant still answers; the revoked one asks again.
  auto covered = b->Ask(Ask({{Widening::Kind::kWritePath, "/data/out"}}), c);
  EXPECT_EQ(covered.source, "session");
  size_t asked = Count(agent::EventType::kPermissionRequested);
  EXPECT_EQ(grant({Widening::Kind::kDomain, "pypi.org"}, PermissionChoice::kDeny), PermissionChoice::kDeny);
  EXPECT_EQ(Count(agent::EventType::kPermissionRequested), asked + 1);
}

}  // namespace
}  // namespace sepp::runtime
