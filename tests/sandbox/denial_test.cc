// Typed denials: the launcher's explanations (ExplainDenials) come typed
// from the producer; the words-only classifier, kept for old session files,
// reads the same kind and target back from each of them (so an old file and
// a new one agree); the JSON form reads both old strings and objects.
#include "sandbox/denial.h"

#include <gtest/gtest.h>

#include <csignal>
#include <string>

#include "sandbox/defaults.h"
#include "sandbox/denials.h"

namespace sepp::sandbox {
namespace {

Denial FirstOf(const Policy& p, const RunFacts& f, std::string_view out) {
  auto d = ExplainDenials(p, f, out);
  EXPECT_FALSE(d.empty()) << out;
  if (d.empty()) return Denial{};
  // The fallback for old files agrees with the producer.
  Denial fallback = ClassifyDenial(d.front().text);
  EXPECT_EQ(fallback.kind, d.front().kind) << d.front().text;
  EXPECT_EQ(fallback.target, d.front().target) << d.front().text;
  return d.front();
}

Policy Tools() { return DefaultToolPolicy("/work/ws"); }
RunFacts Failed() { return RunFacts{1, 0, false, 0, 0}; }

TEST(DenialKinds, NamesRoundTrip) {
  for (auto k : {DenialKind::kNetwork, DenialKind::kRead, DenialKind::kWrite,
                 DenialKind::kProtected, DenialKind::kSecret, DenialKind::kProcessLimit,
                 DenialKind::kTimeLimit, DenialKind::kPermission, DenialKind::kOther})
    EXPECT_EQ(DenialKindFromName(DenialKindName(k)), k) << DenialKindName(k);
  EXPECT_EQ(DenialKindName(DenialKind::kProcessLimit), "process_limit");
  EXPECT_EQ(DenialKindFromName("from-a-newer-sepp"), DenialKind::kOther);
}

TEST(ClassifyDenial, WritesOutsideTheWorkspaceNameThePath) {
  Denial d = FirstOf(Tools(), Failed(), "touch: cannot touch 'my dir/f': Read-only file system\n");
  EXPECT_EQ(d.kind, DenialKind::kWrite);
  EXPECT_EQ(d.target, "my dir/f");
  EXPECT_NE(d.text.find("is not allowed"), std::string::npos);
  // Without a path in the error, no target is made up.
  d = FirstOf(Tools(), Failed(), "Read-only file system\n");
  EXPECT_EQ(d.kind, DenialKind::kWrite);
  EXPECT_EQ(d.target, "");
}

TEST(ClassifyDenial, ReadsAndSecrets) {
  Denial d = FirstOf(Tools(), Failed(), "cat: /home/u/notes: Permission denied\n");
  EXPECT_EQ(d.kind, DenialKind::kRead);
  EXPECT_EQ(d.target, "/home/u/notes");
  Policy p = Tools();
  p.deny_paths = {"/home/u/.ssh"};
  d = FirstOf(p, Failed(), "cat: /home/u/.ssh/id_rsa: Permission denied\n");
  EXPECT_EQ(d.kind, DenialKind::kSecret);
  EXPECT_EQ(d.target, "/home/u/.ssh/id_rsa");
}

TEST(ClassifyDenial, NetworkOffAndThroughTheProxy) {
  Policy p = Tools();
  p.net = NetMode::kOff;
  EXPECT_EQ(FirstOf(p, Failed(), "curl: (7) Failed to connect: Network is unreachable\n").kind,
            DenialKind::kNetwork);
  p.net = NetMode::kProxy;
  EXPECT_EQ(FirstOf(p, Failed(), "connect: Permission denied\n").kind, DenialKind::kNetwork);
  EXPECT_EQ(FirstOf(p, RunFacts{0, 0, false, 0, 0}, "HTTP/1.1 403 Forbidden\nsepp sandbox\n").kind,
            DenialKind::kNetwork);
  // The proxy's own refusal names the host (sandbox/proxy.cc).
  Denial d = ClassifyDenial("the sandbox's proxy refused evil.example.com: it is not on the "
                            "allowlist (network.allow_domains)");
  EXPECT_EQ(d.kind, DenialKind::kNetwork);
  EXPECT_EQ(d.target, "evil.example.com");
  d = ClassifyDenial("the sandbox's proxy refused a request: it was not HTTP");
  EXPECT_EQ(d.kind, DenialKind::kNetwork);
  EXPECT_EQ(d.target, "");
}

TEST(ClassifyDenial, Limits) {
  Policy p = Tools();
  p.limits.max_processes = 16;
  EXPECT_EQ(FirstOf(p, RunFacts{1, 0, false, 0, 3}, "").kind, DenialKind::kProcessLimit);
  EXPECT_EQ(FirstOf(p, RunFacts{1, SIGKILL, true, 2, 0}, "").kind, DenialKind::kTimeLimit);
  p.limits.max_memory_bytes = 64 << 20;
  EXPECT_EQ(FirstOf(p, Failed(), "MemoryError\n").kind, DenialKind::kOther);
  EXPECT_EQ(FirstOf(p, RunFacts{0, SIGSYS, false, 0, 0}, "").kind, DenialKind::kOther);
}

TEST(ClassifyDenial, ProtectedGitControlFiles) {
  Denial d = ClassifyDenial("the command created /w/.git/hooks/pre-commit, through which git "
                            "would read configuration or run code outside the sandbox; sepp "
                            "removed it");
  EXPECT_EQ(d.kind, DenialKind::kProtected);
  EXPECT_EQ(d.target, "/w/.git/hooks/pre-commit");
}

TEST(ClassifyDenial, UnknownWordsAreOtherAndKeptWhole) {
  for (std::string s : {"", "something new went wrong", "writing", " is protected: ",
                        "access to  was refused: it is outside", "\xff\xfe is outside"}) {
    Denial d = ClassifyDenial(s);
    EXPECT_EQ(d.text, s);
    if (d.kind != DenialKind::kOther) EXPECT_EQ(d.kind, DenialKind::kRead) << s;
  }
  EXPECT_EQ(ClassifyDenial("something new went wrong").kind, DenialKind::kOther);
  EXPECT_EQ(ClassifyDenial(" is protected: x").kind, DenialKind::kOther);  // no path before it
}

TEST(DenialsJson, ReadsOldStringsNewObjectsAndSkipsJunk) {
  Json old = Json::array({"cat: x", "/w/out is outside the workspace, the only place this "
                                    "session may write"});
  auto ds = DenialsFromJson(old);
  ASSERT_EQ(ds.size(), 2u);
  EXPECT_EQ(ds[0].kind, DenialKind::kOther);
  EXPECT_EQ(ds[1].kind, DenialKind::kWrite);
  EXPECT_EQ(ds[1].target, "/w/out");
  Json j = DenialsToJson(ds);
  EXPECT_EQ(j[1]["kind"], "write");
  EXPECT_EQ(j[1]["target"], "/w/out");
  EXPECT_FALSE(j[0].contains("target"));
  auto back = DenialsFromJson(j);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[1].kind, DenialKind::kWrite);
  EXPECT_EQ(back[1].text, ds[1].text);
  EXPECT_TRUE(DenialsFromJson(Json::array({1, nullptr, Json::object(), {{"kind", "read"}}})).empty());
  EXPECT_TRUE(DenialsFromJson(Json("not an array")).empty());
  // An object with a kind this sepp does not know still keeps its words.
  auto odd = DenialsFromJson(Json::array({{{"kind", 7}, {"text", "t"}, {"target", 3}}}));
  ASSERT_EQ(odd.size(), 1u);
  EXPECT_EQ(odd[0].kind, DenialKind::kOther);
  EXPECT_EQ(odd[0].target, "");
}

}  // namespace
}  // namespace sepp::sandbox
