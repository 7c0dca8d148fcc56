// The behaviour every session store must share, run against each kind.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <csignal>
#include <set>
#include <thread>

#include "base/fd.h"
#include "base/secrets.h"
#include "session/session_test_util.h"
#include "session/store.h"

namespace sepp::session {
namespace {

using testing::AllBytesUnder;
using testing::AssistantMessage;
using testing::ForkChild;
using testing::TempDir;
using testing::UserMessage;
using testing::WaitExit;

std::string ToUpperForTest(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::vector<std::string> Ids(const std::vector<const Entry*>& entries) {
  std::vector<std::string> out;
  for (const Entry* e : entries) out.push_back(e->id);
  return out;
}

class StoreTest : public ::testing::TestWithParam<StoreKind> {
 protected:
  void SetUp() override {
    auto s = OpenStore(GetParam(), dir_.path());
    ASSERT_TRUE(s.ok()) << s.error().message;
    store_ = std::move(*s);
  }

  std::unique_ptr<Session> Create(const std::string& cwd = "/work/project") {
    auto s = store_->Create(NewSession{cwd, "anthropic", "claude-test", ""});
    EXPECT_TRUE(s.ok()) << s.error().message;
    return s.ok() ? std::move(*s) : nullptr;
  }

  std::unique_ptr<Session> Open(const std::string& id, OpenMode mode = OpenMode::kReadOnly) {
    auto s = store_->Open(id, mode);
    EXPECT_TRUE(s.ok()) << s.error().message;
    return s.ok() ? std::move(*s) : nullptr;
  }

  std::string Append(Session& s, const Json& message) {
    auto id = s.AppendMessage(message);
    EXPECT_TRUE(id.ok()) << id.error().message;
    return id.ok() ? *id : "";
  }

  TempDir dir_;
  std::unique_ptr<Store> store_;
};

TEST_P(StoreTest, CreateAppendAndReopen) {
  auto s = Create();
  ASSERT_TRUE(s);
  EXPECT_EQ(s->header().cwd, "/work/project");
  EXPECT_EQ(s->header().provider, "anthropic");
  EXPECT_EQ(s->header().model, "claude-test");
  EXPECT_EQ(s->id().size(), 32u);
  EXPECT_EQ(s->leaf(), "");
  std::string a = Append(*s, UserMessage("hello"));
  std::string b = Append(*s, AssistantMessage("hi there"));
  EXPECT_EQ(s->leaf(), b);
  EXPECT_EQ(s->Find(b)->parent_id, a);
  EXPECT_EQ(s->Find(a)->parent_id, "");
  std::string id = s->id();
  s.reset();

  auto r = Open(id);
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->writable());
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ(r->leaf(), b);
  EXPECT_EQ(r->header().model, "claude-test");
  const Entry& first = r->entries()[0];
  EXPECT_EQ(first.type, "message");
  EXPECT_EQ(first.data()["message"]["content"][0]["text"], "hello");
  EXPECT_EQ(first.data()["parentId"], nullptr);
  EXPECT_FALSE(first.timestamp.empty());
  EXPECT_EQ(r->entries()[1].data()["message"]["usage"]["input"], 10);
  auto ro = r->AppendMessage(UserMessage("nope"));
  ASSERT_FALSE(ro.ok());
  EXPECT_EQ(ro.error().kind, "read_only");
}

TEST_P(StoreTest, BranchingKeepsTheOldBranch) {
  auto s = Create();
  std::string a = Append(*s, UserMessage("a"));
  std::string b = Append(*s, AssistantMessage("b"));
  std::string c = Append(*s, UserMessage("c"));
  ASSERT_TRUE(s->SetLeaf(a).ok());
  std::string d = Append(*s, UserMessage("d"));
  EXPECT_EQ(s->Find(d)->parent_id, a);
  EXPECT_EQ(Ids(s->Path()), (std::vector<std::string>{a, d}));
  EXPECT_EQ(Ids(s->Path(c)), (std::vector<std::string>{a, b, c}));
  EXPECT_EQ(Ids(s->Leaves()), (std::vector<std::string>{c, d}));
  EXPECT_EQ(Ids(s->Children(a)), (std::vector<std::string>{b, d}));
  EXPECT_FALSE(s->SetLeaf("nothere").ok());
  // Explicit parent, without moving the leaf first.
  auto e = s->Append("note", Json{{"text", "aside"}}, b);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(Ids(s->Path()), (std::vector<std::string>{a, b, *e}));
  auto bad = s->Append("note", nullptr, std::string("missing"));
  EXPECT_FALSE(bad.ok());
  std::string id = s->id();
  s.reset();

  auto r = Open(id);
  EXPECT_EQ(r->size(), 5u);
  EXPECT_EQ(r->leaf(), *e);  // the last entry written
  EXPECT_EQ(Ids(r->Path(d)), (std::vector<std::string>{a, d}));
  EXPECT_EQ(Ids(r->Leaves()), (std::vector<std::string>{c, d, *e}));
  EXPECT_TRUE(r->Path("unknown").empty());
}

TEST_P(StoreTest, NewRootAfterEmptyLeaf) {
  auto s = Create();
  std::string a = Append(*s, UserMessage("a"));
  ASSERT_TRUE(s->SetLeaf("").ok());
  std::string b = Append(*s, UserMessage("b"));
  EXPECT_EQ(s->Find(b)->parent_id, "");
  EXPECT_EQ(Ids(s->Path()), (std::vector<std::string>{b}));
}

TEST_P(StoreTest, LabelsPersistAndClear) {
  auto s = Create();
  std::string a = Append(*s, UserMessage("a"));
  std::string b = Append(*s, AssistantMessage("b"));
  auto l = s->Label(a, "before refactor");
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(s->LabelOf(a), "before refactor");
  EXPECT_EQ(s->Find(*l)->type, "label");
  EXPECT_EQ(s->Find(*l)->parent_id, b);
  EXPECT_FALSE(s->Label("nothere", "x").ok());
  std::string id = s->id();
  s.reset();
  auto r = Open(id, OpenMode::kAppend);
  EXPECT_EQ(r->LabelOf(a), "before refactor");
  EXPECT_EQ(r->LabelOf(b), "");
  ASSERT_TRUE(r->Label(a, "").ok());
  EXPECT_EQ(r->LabelOf(a), "");
}

TEST_P(StoreTest, ForkCopiesThePathIntoANewSession) {
  auto s = Create();
  std::string a = Append(*s, UserMessage("a"));
  std::string b = Append(*s, AssistantMessage("b"));
  std::string c = Append(*s, UserMessage("c"));
  ASSERT_TRUE(s->SetLeaf(a).ok());
  Append(*s, UserMessage("d"));
  auto f = store_->Fork(*s, b);
  ASSERT_TRUE(f.ok()) << f.error().message;
  auto& fork = *f;
  EXPECT_NE(fork->id(), s->id());
  EXPECT_EQ(fork->header().parent_session, s->id());
  EXPECT_EQ(fork->header().cwd, s->header().cwd);
  EXPECT_EQ(Ids(fork->Path()), (std::vector<std::string>{a, b}));
  EXPECT_EQ(fork->leaf(), b);
  EXPECT_EQ(fork->Find(b)->timestamp, s->Find(b)->timestamp);
  auto e = fork->AppendMessage(UserMessage("e"));
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(fork->Find(*e)->parent_id, b);
  EXPECT_EQ(s->size(), 4u);  // the original is untouched
  EXPECT_FALSE(s->Find(*e));
  EXPECT_FALSE(store_->Fork(*s, "nothere").ok());
  std::string fid = fork->id();
  fork.reset();
  auto r = Open(fid);
  EXPECT_EQ(r->size(), 3u);
  EXPECT_EQ(r->header().parent_session, s->id());
  EXPECT_FALSE(r->Find(c));
}

TEST_P(StoreTest, UnknownEntryTypesArePreserved) {
  auto s = Create();
  Append(*s, UserMessage("a"));
  Json payload = {{"weird", {{"nested", Json::array({1, 2, 3})}}}, {"flag", true}};
  auto x = s->Append("from_the_future", payload);
  ASSERT_TRUE(x.ok());
  Append(*s, AssistantMessage("b"));
  std::string id = s->id();
  s.reset();
  auto r = Open(id, OpenMode::kAppend);
  const Entry* e = r->Find(*x);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->type, "from_the_future");
  EXPECT_EQ(e->data()["weird"]["nested"][2], 3);
  EXPECT_EQ(e->data()["flag"], true);
  EXPECT_EQ(r->Path().size(), 3u);
  // Survives a fork (and so an import) too.
  auto f = store_->Fork(*r, r->leaf());
  ASSERT_TRUE(f.ok());
  EXPECT_EQ((*f)->Find(*x)->data()["weird"], payload["weird"]);
}

TEST_P(StoreTest, PrefixResolution) {
  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i) ids.push_back(Create()->id());
  // Ids are time-ordered: sessions made in the same millisecond share a long
  // prefix; find the shortest unique prefix of ids[0].
  for (size_t n = 1; n <= 32; ++n) {
    std::string p = ids[0].substr(0, n);
    bool unique = std::none_of(ids.begin() + 1, ids.end(),
                               [&](const std::string& o) { return o.rfind(p, 0) == 0; });
    if (!unique) continue;
    auto r = store_->Resolve(p);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(*r, ids[0]);
    break;
  }
  auto full = store_->Resolve(ids[1]);
  ASSERT_TRUE(full.ok());
  EXPECT_EQ(*full, ids[1]);
  auto upper = store_->Resolve(ToUpperForTest(ids[2]));
  ASSERT_TRUE(upper.ok());
  EXPECT_EQ(*upper, ids[2]);
  // All three share the first hex digits of the timestamp.
  auto amb = store_->Resolve(ids[0].substr(0, 4));
  ASSERT_FALSE(amb.ok());
  EXPECT_EQ(amb.error().kind, "ambiguous");
  for (const auto& id : ids) EXPECT_NE(amb.error().message.find(id), std::string::npos);
  auto none = store_->Resolve("ffffffff");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().kind, "not_found");
  auto bad = store_->Open("../../etc/passwd");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind, "invalid_argument");
  EXPECT_FALSE(store_->Resolve("").ok());
}

TEST_P(StoreTest, LatestAndList) {
  EXPECT_EQ(store_->Latest("/work/a").error().kind, "not_found");
  auto one = Create("/work/a");
  Append(*one, UserMessage("first prompt of one"));
  Append(*one, AssistantMessage("answer"));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  auto two = Create("/work/a");
  Append(*two, UserMessage("prompt two"));
  auto other = Create("/work/b");
  auto latest = store_->Latest("/work/a");
  ASSERT_TRUE(latest.ok());
  EXPECT_EQ(*latest, two->id());
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  Append(*one, UserMessage("more"));  // now one is the most recently written
  latest = store_->Latest("/work/a");
  ASSERT_TRUE(latest.ok());
  EXPECT_EQ(*latest, one->id());
  EXPECT_EQ(*store_->Latest("/work/b"), other->id());

  auto list = store_->List(std::string("/work/a"));
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0].id, one->id());
  EXPECT_EQ((*list)[0].first_prompt, "first prompt of one");
  EXPECT_EQ((*list)[0].message_count, 3u);
  EXPECT_EQ((*list)[1].message_count, 1u);
  EXPECT_EQ((*list)[1].cwd, "/work/a");
  EXPECT_FALSE((*list)[1].created.empty());
  auto all = store_->List(std::nullopt);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 3u);
}

TEST_P(StoreTest, RemoveDeletesAndRespectsTheWriterLock) {
  auto s = Create();
  Append(*s, UserMessage("bye"));
  std::string id = s->id();
  auto locked = store_->Remove(id);
  ASSERT_FALSE(locked.ok());
  EXPECT_EQ(locked.error().kind, "locked");
  s.reset();
  ASSERT_TRUE(store_->Remove(id).ok());
  auto gone = store_->Open(id);
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.error().kind, "not_found");
  EXPECT_TRUE(store_->List(std::nullopt)->empty());
}

TEST_P(StoreTest, SecondWriterIsRefusedWithThePid) {
  auto s = Create();
  Append(*s, UserMessage("mine"));
  auto again = store_->Open(s->id(), OpenMode::kAppend);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().kind, "locked");
  EXPECT_NE(again.error().message.find(std::to_string(::getpid())), std::string::npos)
      << again.error().message;
  EXPECT_TRUE(store_->Open(s->id(), OpenMode::kReadOnly).ok());  // readers are welcome

  // Another process is refused too, and told who holds it.
  auto root = dir_.path();
  auto kind = GetParam();
  std::string id = s->id();
  auto pipe = MakePipe();
  ASSERT_TRUE(pipe.ok());
  UniqueFd rd = std::move(pipe->first), wr = std::move(pipe->second);
  pid_t child = ForkChild([&]() {
    auto store = OpenStore(kind, root);
    auto r = (*store)->Open(id, OpenMode::kAppend);
    std::string msg = r.ok() ? "opened" : r.error().kind + ": " + r.error().message;
    (void)WriteAll(wr.get(), msg);
    return 0;
  });
  wr.Reset();
  std::string msg = *ReadAll(rd.get());
  EXPECT_EQ(WaitExit(child), 0);
  EXPECT_EQ(msg.rfind("locked", 0), 0u) << msg;
  EXPECT_NE(msg.find("pid " + std::to_string(::getpid())), std::string::npos) << msg;
  // Once the writer is gone, the session is free again.
  s.reset();
  EXPECT_TRUE(store_->Open(id, OpenMode::kAppend).ok());
}

TEST_P(StoreTest, KillNineWhileAppendingLosesAtMostOneEntry) {
  std::string id = Create()->id();
  auto root = dir_.path();
  auto kind = GetParam();
  auto pipe = MakePipe();
  ASSERT_TRUE(pipe.ok());
  UniqueFd rd = std::move(pipe->first), wr = std::move(pipe->second);
  pid_t child = ForkChild([&]() {
    auto store = OpenStore(kind, root);
    if (!store.ok()) return 3;
    auto s = (*store)->Open(id, OpenMode::kAppend);
    if (!s.ok()) return 4;
    std::string big(3000, 'x');  // long lines make a torn write more likely
    for (int i = 0;; ++i) {
      auto r = (*s)->AppendMessage(UserMessage("entry " + std::to_string(i) + " " + big));
      if (!r.ok()) return 5;
      if (WriteAll(wr.get(), "+").ok() == false) return 6;
    }
  });
  wr.Reset();
  // Wait until the child has confirmed 300 appends, then kill it mid-stream.
  size_t confirmed = 0;
  char buf[256];
  while (confirmed < 300) {
    ssize_t n = ::read(rd.get(), buf, sizeof buf);
    ASSERT_GT(n, 0) << "child died early";
    confirmed += static_cast<size_t>(n);
  }
  ::kill(child, SIGKILL);
  EXPECT_EQ(WaitExit(child), 128 + SIGKILL);
  rd.Reset();

  auto s = Open(id, OpenMode::kAppend);
  ASSERT_TRUE(s);
  EXPECT_GE(s->size(), confirmed);
  // The chain is intact: the leaf's path reaches back to the first entry.
  EXPECT_EQ(s->Path().size(), s->size());
  auto after = s->AppendMessage(UserMessage("after the crash"));
  ASSERT_TRUE(after.ok()) << after.error().message;
  size_t n = s->size();
  s.reset();
  auto r = Open(id);
  EXPECT_EQ(r->size(), n);
  EXPECT_EQ(r->leaf(), *after);
  EXPECT_EQ(r->Path().size(), n);
}

TEST_P(StoreTest, ConcurrentWritersTakeTurnsWithoutCorruption) {
  std::string id = Create()->id();
  auto root = dir_.path();
  auto kind = GetParam();
  constexpr int kRounds = 40;
  auto writer = [&](int who) {
    return ForkChild([=]() {
      auto store = OpenStore(kind, root);
      if (!store.ok()) return 3;
      for (int i = 0; i < kRounds; ++i) {
        for (;;) {
          auto s = (*store)->Open(id, OpenMode::kAppend);
          if (!s.ok()) {
            if (s.error().kind != "locked") return 4;
            std::this_thread::sleep_for(std::chrono::microseconds(200));
            continue;
          }
          auto r = (*s)->Append("tick", Json{{"who", who}, {"i", i}});
          if (!r.ok()) return 5;
          break;
        }
      }
      return 0;
    });
  };
  pid_t a = writer(1), b = writer(2);
  EXPECT_EQ(WaitExit(a), 0);
  EXPECT_EQ(WaitExit(b), 0);
  auto s = Open(id);
  ASSERT_EQ(s->size(), 2u * kRounds);
  std::set<std::pair<int, int>> seen;
  for (const Entry& e : s->entries()) seen.insert({e.data()["who"].get<int>(), e.data()["i"].get<int>()});
  EXPECT_EQ(seen.size(), 2u * kRounds);
  EXPECT_EQ(s->Path().size(), 2u * kRounds);  // each append hung off the previous leaf
}

TEST_P(StoreTest, ThreadsMayAppendToOneSession) {
  auto s = Create();
  constexpr int kEach = 300;
  auto work = [&](int who) {
    for (int i = 0; i < kEach; ++i) ASSERT_TRUE(s->Append("tick", Json{{"who", who}}).ok());
  };
  std::thread a(work, 1), b(work, 2);
  a.join();
  b.join();
  EXPECT_EQ(s->Path().size(), 2u * kEach);  // one chain: each append saw the last leaf
  std::string id = s->id();
  s.reset();
  auto r = Open(id);
  EXPECT_EQ(r->size(), 2u * kEach);
  EXPECT_EQ(r->Path().size(), 2u * kEach);
}

TEST_P(StoreTest, RegisteredSecretsNeverReachTheStore) {
  const std::string secret = "sk-test-ab12cd34ef56-SECRET-VALUE";
  RegisterSecret(secret);
  auto s = store_->Create(NewSession{"/work/" + secret, "anthropic", "m", ""});
  ASSERT_TRUE(s.ok());
  auto id = (*s)->AppendMessage(UserMessage("my key is " + secret + ", keep it"));
  ASSERT_TRUE(id.ok());
  Json odd = {{secret, "as a key"}, {"list", Json::array({secret, 1})}};
  ASSERT_TRUE((*s)->Append("custom", odd).ok());
  EXPECT_EQ((*s)->Find(*id)->data()["message"]["content"][0]["text"], "my key is [REDACTED], keep it");
  std::string sid = (*s)->id();
  s->reset();
  auto r = Open(sid);
  EXPECT_EQ(r->entries()[0].data()["message"]["content"][0]["text"], "my key is [REDACTED], keep it");
  EXPECT_EQ(r->header().cwd, "/work/[REDACTED]");
  EXPECT_EQ(AllBytesUnder(dir_.path()).find(secret), std::string::npos);
}

TEST_P(StoreTest, ImportKeepsEverythingVerbatim) {
  SessionHeader h;
  h.id = "0123456789abcdef0123456789abcdef";
  h.cwd = "/x";
  h.created = "2026-01-02T03:04:05.678Z";
  h.provider = "openai";
  h.model = "gpt";
  h.data = Json{{"extra_header_field", {{"k", 1}}}, {"version", 1}};
  std::vector<Entry> entries;
  Entry e1;
  e1.set_data(Json{{"type", "message"}, {"id", "r1"}, {"parentId", nullptr},
                 {"timestamp", "2026-01-02T03:04:06.000Z"}, {"message", UserMessage("q")},
                 {"future", "kept"}});
  Entry e2;
  e2.set_data(Json{{"type", "mystery"}, {"id", "r2"}, {"parentId", "r1"},
                 {"timestamp", "2026-01-02T03:04:07.000Z"}, {"blob", Json::array({1, "two"})}});
  entries.push_back(e1);
  entries.push_back(e2);
  auto s = store_->Import(h, entries);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ((*s)->leaf(), "r2");
  s->reset();
  auto again = store_->Import(h, entries);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().kind, "exists");
  auto r = Open(h.id);
  EXPECT_EQ(r->header().created, h.created);
  EXPECT_EQ(r->header().data["extra_header_field"]["k"], 1);
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ(r->entries()[0].data(), e1.data());
  EXPECT_EQ(r->entries()[1].data(), e2.data());
  EXPECT_EQ(r->entries()[1].parent_id, "r1");
  auto l = store_->List(std::nullopt);
  ASSERT_EQ(l->size(), 1u);
  EXPECT_EQ((*l)[0].first_prompt, "q");
}

INSTANTIATE_TEST_SUITE_P(Stores, StoreTest, ::testing::Values(StoreKind::kJsonl, StoreKind::kSqlite),
                         [](const auto& info) { return std::string(StoreKindName(info.param)); });

}  // namespace
}  // namespace sepp::session
