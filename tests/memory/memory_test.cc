// Durable memory: scope isolation by attack (another project's session
// tries every tool and hostile query on ids it learnt), BM25 search,
// dedupe, the tools' refusals, and hybrid search through a local fake
// OpenAI-compatible /v1/embeddings endpoint.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>

#include "base/ids.h"
#include "base/secrets.h"
#include "memory/embeddings.h"
#include "memory/store.h"
#include "net/http_server.h"
#include "tools/memory_tools.h"

namespace sepp::memory {
namespace {

namespace fs = std::filesystem;

class MemoryFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("sepp-memory-test-" + ShortId());
    auto s = Store::Open(dir_ / "memory.db");
    ASSERT_TRUE(s.ok()) << s.error().message;
    store_ = std::move(*s);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::unique_ptr<tools::ToolRegistry> ToolsFor(MemoryView view) {
    auto b = std::make_shared<tools::MemoryBinding>();
    b->store = store_;
    b->view = [view] { return view; };
    auto r = std::make_unique<tools::ToolRegistry>();
    tools::AddMemoryTools(*r, b);
    return r;
  }
  static tools::ToolResult Call(tools::ToolRegistry& r, const std::string& tool, const Json& args) {
    tools::ToolContext ctx;
    return tools::RunTool(*r.Find(tool), args, ctx);
  }

  fs::path dir_;
  std::shared_ptr<Store> store_;
  const MemoryView a1_{"alice", "git:proj-a", "sess-1"};
  const MemoryView a2_{"alice", "git:proj-a", "sess-2"};
  const MemoryView b1_{"alice", "git:proj-b", "sess-9"};
  const MemoryView bob_{"bob", "git:proj-a", "sess-1"};
};

TEST_F(MemoryFixture, SearchRanksTheRelevantMemoryFirst) {
  ASSERT_TRUE(store_->Add(a1_, "project", "The build uses Ninja and ccache; run scripts/test before committing", {}).ok());
  ASSERT_TRUE(store_->Add(a1_, "project", "The user prefers tabs over spaces in Makefiles", {}).ok());
  ASSERT_TRUE(store_->Add(a1_, "global", "The user's editor is Helix", {}).ok());
  auto hits = store_->Search(a1_, "which editor does the user use?", {});
  ASSERT_TRUE(hits.ok()) << hits.error().message;
  ASSERT_FALSE(hits->empty());
  EXPECT_NE(hits->front().text.find("Helix"), std::string::npos);
  EXPECT_GT(hits->front().score, 0);
  EXPECT_LE(hits->front().score, 1);
  // Stemming: "committing" is found by "commit".
  auto stem = store_->Search(a1_, "commit", {});
  ASSERT_EQ(stem->size(), 1u);
  EXPECT_NE(stem->front().text.find("Ninja"), std::string::npos);
}

// Words in most memories ("the") are left out of the OR, so BM25 does not
// score every row; the rare words still rank the answer first, and a
// query of only common words still answers (all of them must match).
TEST_F(MemoryFixture, CommonWordsDoNotDrownTheRareOnes) {
  std::vector<std::string> filler;
  for (int i = 0; i < 1500; ++i) filler.push_back("the project keeps note " + std::to_string(i));
  ASSERT_TRUE(store_->AddMany(a1_, "project", filler).ok());
  ASSERT_TRUE(store_->Add(a1_, "project", "The user's editor is Helix", {}).ok());
  auto hits = store_->Search(a1_, "what editor does the project use", {});
  ASSERT_TRUE(hits.ok()) << hits.error().message;
  ASSERT_FALSE(hits->empty());
  EXPECT_NE(hits->front().text.find("Helix"), std::string::npos) << hits->front().text;
  auto common = store_->Search(a1_, "the project note", {});
  ASSERT_TRUE(common.ok());
  EXPECT_EQ(common->size(), 5u);
}

// Five words that each match hundreds of memories would still make BM25
// score them all: only the rarest words whose matches add up to 1,000 rows
// are OR'd. The rarest ranks first; words past the budget bring nothing.
TEST_F(MemoryFixture, OnlyTheRarestWordsWithinTheBudgetAreRanked) {
  std::vector<std::string> filler;
  for (int i = 0; i < 2500; ++i)  // alpha in 700, beta and gamma in 900 each
    filler.push_back(std::string(i < 700 ? "alpha" : i < 1600 ? "beta" : "gamma") + " note " +
                     std::to_string(i));
  ASSERT_TRUE(store_->AddMany(a1_, "project", filler).ok());
  ASSERT_TRUE(store_->Add(a1_, "project", "delta marks the spot", {}).ok());
  SearchOptions o;
  o.top_k = 50;
  // delta: 1 row, then alpha: 700 (701 in all); beta would make it 1,601.
  auto hits = store_->Search(a1_, "gamma beta alpha delta", o);
  ASSERT_TRUE(hits.ok()) << hits.error().message;
  ASSERT_EQ(hits->size(), 50u);
  EXPECT_EQ(hits->front().text, "delta marks the spot");
  for (const auto& h : *hits) {
    EXPECT_EQ(h.text.find("beta"), std::string::npos) << h.text;
    EXPECT_EQ(h.text.find("gamma"), std::string::npos) << h.text;
  }
}

// Only common words: all must match, and the newest such memories are
// ranked (not BM25 over all of them, which would favour the short old ones).
TEST_F(MemoryFixture, OnlyCommonWordsRankTheNewestMatches) {
  std::vector<std::string> filler;
  for (int i = 0; i < 1500; ++i)
    filler.push_back(i < 1000 ? "the project note " + std::to_string(i)
                              : "the project keeps one longer note " + std::to_string(i));
  ASSERT_TRUE(store_->AddMany(a1_, "project", filler).ok());
  auto hits = store_->Search(a1_, "the project note", {});
  ASSERT_TRUE(hits.ok()) << hits.error().message;
  ASSERT_EQ(hits->size(), 5u);
  for (const auto& h : *hits) {
    int n = std::stoi(h.text.substr(h.text.rfind(' ') + 1));
    EXPECT_GE(n, 1500 - 60) << h.text;  // within the newest pool (60 for top 5)
  }
}

TEST_F(MemoryFixture, AnotherProjectCanNeverReadOrChangeThisProjectsMemories) {
  auto secret = store_->Add(a1_, "project", "Project A deploy host is alpha-7.internal", {});
  auto sess = store_->Add(a1_, "session", "Session note: alpha-7 rollout half done", {});
  auto shared = store_->Add(a1_, "global", "The user writes British English", {});
  ASSERT_TRUE(secret.ok() && sess.ok() && shared.ok());

  // Project B's session attacks through every tool, with the ids it learnt.
  auto attacker = ToolsFor(b1_);
  for (const auto& id : {secret->id, sess->id}) {
    EXPECT_TRUE(Call(*attacker, "memory_get", {{"id", id}}).is_error);
    EXPECT_TRUE(Call(*attacker, "memory_update", {{"id", id}, {"text", "pwned"}}).is_error);
    EXPECT_TRUE(Call(*attacker, "memory_delete", {{"id", id}}).is_error);
  }
  const char* queries[] = {"alpha-7",        "alpha*",          "deploy OR host",      "\"",
                           "text:alpha",     "project:git",     "NOT zzz",             "* OR *",
                           "NEAR(alpha host)", ") OR 1=1 --",   "user_id:alice",       "{text}: alpha",
                           "alpha\" OR \"a", "\xff\xfe",        "^alpha",              "-x alpha"};
  for (const char* q : queries) {
    for (const char* scope : {"", "project", "session", "global"}) {
      Json args = {{"query", q}};
      if (*scope) args["scope"] = scope;
      auto r = Call(*attacker, "memory_search", args);
      EXPECT_FALSE(r.is_error) << q << ": " << r.text;
      EXPECT_EQ(r.text.find("alpha-7"), std::string::npos) << q << " " << scope << ": " << r.text;
    }
  }
  auto listed = Call(*attacker, "memory_list", {{"limit", 100}});
  EXPECT_EQ(listed.text.find("alpha-7"), std::string::npos) << listed.text;
  // It does see the user's global memory: that is what global means.
  EXPECT_NE(listed.text.find("British English"), std::string::npos) << listed.text;

  // Another user of the same project sees nothing of alice's.
  auto other_user = ToolsFor(bob_);
  EXPECT_TRUE(Call(*other_user, "memory_get", {{"id", shared->id}}).is_error);
  EXPECT_EQ(Call(*other_user, "memory_search", {{"query", "British"}}).details["count"], 0);

  // Another session of project A sees the project memory, not the session one.
  auto sibling = ToolsFor(a2_);
  EXPECT_FALSE(Call(*sibling, "memory_get", {{"id", secret->id}}).is_error);
  EXPECT_TRUE(Call(*sibling, "memory_get", {{"id", sess->id}}).is_error);

  // Nothing changed: the owner still reads all three, unmodified.
  auto owner = ToolsFor(a1_);
  auto got = Call(*owner, "memory_get", {{"id", secret->id}});
  ASSERT_FALSE(got.is_error) << got.text;
  EXPECT_NE(got.text.find("alpha-7.internal"), std::string::npos);
  EXPECT_FALSE(Call(*owner, "memory_get", {{"id", sess->id}}).is_error);
  auto counts = store_->Count(a1_);
  ASSERT_TRUE(counts.ok());
  EXPECT_EQ(counts->project, 1);
  EXPECT_EQ(counts->session, 1);
  EXPECT_EQ(counts->global, 1);
  // And the owner's own changes work.
  auto upd = Call(*owner, "memory_update", {{"id", secret->id}, {"text", "Deploy host is beta-2"}});
  EXPECT_FALSE(upd.is_error) << upd.text;
  EXPECT_EQ(store_->Search(a1_, "beta-2", {})->size(), 1u);
  auto stale = store_->Search(a1_, "\"alpha-7.internal\"", {});
  ASSERT_TRUE(stale.ok()) << stale.error().message;
  for (const auto& m : *stale) ADD_FAILURE() << "still found: " << m.id << " " << m.text;
  auto del = Call(*owner, "memory_delete", {{"id", sess->id}});
  EXPECT_FALSE(del.is_error) << del.text;
  EXPECT_FALSE(store_->Get(a1_, sess->id)->has_value());
}

TEST_F(MemoryFixture, DedupesTheSameTextAtOneScope) {
  auto first = store_->Add(a1_, "project", "Use pnpm, not npm", {});
  auto again = store_->Add(a1_, "project", "  Use pnpm,   not npm\n", {});
  auto global = store_->Add(a1_, "global", "Use pnpm, not npm", {});
  ASSERT_TRUE(first.ok() && again.ok() && global.ok());
  EXPECT_TRUE(again->duplicate);
  EXPECT_EQ(again->id, first->id);
  EXPECT_FALSE(global->duplicate);
}

TEST_F(MemoryFixture, ToolsRefuseBadInputClearly) {
  auto t = ToolsFor(a1_);
  const std::string key = "sk-memory-test-key-1234567890abcdef";
  RegisterSecret(key);
  auto sec = Call(*t, "memory_add", {{"text", "the key is " + key}});
  EXPECT_TRUE(sec.is_error);
  EXPECT_NE(sec.text.find("secret"), std::string::npos) << sec.text;
  EXPECT_TRUE(store_->List(a1_, {})->empty());
  auto scope = Call(*t, "memory_add", {{"text", "x y"}, {"scope", "everyone"}});
  EXPECT_TRUE(scope.is_error);
  EXPECT_NE(scope.text.find("\"project\""), std::string::npos) << scope.text;
  EXPECT_TRUE(Call(*t, "memory_add", {{"text", "   "}}).is_error);
  EXPECT_TRUE(Call(*t, "memory_add", {{"text", "x"}, {"infer", true}}).is_error);
  EXPECT_TRUE(Call(*t, "memory_add", {{"text", "x"}, {"metadata", "no"}}).is_error);
  EXPECT_TRUE(Call(*t, "memory_search", {{"query", 3}}).is_error);
  EXPECT_TRUE(Call(*t, "memory_get", {{"id", ""}}).is_error);
  // A session memory outside a session is refused, not silently widened.
  auto no_session = ToolsFor({"alice", "git:proj-a", ""});
  EXPECT_TRUE(Call(*no_session, "memory_add", {{"text", "x"}, {"scope", "session"}}).is_error);
  // Legitimate work next to it.
  auto ok = Call(*t, "memory_add", {{"text", "Tests live in tests/<folder>"}, {"metadata", {{"src", "me"}}}});
  ASSERT_FALSE(ok.is_error) << ok.text;
  auto status = Call(*t, "memory_status", Json::object());
  EXPECT_NE(status.text.find("project 1"), std::string::npos) << status.text;
  EXPECT_NE(status.text.find("no embeddings"), std::string::npos) << status.text;
}

TEST_F(MemoryFixture, ListPagesNewestFirst) {
  std::vector<std::string> texts;
  for (int i = 0; i < 25; ++i) texts.push_back("fact number " + std::to_string(i));
  ASSERT_TRUE(store_->AddMany(a1_, "project", texts).ok());
  auto t = ToolsFor(a1_);
  auto page = Call(*t, "memory_list", {{"limit", 10}});
  EXPECT_EQ(page.details["count"], 10);
  EXPECT_NE(page.text.find("offset 10"), std::string::npos) << page.text;
  auto last = Call(*t, "memory_list", {{"limit", 10}, {"offset", 20}});
  EXPECT_EQ(last.details["count"], 5);
}

// A fake endpoint: each text's vector says whether it is about cats, dogs
// or neither (synonyms share a direction), so a query can match a memory
// with no word in common.
std::vector<float> FakeVector(const std::string& t) {
  auto has = [&](const char* w) { return t.find(w) != std::string::npos; };
  return {has("cat") || has("kitten") || has("feline") ? 1.f : 0.f,
          has("dog") || has("puppy") ? 1.f : 0.f, 0.05f};
}

TEST_F(MemoryFixture, HybridSearchUsesALocalEmbeddingsEndpoint) {
  std::atomic<int> calls{0};
  std::string seen_auth;
  std::mutex mu;
  net::HttpServer server([&](const net::HttpServerRequest& req, net::ResponseWriter& w) {
    ++calls;
    {
      std::lock_guard<std::mutex> lock(mu);
      seen_auth = req.Header("Authorization");
    }
    Json body = Json::parse(req.body, nullptr, false);
    if (req.Path() != "/v1/embeddings" || body.is_discarded() || body.value("model", "") != "fake-embed") {
      w.Send(400, {}, "bad request");
      return;
    }
    Json data = Json::array();
    int i = 0;
    for (const auto& t : body["input"]) data.push_back({{"index", i++}, {"embedding", FakeVector(t)}});
    w.Send(200, {{"Content-Type", "application/json"}}, Json{{"data", data}}.dump());
  });
  ASSERT_TRUE(server.Start().ok());
  EmbeddingsConfig cfg{"http://127.0.0.1:" + std::to_string(server.port()), "fake-embed", "sk-embed-key-abcdef123456"};
  store_->set_embedder(MakeOpenAiEmbedder(cfg));
  // Less close to "cat" than project B's memories below (it is about a dog too).
  ASSERT_TRUE(store_->Add(a1_, "project", "The user has a kitten named Miso and a dog", {}).ok());
  ASSERT_TRUE(store_->Add(a1_, "project", "The office dog is called Rex", {}).ok());
  ASSERT_TRUE(store_->Add(b1_, "project", "Project B has a feline mascot", {}).ok());
  // More of project B's vectors near "cat" than the candidate pool holds:
  // they must not crowd project A's own memory out.
  for (int i = 0; i < 300; ++i)
    ASSERT_TRUE(store_->Add(b1_, "project", "feline fact " + std::to_string(i), {}).ok());
  // "cat" shares no word with "kitten": only the vectors connect them.
  auto hits = store_->Search(a1_, "cat", {});
  ASSERT_TRUE(hits.ok()) << hits.error().message;
  ASSERT_FALSE(hits->empty());
  EXPECT_NE(hits->front().text.find("Miso"), std::string::npos);
  for (const auto& h : *hits) EXPECT_EQ(h.text.find("mascot"), std::string::npos);  // other project
  EXPECT_GE(calls.load(), 4);
  {
    std::lock_guard<std::mutex> lock(mu);
    EXPECT_EQ(seen_auth, "Bearer sk-embed-key-abcdef123456");
  }
  // Without the endpoint, BM25 alone does not connect them.
  store_->set_embedder(nullptr);
  EXPECT_TRUE(store_->Search(a1_, "cat", {})->empty());
  // A failing endpoint is a clear error, not a crash or an empty answer.
  server.Stop();
  store_->set_embedder(MakeOpenAiEmbedder(cfg));
  auto down = store_->Search(a1_, "cat", {});
  ASSERT_FALSE(down.ok());
  EXPECT_NE(down.error().message.find("embeddings endpoint"), std::string::npos) << down.error().message;
}

}  // namespace
}  // namespace sepp::memory
