// The PostgreSQL session store (session/pg_store.h) against a real server:
// a tree with branches and labels read back from a second store (another
// server), entries of two sessions never mixing, one writer per session
// across stores, hostile content, a 10k-entry session, and an agent session
// on the store that is closed (a restart) and resumed with its context
// rebuilt from PostgreSQL, nothing lost or doubled; entries written while
// the database is away kept in the outbox and stored in order when it is
// back (by the session, or by the next open after the session ended), and
// the outbox's bound.
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include "pg/pg_cluster.h"
#include "runtime/agent_session.h"
#include "runtime/runtime_test_util.h"
#include "serve/serve_child.h"
#include "session/pg_conn.h"
#include "session/pg_url.h"
#include "session/store.h"

namespace sepp::session {
namespace {

namespace fs = std::filesystem;
using pgtest::PgCluster;

class PgStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string m = PgCluster::MissingBinaries(); !m.empty()) GTEST_SKIP() << m;
    ASSERT_TRUE(pgtest::SharedCluster()->Start().ok());
    // A folder of its own: List(cwd) sees only this test's sessions.
    char tmpl[] = "/tmp/sepp-pg-store-XXXXXX";
    root_ = ::mkdtemp(tmpl);
    cwd_ = (root_ / "project").string();
    fs::create_directories(cwd_);
  }
  void TearDown() override {
    std::error_code ec;
    if (!root_.empty()) fs::remove_all(root_, ec);
  }
  // A store as one server opens it: its own pool of connections.
  std::unique_ptr<Store> OpenServerStore() {
    auto s = OpenUrlStore(pgtest::SharedCluster()->socket_url());
    EXPECT_TRUE(s.ok()) << s.error().message;
    return s.ok() ? std::move(*s) : nullptr;
  }
  static Json UserMessage(const std::string& text) {
    return {{"role", "user"}, {"content", {{{"type", "text"}, {"text", text}}}}};
  }
  // The numbers of a session's stored entries, in order, read directly.
  static std::vector<int64_t> StoredSeqs(const std::string& id) {
    auto config = ParsePgUrl(pgtest::SharedCluster()->socket_url());
    auto conn = PgConn::Connect(*config);
    EXPECT_TRUE(conn.ok()) << conn.error().message;
    if (!conn.ok()) return {};
    auto rows = (*conn)->Query(
        "SELECT seq FROM sepp_tree_entries WHERE session_id = $1 ORDER BY seq", {id});
    EXPECT_TRUE(rows.ok()) << rows.error().message;
    std::vector<int64_t> out;
    if (rows.ok())
      for (auto& r : rows->rows) out.push_back(std::strtoll(r[0]->c_str(), nullptr, 10));
    return out;
  }
  // The outbox files under SEPP_HOME (pg-outbox/<database>/<id>.outbox).
  static std::vector<fs::path> OutboxFiles(const fs::path& home) {
    std::vector<fs::path> out;
    std::error_code ec;
    for (auto& e : fs::recursive_directory_iterator(home / "pg-outbox", ec))
      if (e.is_regular_file()) out.push_back(e.path());
    return out;
  }
  // Waits (up to a minute) until no outbox file is left: the flusher is done.
  static bool WaitUntilDrained(const fs::path& home) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!OutboxFiles(home).empty()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
  }
  static void ExpectSameEntries(const Session& back, const Session& w) {
    ASSERT_EQ(back.size(), w.size());
    for (size_t i = 0; i < w.size(); ++i) {
      EXPECT_EQ(back.entries()[i].id, w.entries()[i].id) << "in order, once each, at " << i;
      EXPECT_EQ(back.entries()[i].parent_id, w.entries()[i].parent_id);
      EXPECT_EQ(back.entries()[i].data.get(), w.entries()[i].data.get());
    }
  }
  static std::vector<int64_t> Iota(size_t n) {
    std::vector<int64_t> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = static_cast<int64_t>(i);
    return v;
  }
  fs::path root_;
  std::string cwd_;
};

TEST_F(PgStoreTest, ATreeWithBranchesReadsBackTheSameFromAnotherServer) {
  auto a = OpenServerStore();
  auto b = OpenServerStore();
  ASSERT_TRUE(a && b);
  auto s = a->Create({cwd_, "anthropic", "claude-test", ""});
  ASSERT_TRUE(s.ok()) << s.error().message;
  auto other = a->Create({cwd_, "anthropic", "claude-test", ""});
  ASSERT_TRUE(other.ok()) << other.error().message;
  Session& w = **s;
  auto root = w.AppendMessage(UserMessage("first prompt"));
  auto reply = w.AppendMessage({{"role", "assistant"}, {"content", Json::array()}});
  ASSERT_TRUE(root.ok() && reply.ok());
  // Interleaved appends to another session must stay in that one.
  ASSERT_TRUE((*other)->AppendMessage(UserMessage("other session")).ok());
  auto tip1 = w.AppendMessage(UserMessage("branch one"));
  ASSERT_TRUE(w.SetLeaf(*reply).ok());
  auto tip2 = w.AppendMessage(UserMessage("branch two"));
  ASSERT_TRUE(tip2.ok());
  ASSERT_TRUE(w.Label(*root, "start").ok());
  ASSERT_TRUE(w.SetLeaf(*tip2).ok());

  auto r = b->Open(w.id(), OpenMode::kReadOnly);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const Session& back = **r;
  ASSERT_EQ(back.size(), w.size());
  for (size_t i = 0; i < w.size(); ++i) {
    EXPECT_EQ(back.entries()[i].id, w.entries()[i].id) << "append order is kept";
    EXPECT_EQ(back.entries()[i].parent_id, w.entries()[i].parent_id);
    EXPECT_EQ(back.entries()[i].data.get(), w.entries()[i].data.get());
  }
  EXPECT_EQ(back.header().data, w.header().data);
  EXPECT_EQ(back.Leaves().size(), 2u) << "both branches";
  EXPECT_EQ(back.LabelOf(*root), "start");
  EXPECT_EQ(back.Parent(*tip2)->id, *reply);
  EXPECT_EQ(back.Parent(*tip1)->id, *reply);
  EXPECT_EQ(back.location().rfind("postgres:", 0), 0u) << back.location();
  auto only = b->Open((*other)->id(), OpenMode::kReadOnly);
  ASSERT_TRUE(only.ok());
  ASSERT_EQ((*only)->size(), 1u);

  // B lists both for the folder, the one written last first, with its summary.
  auto listed = b->List(cwd_);
  ASSERT_TRUE(listed.ok()) << listed.error().message;
  ASSERT_EQ(listed->size(), 2u);
  EXPECT_EQ((*listed)[0].id, w.id());
  EXPECT_EQ((*listed)[0].first_prompt, "first prompt");
  EXPECT_EQ((*listed)[0].message_count, 4u) << "the label is no message";
  EXPECT_EQ(*b->Latest(cwd_), w.id());
  EXPECT_EQ(*b->Resolve(w.id().substr(0, 30)), w.id());
  EXPECT_EQ(b->Resolve("no; id").error().kind, "invalid_argument");
  EXPECT_EQ(b->Resolve("ffffffffffffffffffff").error().kind, "not_found");

  // A fork through B copies the path into a new session in the store.
  auto fork = b->Fork(back, *tip1);
  ASSERT_TRUE(fork.ok()) << fork.error().message;
  EXPECT_EQ((*fork)->size(), 3u);
  EXPECT_EQ((*fork)->header().parent_session, w.id());
}

TEST_F(PgStoreTest, ASecondWriterOnAnyServerIsRefusedUntilTheFirstEnds) {
  auto a = OpenServerStore();
  auto b = OpenServerStore();
  ASSERT_TRUE(a && b);
  auto s = a->Create({cwd_, "anthropic", "claude-test", ""});
  ASSERT_TRUE(s.ok());
  std::string id = (*s)->id();
  auto second = b->Open(id, OpenMode::kAppend);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().kind, "locked");
  EXPECT_NE(second.error().message.find("open for writing"), std::string::npos)
      << second.error().message;
  EXPECT_EQ(a->Open(id, OpenMode::kAppend).error().kind, "locked") << "the same server too";
  EXPECT_EQ(b->Remove(id).error().kind, "locked");
  EXPECT_TRUE(b->Open(id, OpenMode::kReadOnly).ok()) << "readers never wait";
  ASSERT_TRUE((*s)->AppendMessage(UserMessage("still mine")).ok());
  s->reset();  // the writer ends: its connection, and the lock, go
  auto now = b->Open(id, OpenMode::kAppend);
  ASSERT_TRUE(now.ok()) << now.error().message;
  ASSERT_EQ((*now)->size(), 1u);
  ASSERT_TRUE((*now)->AppendMessage(UserMessage("then B's")).ok());
  now->reset();
  ASSERT_TRUE(b->Remove(id).ok());
  EXPECT_EQ(a->Open(id, OpenMode::kReadOnly).error().kind, "not_found");
}

TEST_F(PgStoreTest, HostileContentComesBackAsTheSqliteStoreReturnsIt) {
  auto pg = OpenServerStore();
  auto sq = OpenStore(StoreKind::kSqlite, root_ / "sqlite");
  ASSERT_TRUE(pg && sq.ok());
  std::string nul("a\0b\0\0c", 6);
  std::string bad_utf8 = "ok \xff\xfe\xc3 tail";
  std::string huge(8 << 20, 'h');
  huge[12345] = '\0';
  std::vector<Json> payloads = {
      {{"role", "tool"}, {"tool_call_id", "t1"},
       {"content", {{{"type", "text"}, {"text", nul}}}}},
      {{"role", "tool"}, {"tool_call_id", "t2"},
       {"content", {{{"type", "text"}, {"text", bad_utf8}}}}},
      {{"role", "tool"}, {"tool_call_id", "t3"}, {"content", {{{"type", "text"}, {"text", huge}}}}},
      {{"role", "user"}, {"content", {{{"type", "text"}, {"text", "'); DROP TABLE sepp_tree_entries; --"}}}}},
  };
  auto p = pg->Create({cwd_, "anthropic", "m", ""});
  auto q = (*sq)->Create({cwd_, "anthropic", "m", ""});
  ASSERT_TRUE(p.ok() && q.ok());
  for (const Json& m : payloads) {
    auto r1 = (*p)->AppendMessage(m);
    ASSERT_TRUE(r1.ok()) << r1.error().message;
    ASSERT_TRUE((*q)->AppendMessage(m).ok());
  }
  std::string id = (*p)->id();
  p->reset();
  auto pr = OpenServerStore()->Open(id, OpenMode::kReadOnly);
  auto qr = (*sq)->Open((*q)->id(), OpenMode::kReadOnly);
  ASSERT_TRUE(pr.ok() && qr.ok()) << (pr.ok() ? "" : pr.error().message);
  ASSERT_EQ((*pr)->size(), payloads.size());
  auto text = [](const Session& s, size_t i) {
    return s.entries()[i].data["message"]["content"][0]["text"].get<std::string>();
  };
  EXPECT_EQ(text(**pr, 0), nul) << "NUL bytes exactly";
  EXPECT_EQ(text(**pr, 2), huge) << "an 8 MB entry exactly";
  EXPECT_EQ(text(**pr, 3), "'); DROP TABLE sepp_tree_entries; --");
  // Invalid UTF-8: every store keeps the valid text and marks each bad byte
  // with U+FFFD (the session codec's rule); PostgreSQL returns what SQLite does.
  EXPECT_EQ(text(**pr, 1), text(**qr, 1));
  EXPECT_EQ(text(**pr, 1), "ok \xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD tail");
  for (size_t i = 0; i < payloads.size(); ++i)
    EXPECT_EQ((*pr)->entries()[i].data["message"], (*qr)->entries()[i].data["message"]);
}

TEST_F(PgStoreTest, TenThousandEntriesLoadInOrder) {
  auto store = OpenServerStore();
  ASSERT_TRUE(store);
  SessionHeader h = NewHeader({cwd_, "anthropic", "m", ""});
  std::vector<Entry> entries;
  std::string parent;
  for (int i = 0; i < 10000; ++i) {
    Entry e;
    e.type = "message";
    e.id = "e" + std::to_string(i);
    e.parent_id = parent;
    e.timestamp = h.created;
    e.set_data({{"type", "message"}, {"id", e.id}, {"parentId", parent.empty() ? Json() : Json(parent)},
                {"timestamp", h.created}, {"message", UserMessage("n" + std::to_string(i))}});
    parent = e.id;
    entries.push_back(std::move(e));
  }
  auto imported = store->Import(h, entries);
  ASSERT_TRUE(imported.ok()) << imported.error().message;
  imported->reset();
  auto back = OpenServerStore()->Open(h.id, OpenMode::kAppend);
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ((*back)->size(), 10000u);
  EXPECT_EQ((*back)->Path().size(), 10000u);
  EXPECT_EQ((*back)->leaf(), "e9999");
  for (size_t i = 0; i < 10000; i += 997) EXPECT_EQ((*back)->entries()[i].id, "e" + std::to_string(i));
  auto next = (*back)->AppendMessage(UserMessage("after"));
  ASSERT_TRUE(next.ok()) << next.error().message;
  EXPECT_EQ((*back)->Parent(*next)->id, "e9999");
}

// Through the runtime: an agent session on the store, a branch, a "restart"
// (the session closed, the store reopened as a new server would) and a
// resume whose context is rebuilt from PostgreSQL.
TEST_F(PgStoreTest, AnAgentSessionResumesFromPostgresWithNothingLostOrDoubled) {
  runtime::testing::TempHome home;
  runtime::testing::HeldProvider provider;
  provider.replies = {runtime::testing::TextReply("answer one"),
                      runtime::testing::TextReply("answer two"),
                      runtime::testing::TextReply("answer on the branch"),
                      runtime::testing::TextReply("after the restart")};
  std::shared_ptr<Store> store = OpenServerStore();
  ASSERT_TRUE(store);
  auto opts = [&] {
    runtime::SessionOptions o = runtime::testing::OptionsFor(provider, home.work());
    o.store = store;
    return o;
  };
  std::string id;
  std::string first_reply_id;
  {
    auto s = runtime::AgentSession::Open(opts());
    ASSERT_TRUE(s.ok()) << s.error().message;
    id = (*s)->GetState().session_id;
    for (const char* p : {"one", "two"}) {
      ASSERT_TRUE((*s)->Prompt(p).ok());
      ASSERT_TRUE((*s)->WaitIdle(30));
    }
    Json entries = (*s)->Entries();
    ASSERT_EQ(entries.size(), 4u) << entries.dump();
    first_reply_id = entries[1]["id"];
    ASSERT_TRUE((*s)->Branch(first_reply_id).ok());
    ASSERT_TRUE((*s)->Prompt("on a branch").ok());
    ASSERT_TRUE((*s)->WaitIdle(30));
    (*s)->Close();
  }
  // Another server's store: it sees the tree, and a second writer is refused.
  auto other = OpenServerStore();
  auto tree = other->Open(id, OpenMode::kReadOnly);
  ASSERT_TRUE(tree.ok()) << tree.error().message;
  EXPECT_EQ((*tree)->size(), 6u);
  EXPECT_EQ((*tree)->Leaves().size(), 2u);

  store = OpenServerStore();  // the restarted server
  runtime::SessionOptions o = opts();
  o.resume = id;
  auto again = runtime::AgentSession::Open(std::move(o));
  ASSERT_TRUE(again.ok()) << again.error().message;
  auto twice = other->Open(id, OpenMode::kAppend);
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.error().kind, "locked");
  auto msgs = (*again)->Messages();
  ASSERT_EQ(msgs.size(), 4u) << "the branch's path, rebuilt from PostgreSQL";
  EXPECT_EQ(msgs[0].Text(), "one");
  EXPECT_EQ(msgs[1].Text(), "answer one");
  EXPECT_EQ(msgs[2].Text(), "on a branch");
  EXPECT_EQ(msgs[3].Text(), "answer on the branch");
  ASSERT_TRUE((*again)->Prompt("go on").ok());
  ASSERT_TRUE((*again)->WaitIdle(30));
  auto last = provider.Requests().back();
  std::vector<std::string> sent;
  for (const auto& m : last.messages) sent.push_back(m.Text());
  EXPECT_EQ(sent, (std::vector<std::string>{"one", "answer one", "on a branch",
                                            "answer on the branch", "go on"}))
      << "the model got the resumed context once, nothing doubled";
  (*again)->Close();
  auto final_tree = other->Open(id, OpenMode::kReadOnly);
  ASSERT_TRUE(final_tree.ok());
  EXPECT_EQ((*final_tree)->size(), 8u);
}

TEST_F(PgStoreTest, EntriesWrittenWhileTheDatabaseIsAwayAreStoredInOrderWhenItIsBack) {
  runtime::testing::TempHome home;
  auto a = OpenServerStore();
  ASSERT_TRUE(a);
  auto s = a->Create({cwd_, "anthropic", "claude-test", ""});
  ASSERT_TRUE(s.ok()) << s.error().message;
  Session& w = **s;
  ASSERT_TRUE(w.AppendMessage(UserMessage("before the outage")).ok());
  auto fork_point = w.AppendMessage({{"role", "assistant"}, {"content", Json::array()}});
  ASSERT_TRUE(fork_point.ok());

  ASSERT_TRUE(pgtest::SharedCluster()->Stop().ok());
  for (int i = 0; i < 30; ++i) {  // the session works on: every append is kept
    auto r = w.AppendMessage(UserMessage("during " + std::to_string(i)));
    ASSERT_TRUE(r.ok()) << r.error().message;
  }
  ASSERT_TRUE(w.SetLeaf(*fork_point).ok());
  ASSERT_TRUE(w.AppendMessage(UserMessage("a branch during the outage")).ok());
  ASSERT_TRUE(w.Label(*fork_point, "fork").ok());
  auto kept = OutboxFiles(home.home());
  ASSERT_EQ(kept.size(), 1u) << "one outbox, for this session";
  EXPECT_EQ(kept[0].filename().string(), w.id() + ".outbox");
  EXPECT_EQ(fs::status(kept[0]).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);

  ASSERT_TRUE(pgtest::SharedCluster()->Start().ok());
  ASSERT_TRUE(WaitUntilDrained(home.home())) << "the flusher stores the outbox when it is back";
  ASSERT_TRUE(w.AppendMessage(UserMessage("after the outage")).ok());

  auto b = OpenServerStore();  // another server reads it all
  ASSERT_TRUE(b);
  auto back = b->Open(w.id(), OpenMode::kReadOnly);
  ASSERT_TRUE(back.ok()) << back.error().message;
  ExpectSameEntries(**back, w);
  EXPECT_EQ((*back)->Leaves().size(), 2u) << "the branch made while away is there";
  EXPECT_EQ((*back)->LabelOf(*fork_point), "fork");
  EXPECT_EQ(StoredSeqs(w.id()), Iota(w.size())) << "numbered gap-free, each once";
  auto listed = b->List(cwd_);
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].message_count, 34u);
  EXPECT_EQ((*listed)[0].first_prompt, "before the outage");
}

TEST_F(PgStoreTest, ASessionThatEndsWhileTheDatabaseIsAwayIsStoredByTheNextOpen) {
  runtime::testing::TempHome home;
  auto a = OpenServerStore();
  ASSERT_TRUE(a);
  std::string id;
  std::vector<std::string> ids;
  {
    auto s = a->Create({cwd_, "anthropic", "claude-test", ""});
    ASSERT_TRUE(s.ok()) << s.error().message;
    id = (*s)->id();
    ASSERT_TRUE((*s)->AppendMessage(UserMessage("stored at once")).ok());
    ASSERT_TRUE(pgtest::SharedCluster()->Stop().ok());
    for (int i = 0; i < 5; ++i) ASSERT_TRUE((*s)->AppendMessage(UserMessage("kept")).ok());
    for (const Entry& e : (*s)->entries()) ids.push_back(e.id);
  }  // ended before the database came back: the outbox stays on disk
  ASSERT_EQ(OutboxFiles(home.home()).size(), 1u);
  ASSERT_TRUE(pgtest::SharedCluster()->Start().ok());
  auto b = OpenServerStore();
  auto before = b->Open(id, OpenMode::kReadOnly);
  ASSERT_TRUE(before.ok()) << before.error().message;
  EXPECT_EQ((*before)->size(), 1u) << "the rest is only on this machine so far";

  auto again = a->Open(id, OpenMode::kAppend);  // the next writer here stores it first
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_TRUE(OutboxFiles(home.home()).empty());
  ASSERT_EQ((*again)->size(), ids.size());
  ASSERT_TRUE((*again)->AppendMessage(UserMessage("resumed")).ok());
  ids.push_back((*again)->entries().back().id);
  auto after = b->Open(id, OpenMode::kReadOnly);
  ASSERT_TRUE(after.ok()) << after.error().message;
  std::vector<std::string> got;
  for (const Entry& e : (*after)->entries()) got.push_back(e.id);
  EXPECT_EQ(got, ids);
  EXPECT_EQ(StoredSeqs(id), Iota(ids.size()));
  auto listed = b->List(cwd_);
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].message_count, 7u) << "the summary counts the stored outbox";
}

TEST_F(PgStoreTest, TheOutboxIsBoundedAndSaysSoWhenFull) {
  runtime::testing::TempHome home;
  std::string url = pgtest::SharedCluster()->tcp_url(true) + "?outbox_kb=4";
  auto a = OpenUrlStore(url);
  ASSERT_TRUE(a.ok()) << a.error().message;
  auto s = (*a)->Create({cwd_, "anthropic", "claude-test", ""});
  ASSERT_TRUE(s.ok()) << s.error().message;
  Session& w = **s;
  ASSERT_TRUE(pgtest::SharedCluster()->Stop().ok());
  std::string text(500, 'x');
  std::optional<Error> refused;
  for (int i = 0; i < 20 && !refused; ++i)
    if (auto r = w.AppendMessage(UserMessage(text)); !r.ok()) refused = r.error();
  ASSERT_TRUE(refused) << "4 KiB hold fewer than 20 entries of 500 bytes";
  EXPECT_EQ(refused->kind, "full");
  EXPECT_NE(refused->message.find("is full"), std::string::npos) << refused->message;
  EXPECT_NE(refused->message.find("outbox_kb"), std::string::npos) << "says what to change";
  EXPECT_NE(refused->message.find("not stored"), std::string::npos) << refused->message;
  EXPECT_EQ(refused->message.find(PgCluster::kPassword), std::string::npos) << refused->message;
  size_t kept = w.size();
  EXPECT_GE(kept, 4u);

  ASSERT_TRUE(pgtest::SharedCluster()->Start().ok());
  ASSERT_TRUE(WaitUntilDrained(home.home()));
  ASSERT_TRUE(w.AppendMessage(UserMessage("room again")).ok());
  auto back = OpenServerStore()->Open(w.id(), OpenMode::kReadOnly);
  ASSERT_TRUE(back.ok()) << back.error().message;
  ExpectSameEntries(**back, w);
  EXPECT_EQ((*back)->size(), kept + 1) << "the refused entry is not in the tree";
  EXPECT_EQ(StoredSeqs(w.id()), Iota(kept + 1));
}

// Another server wrote the session while this one held entries in its
// outbox (it had lost the database, and with it the lock): the numbers
// collide, so the outbox is set aside, kept for the user, and never mixed
// into the other history.
TEST_F(PgStoreTest, AnOutboxOvertakenByAnotherWriterIsSetAsideNotMixedIn) {
  runtime::testing::TempHome home;  // this machine's SEPP_HOME
  auto a = OpenServerStore();
  ASSERT_TRUE(a);
  std::string id;
  {
    auto s = a->Create({cwd_, "anthropic", "claude-test", ""});
    ASSERT_TRUE(s.ok()) << s.error().message;
    id = (*s)->id();
    ASSERT_TRUE((*s)->AppendMessage(UserMessage("stored")).ok());
    ASSERT_TRUE(pgtest::SharedCluster()->Stop().ok());
    ASSERT_TRUE((*s)->AppendMessage(UserMessage("kept here one")).ok());
    ASSERT_TRUE((*s)->AppendMessage(UserMessage("kept here two")).ok());
  }
  ASSERT_TRUE(pgtest::SharedCluster()->Start().ok());
  std::string other_entry;
  {
    runtime::testing::TempHome elsewhere;  // another machine: no outbox there
    auto b = OpenServerStore();
    ASSERT_TRUE(b);
    auto w = b->Open(id, OpenMode::kAppend);
    ASSERT_TRUE(w.ok()) << w.error().message;
    auto r = (*w)->AppendMessage(UserMessage("written by the other server"));
    ASSERT_TRUE(r.ok()) << r.error().message;
    other_entry = *r;
  }
  ::setenv("SEPP_HOME", home.home().c_str(), 1);  // back on this machine
  auto again = a->Open(id, OpenMode::kAppend);
  ASSERT_TRUE(again.ok()) << again.error().message;
  ASSERT_EQ((*again)->size(), 2u) << "the database's history, not a mix";
  EXPECT_EQ((*again)->entries()[1].id, other_entry);
  auto files = OutboxFiles(home.home());
  ASSERT_EQ(files.size(), 1u);
  EXPECT_NE(files[0].filename().string().find(".unstored"), std::string::npos) << files[0];
  std::ifstream kept(files[0]);
  std::string text((std::istreambuf_iterator<char>(kept)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("kept here one"), std::string::npos) << "kept for the user";
  EXPECT_NE(text.find("kept here two"), std::string::npos);
  EXPECT_EQ(StoredSeqs(id), Iota(2));
  ASSERT_TRUE((*again)->AppendMessage(UserMessage("goes on")).ok());
  EXPECT_EQ(StoredSeqs(id), Iota(3));
}

// `sepp sessions --store postgres://…` reads the store `sepp serve --store`
// writes: list and show, from a process of its own; a refused login says so
// without the password.
TEST_F(PgStoreTest, SeppSessionsListsAndShowsThePostgresStore) {
  runtime::testing::TempHome home;
  auto a = OpenServerStore();
  ASSERT_TRUE(a);
  auto s = a->Create({cwd_, "anthropic", "claude-test", ""});
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_TRUE((*s)->AppendMessage(UserMessage("a prompt kept in postgres")).ok());
  ASSERT_TRUE((*s)->AppendMessage({{"role", "assistant"},
                                   {"content", {{{"type", "text"}, {"text", "an answer from pg"}}}}})
                  .ok());
  std::string id = (*s)->id();
  std::map<std::string, std::string> env = {{"HOME", home.home().string()},
                                            {"SEPP_HOME", home.home().string()},
                                            {"PATH", "/usr/bin:/bin"}};
  std::string url = pgtest::SharedCluster()->socket_url();
  std::string out, err;
  ASSERT_EQ(servetest::RunSepp({"sessions", "list", "--all", "--store", url}, env, &out, &err), 0)
      << err;
  EXPECT_NE(out.find(id), std::string::npos) << out;
  EXPECT_NE(out.find("a prompt kept in postgres"), std::string::npos) << out;
  ASSERT_EQ(servetest::RunSepp({"sessions", "show", id.substr(0, 12), "--store", url}, env, &out,
                               &err),
            0)
      << err;
  EXPECT_NE(out.find("a prompt kept in postgres"), std::string::npos) << out;
  EXPECT_NE(out.find("an answer from pg"), std::string::npos) << out;
  // Without --store the local stores are read: the session is not there.
  EXPECT_EQ(servetest::RunSepp({"sessions", "show", id}, env, &out, &err), 1);

  env["PGPASSWORD"] = "not-the-password-93b1";
  EXPECT_EQ(servetest::RunSepp({"sessions", "list", "--store",
                                pgtest::SharedCluster()->tcp_url(false)},
                               env, &out, &err),
            1);
  EXPECT_NE(err.find("password authentication failed"), std::string::npos) << err;
  EXPECT_EQ(err.find("not-the-password-93b1"), std::string::npos) << err;
}

}  // namespace
}  // namespace sepp::session
