// Record and replay (cassette.h, recording_provider.h, replay_provider.h):
// recorded over real HTTP from the scripted fake provider for each API,
// streamed and whole, then replayed with the fake stopped and no key.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <thread>

#include "base/file.h"
#include "base/ids.h"
#include "base/secrets.h"
#include "base/strings.h"
#include "llm/cassette.h"
#include "llm/cassette_render.h"
#include "llm/http_provider.h"
#include "llm/json_diff.h"
#include "llm/provider_source.h"
#include "support/fake_provider.h"

namespace sepp::llm {
namespace {

namespace fs = std::filesystem;
constexpr char kKey[] = "sk-cassette-secret-0123456789abcdef";
constexpr char kCwd[] = "/home/ann/project";
constexpr char kDate[] = "2026-11-30";

// Everything a sink saw, adjacent text (and thinking) pieces joined: the
// recorder keeps pieces joined, so this is what a replay must reproduce.
struct SeenStream {
  std::string log;
  StreamSink Sink() {
    StreamSink s;
    s.on_text = [this](std::string_view t) { Add("text", t); };
    s.on_thinking = [this](std::string_view t) { Add("thinking", t); };
    s.on_tool_call = [this](const ContentBlock& b) { Add("tool_call", b.name + " " + DumpJson(b.arguments)); };
    s.on_retry = [this](const std::string& why, int attempt, double) {
      Add("retry", std::to_string(attempt) + " " + why);
    };
    return s;
  }
  void Add(const std::string& kind, std::string_view text) {
    if (kind == last_ && (kind == "text" || kind == "thinking")) {
      log += text;
    } else {
      log += "\n" + kind + ": " + std::string(text);
    }
    last_ = kind;
  }
  std::string last_;
};

struct Variant {
  ApiKind api;
  const char* name;
  bool stream;
};

class RecordReplay : public ::testing::TestWithParam<Variant> {
 protected:
  void SetUp() override {
    RegisterSecret(kKey);
    dir_ = fs::temp_directory_path() / ("sepp-cassette-" + ShortId());
    fs::create_directories(dir_);
    path_ = (dir_ / "run.cassette").string();
    ASSERT_TRUE(fake_.Start().ok());
  }
  void TearDown() override {
    fake_.Stop();
    fs::remove_all(dir_);
  }

  ProviderConfig Config() {
    ProviderConfig c;
    c.api = GetParam().api;
    c.name = GetParam().name;
    c.api_key = kKey;
    c.base_url = c.api == ApiKind::kAnthropic ? fake_.base_url() : fake_.base_url() + "/v1";
    c.read_timeout_s = 10;
    return c;
  }

  std::unique_ptr<Provider> Live() {
    RetryEnv env;
    env.random01 = [] { return 0.0; };
    env.now_s = [] { return int64_t{1700000000}; };
    env.sleep = [](double, CancelToken*) -> Status { return Ok(); };
    return MakeHttpProvider(Config(), env);
  }

  Request Req(const std::string& task) {
    Request r;
    r.model = "some-model";
    r.system = std::string("You work in ") + kCwd + ".\nToday's date: " + kDate + "\n";
    r.messages.push_back(Message::User(task));
    r.tools.push_back({"bash", "Run a command", Json{{"type", "object"}}});
    r.stream = GetParam().stream;
    return r;
  }

  std::shared_ptr<CassetteReplayer> Replayer(ReplayMode mode = ReplayMode::kStrict,
                                             CassetteScrub scrub = CassetteScrub(kCwd, kDate)) {
    auto r = CassetteReplayer::Open(path_, mode, std::move(scrub));
    EXPECT_TRUE(r.ok()) << r.error().message;
    return r.ok() ? *r : nullptr;
  }

  fs::path dir_;
  std::string path_;
  fake::FakeProvider fake_;
};

// A conversation of two calls: thinking, text and a tool call (after a 429
// that is retried), then the answer to the tool result.
TEST_P(RecordReplay, ReplaysEveryResponseWithoutTheNetworkOrTheKey) {
  fake_.SetScript({{"responses",
                    {{{"error", {{"status", 429}, {"message", "slow down"}}}},
                     {{"thinking", "let me look"},
                      {"text", std::string("Listing ") + kCwd + " now."},
                      {"tool_calls", {{{"name", "bash"}, {"arguments", {{"command", std::string("ls ") + kCwd}}}}}}},
                     {{"text", "Two files."}, {"usage", {{"input", 30}, {"output", 4}}}}}}});
  std::vector<Result<Message>> recorded;
  SeenStream seen_live;
  {
    auto rec = CassetteRecorder::Create(path_, Config(), CassetteScrub(kCwd, kDate));
    ASSERT_TRUE(rec.ok()) << rec.error().message;
    auto p = (*rec)->Wrap(Live());
    Request r = Req("list the files");
    recorded.push_back(p->Complete(r, seen_live.Sink(), nullptr));
    ASSERT_TRUE(recorded[0].ok()) << recorded[0].error().message;
    r.messages.push_back(*recorded[0]);
    r.messages.push_back(Message::ToolResult(recorded[0]->ToolCalls()[0]->id, "bash", "a\nb\n", false));
    recorded.push_back(p->Complete(r, seen_live.Sink(), nullptr));
    ASSERT_TRUE(recorded[1].ok());
    EXPECT_TRUE((*rec)->status().ok());
  }
  EXPECT_NE(seen_live.log.find("retry: 1"), std::string::npos) << seen_live.log;
  fake_.Stop();  // no network from here on

  std::string text = ReadFile(path_).value();
  EXPECT_EQ(text.find(kKey), std::string::npos);
  EXPECT_EQ(text.find("uthorization"), std::string::npos);
  EXPECT_EQ(text.find("x-api-key"), std::string::npos);
  EXPECT_EQ(text.find(kCwd), std::string::npos) << "the working directory is a placeholder";
  EXPECT_NE(text.find(kCwdPlaceholder), std::string::npos);
  EXPECT_NE(text.find(kDatePlaceholder), std::string::npos);

  auto replayer = Replayer();
  ASSERT_TRUE(replayer);
  EXPECT_EQ(replayer->config().name, GetParam().name);
  EXPECT_EQ(replayer->config().api, GetParam().api);
  EXPECT_TRUE(replayer->config().api_key.empty());
  auto p = replayer->NewProvider();
  SeenStream seen_replay;
  Request r = Req("list the files");
  auto m0 = p->Complete(r, seen_replay.Sink(), nullptr);
  ASSERT_TRUE(m0.ok()) << m0.error().message;
  EXPECT_EQ(*m0, *recorded[0]) << "the placeholders are this run's values again";
  r.messages.push_back(*m0);
  r.messages.push_back(Message::ToolResult(m0->ToolCalls()[0]->id, "bash", "a\nb\n", false));
  auto m1 = p->Complete(r, seen_replay.Sink(), nullptr);
  ASSERT_TRUE(m1.ok()) << m1.error().message;
  EXPECT_EQ(*m1, *recorded[1]);
  EXPECT_EQ(m1->usage.input, 30);
  EXPECT_EQ(seen_replay.log, seen_live.log);
  EXPECT_EQ(replayer->Problems(), "");
}

// The same recording replayed in another directory on another day: the
// placeholders take this run's values, so requests match and paths follow.
TEST_P(RecordReplay, ReplaysInAnotherDirectoryOnAnotherDay) {
  fake_.SetScript({{"responses", {{{"tool_calls", {{{"name", "read"}, {"arguments", {{"path", std::string(kCwd) + "/a.txt"}}}}}}}}}});
  {
    auto rec = CassetteRecorder::Create(path_, Config(), CassetteScrub(kCwd, kDate));
    ASSERT_TRUE(rec.ok());
    ASSERT_TRUE((*rec)->Wrap(Live())->Complete(Req("read it"), {}, nullptr).ok());
  }
  auto replayer = Replayer(ReplayMode::kStrict, CassetteScrub("/build/ci", "2027-01-02"));
  ASSERT_TRUE(replayer);
  Request r = Req("read it");
  r.system = "You work in /build/ci.\nToday's date: 2027-01-02\n";
  auto m = replayer->NewProvider()->Complete(r, {}, nullptr);
  ASSERT_TRUE(m.ok()) << m.error().message << "\n" << replayer->Problems();
  EXPECT_EQ(m->ToolCalls()[0]->arguments["path"], "/build/ci/a.txt");
}

INSTANTIATE_TEST_SUITE_P(Apis, RecordReplay,
                         ::testing::Values(Variant{ApiKind::kAnthropic, "anthropic", true},
                                           Variant{ApiKind::kAnthropic, "anthropic", false},
                                           Variant{ApiKind::kOpenAiChat, "openai", true},
                                           Variant{ApiKind::kOpenAiChat, "openai", false},
                                           Variant{ApiKind::kOpenAiResponses, "openai-responses", true},
                                           Variant{ApiKind::kOpenAiResponses, "openai-responses", false}),
                         [](const ::testing::TestParamInfo<Variant>& info) {
                           std::string n = info.param.name;
                           for (char& c : n) c = c == '-' ? '_' : c;
                           return n + (info.param.stream ? "_stream" : "_whole");
                         });

// ---- the matching rules, on cassettes built by hand --------------------

Request TaskRequest(const std::string& task, const std::vector<std::string>& more = {}) {
  Request r;
  r.model = "m";
  r.system = "sys";
  r.messages.push_back(Message::User(task));
  for (const auto& t : more) r.messages.push_back(Message::User(t));
  return r;
}

Exchange Answer(int agent, int call, const Request& r, const std::string& text) {
  Exchange x;
  x.agent = agent;
  x.call = call;
  x.request = RequestToJson(r);
  x.events.push_back(StreamEvent::Piece(StreamEvent::Kind::kText, text));
  Message m;
  m.role = Role::kAssistant;
  m.content.push_back(ContentBlock::Text(text));
  x.message = m;
  return x;
}

std::string Write(const std::vector<Exchange>& xs) {
  std::string text = CassetteHeaderLine("anthropic", ApiKind::kAnthropic);
  for (const auto& x : xs) text += ExchangeLine(x);
  return text;
}

std::shared_ptr<CassetteReplayer> FromText(const std::string& text, ReplayMode mode) {
  auto c = ParseCassette(text, "t.cassette");
  EXPECT_TRUE(c.ok()) << c.error().message;
  return std::make_shared<CassetteReplayer>(std::move(*c), "t.cassette", mode, CassetteScrub());
}

std::string Answered(Provider& p, const Request& r) {
  auto m = p.Complete(r, {}, nullptr);
  return m.ok() ? m->Text() : "ERROR " + m.error().kind + ": " + m.error().message;
}

// Two sub-agents recorded one way round are replayed the other way round,
// from two threads: each still gets the answer recorded for its request.
TEST(Replay, StrictMatchesByRequestSoParallelAgentsGetTheirOwnAnswers) {
  Request a0 = TaskRequest("task A"), a1 = TaskRequest("task A", {"more A"});
  Request b0 = TaskRequest("task B"), b1 = TaskRequest("task B", {"more B"});
  std::string text = Write({Answer(1, 0, a0, "A0"), Answer(2, 0, b0, "B0"), Answer(1, 1, a1, "A1"),
                            Answer(2, 1, b1, "B1")});
  {
    // B's whole conversation before A's: by position, B would get A's answers.
    auto replayer = FromText(text, ReplayMode::kStrict);
    auto pa = replayer->NewProvider(), pb = replayer->NewProvider();
    EXPECT_EQ(Answered(*pb, b0) + Answered(*pb, b1) + Answered(*pa, a0) + Answered(*pa, a1), "B0B1A0A1");
    EXPECT_EQ(replayer->Problems(), "");
  }
  for (int round = 0; round < 20; ++round) {
    auto replayer = FromText(text, ReplayMode::kStrict);
    auto pa = replayer->NewProvider(), pb = replayer->NewProvider();
    std::string ra0, ra1, rb0, rb1;
    std::thread tb([&] {
      rb0 = Answered(*pb, b0);
      rb1 = Answered(*pb, b1);
    });
    ra0 = Answered(*pa, a0);
    ra1 = Answered(*pa, a1);
    tb.join();
    EXPECT_EQ(ra0 + ra1 + rb0 + rb1, "A0A1B0B1");
    EXPECT_EQ(replayer->Problems(), "");
  }
}

TEST(Replay, StrictMismatchIsAnErrorWithADiffOfTheClosestRequest) {
  Request first = TaskRequest("list the files");
  Request second = TaskRequest("list the files", {"line one\nline two\nline three"});
  auto replayer = FromText(Write({Answer(0, 0, first, "ok"), Answer(0, 1, second, "done")}), ReplayMode::kStrict);
  auto p = replayer->NewProvider();
  EXPECT_EQ(Answered(*p, first), "ok");
  Request changed = TaskRequest("list the files", {"line one\nline 2\nline three"});
  changed.system = "sys\x1b[2J";
  auto m = p->Complete(changed, {}, nullptr);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().kind, "replay_mismatch");
  EXPECT_EQ(m.error().message.find('\n'), std::string::npos) << "the error itself is one line";
  std::string report = replayer->Problems();
  EXPECT_NE(report.find("request 2 matches no unused exchange of t.cassette"), std::string::npos) << report;
  EXPECT_NE(report.find("line 3 (agent 0, call 1)"), std::string::npos) << report;
  EXPECT_NE(report.find("messages[1].content[0].text, line 2\n    recorded: \"line two\"\n    now:      \"line 2\""),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("system\n    recorded: \"sys\"\n    now:      \"sys\\u001b[2J\""), std::string::npos)
      << report;
  EXPECT_EQ(report.find('\x1b'), std::string::npos) << "control characters are escaped";
  EXPECT_NE(report.find("--replay-mode lenient"), std::string::npos);
}

TEST(Replay, StrictReportsRecordedExchangesTheRunNeverAskedFor) {
  Request a = TaskRequest("a"), b = TaskRequest("a", {"b"});
  auto replayer = FromText(Write({Answer(0, 0, a, "1"), Answer(0, 1, b, "2")}), ReplayMode::kStrict);
  EXPECT_EQ(Answered(*replayer->NewProvider(), a), "1");
  std::string report = replayer->Problems();
  EXPECT_NE(report.find("the run made 1 requests, but t.cassette recorded 2; never asked for: line 3 (agent 0, call 1)"),
            std::string::npos)
      << report;
}

TEST(Replay, StrictRequestBeyondTheRecordingSaysItIsNew) {
  Request a = TaskRequest("a");
  auto replayer = FromText(Write({Answer(0, 0, a, "1")}), ReplayMode::kStrict);
  auto p = replayer->NewProvider();
  EXPECT_EQ(Answered(*p, a), "1");
  EXPECT_NE(Answered(*p, a).find("replay_mismatch"), std::string::npos) << "each exchange serves once";
  EXPECT_NE(replayer->Problems().find("All 1 recorded exchanges were used"), std::string::npos);
}

// The strict index (requests by fingerprint): a long conversation asked
// back to front is served by content, every exchange once; two agents that
// asked the very same request share its fingerprint and get the recorded
// answers in file order; a third asking it is told the recording is spent.
TEST(Replay, StrictIndexFindsEachRequestByContentInAnyOrder) {
  std::vector<Exchange> xs;
  std::vector<Request> asked;
  std::vector<std::string> more;
  for (int i = 0; i < 60; ++i) {
    asked.push_back(TaskRequest("long task", more));
    xs.push_back(Answer(0, i, asked.back(), "answer " + std::to_string(i)));
    more.push_back("turn " + std::to_string(i));
  }
  auto replayer = FromText(Write(xs), ReplayMode::kStrict);
  auto p = replayer->NewProvider();
  for (int i = 59; i >= 0; --i) EXPECT_EQ(Answered(*p, asked[i]), "answer " + std::to_string(i));
  EXPECT_EQ(replayer->Problems(), "");

  Request same = TaskRequest("same task");
  auto twice = FromText(Write({Answer(0, 0, same, "first"), Answer(1, 0, same, "second")}), ReplayMode::kStrict);
  auto p1 = twice->NewProvider(), p2 = twice->NewProvider(), p3 = twice->NewProvider();
  EXPECT_EQ(Answered(*p1, same), "first");
  EXPECT_EQ(Answered(*p2, same), "second");
  std::string spent = Answered(*p3, same);
  EXPECT_NE(spent.find("request 3 matches no unused exchange of t.cassette (the recording has no more exchanges)"),
            std::string::npos)
      << spent;
  EXPECT_NE(twice->Problems().find("All 2 recorded exchanges were used: this request is new."), std::string::npos)
      << twice->Problems();
}

// A cassette opened for replay keeps its requests as text (RequestForm::kText,
// no JSON trees): damage is still caught by the fingerprint, and a miss still
// names the recorded request it came closest to and every difference.
TEST(Replay, OpenedCassetteKeepsRequestTextAndAMissStillShowsTheDiff) {
  Request first = TaskRequest("fix the bug", {"in parser.cc"});
  std::string text = Write({Answer(0, 0, first, "done")});
  auto c = ParseCassette(text, "t.cassette", RequestForm::kText);
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_TRUE(c->exchanges[0].request.is_null());
  EXPECT_EQ(c->exchanges[0].request_text, DumpJson(RequestToJson(first)));
  std::string damaged = text;
  damaged.replace(damaged.find("in parser.cc"), 12, "in lexer.cc!");
  auto bad = ParseCassette(damaged, "t.cassette", RequestForm::kText);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("the fingerprint does not match"), std::string::npos) << bad.error().message;

  fs::path path = fs::temp_directory_path() / ("sepp-cassette-" + ShortId());
  ASSERT_TRUE(WriteFileAtomic(path, text).ok());
  auto replayer = CassetteReplayer::Open(path.string(), ReplayMode::kStrict, CassetteScrub());
  fs::remove(path);
  ASSERT_TRUE(replayer.ok()) << replayer.error().message;
  auto p = (*replayer)->NewProvider();
  std::string miss = Answered(*p, TaskRequest("fix the bug", {"in lexer.cc"}));
  EXPECT_NE(miss.find("replay_mismatch: replay: request 1 matches no unused exchange"), std::string::npos) << miss;
  EXPECT_NE(miss.find("first difference at messages[1].content[0].text"), std::string::npos) << miss;
  std::string report = (*replayer)->Problems();
  EXPECT_NE(report.find("Closest recorded request: line 2 (agent 0, call 0)"), std::string::npos) << report;
  EXPECT_NE(report.find("recorded: \"in parser.cc\"\n    now:      \"in lexer.cc\""), std::string::npos) << report;
  EXPECT_EQ(Answered(*p, first), "done") << "a miss uses nothing up";
}

// Lenient serves by position from the first call's binding on: a request
// that has nothing in common with the recording (no messages at all) is
// still answered, and the responses come back with this run's values for
// the recorded placeholders.
TEST(Replay, LenientNeverLooksPastTheFirstMessageAndRevealsPlaceholders) {
  Exchange x0 = Answer(0, 0, TaskRequest("task"), std::string("in ") + kCwdPlaceholder);
  Exchange x1 = Answer(0, 1, TaskRequest("task", {"go on"}), std::string("still in ") + kCwdPlaceholder);
  auto c = ParseCassette(Write({x0, x1}), "t.cassette", RequestForm::kFirstMessage);
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->exchanges[1].request, (Json{{"messages", Json::array({ToJson(Message::User("task"))})}}))
      << "a lenient replay keeps only the first message of each request";
  EXPECT_TRUE(c->exchanges[1].request_text.empty());
  auto replayer = std::make_shared<CassetteReplayer>(std::move(*c), "t.cassette", ReplayMode::kLenient,
                                                     CassetteScrub("/work/here", kDate));
  auto p = replayer->NewProvider();
  std::string streamed;
  StreamSink sink;
  sink.on_text = [&](std::string_view t) { streamed += t; };
  auto m = p->Complete(TaskRequest("task"), sink, nullptr);
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->Text(), "in /work/here");
  EXPECT_EQ(streamed, "in /work/here");
  EXPECT_EQ(Answered(*p, Request()), "still in /work/here");
  EXPECT_EQ(Answered(*replayer->NewProvider(), TaskRequest("task")).find("ERROR replay_mismatch: this run starts more agents"), 0u);
}

TEST(Replay, LenientServesEachAgentByPosition) {
  Request a0 = TaskRequest("task A"), a1 = TaskRequest("task A", {"x"});
  Request b0 = TaskRequest("task B");
  auto replayer = FromText(Write({Answer(0, 0, a0, "A0"), Answer(1, 0, b0, "B0"), Answer(0, 1, a1, "A1")}),
                           ReplayMode::kLenient);
  auto pb = replayer->NewProvider(), pa = replayer->NewProvider();
  // pb starts first but asks for B: it is bound to the agent that recorded B.
  EXPECT_EQ(Answered(*pb, TaskRequest("task B")), "B0");
  // pa's prompt was edited: it gets the first unclaimed agent, by position.
  EXPECT_EQ(Answered(*pa, TaskRequest("task A, edited")), "A0");
  EXPECT_EQ(Answered(*pa, TaskRequest("anything")), "A1");
  std::string past = Answered(*pa, TaskRequest("anything"));
  EXPECT_NE(past.find("agent 0 asks for request 3 but t.cassette recorded only 2"), std::string::npos) << past;
  auto third = replayer->NewProvider();
  EXPECT_NE(Answered(*third, a0).find("more agents than the 2 recorded"), std::string::npos);
}

TEST(Replay, RecordedErrorsAndCancelComeBack) {
  Exchange x = Answer(0, 0, TaskRequest("a"), "");
  x.message.reset();
  x.error = Error::Make("the API key was rejected (401)", "auth");
  auto replayer = FromText(Write({x}), ReplayMode::kStrict);
  auto p = replayer->NewProvider();
  CancelToken cancel;
  cancel.Cancel();
  EXPECT_EQ(p->Complete(TaskRequest("a"), {}, &cancel).error().kind, "aborted");
  auto m = p->Complete(TaskRequest("a"), {}, nullptr);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().kind, "auth");
  EXPECT_EQ(m.error().message, "the API key was rejected (401)");
}

// A secret streamed in pieces is still redacted whole: the recorder joins
// adjacent pieces before it redacts.
TEST(Record, SecretSplitAcrossStreamPiecesIsRedacted) {
  RegisterSecret(kKey);
  class Chunky : public Provider {
   public:
    std::string name() const override { return "anthropic"; }
    Result<Message> Complete(const Request&, const StreamSink& sink, CancelToken*) override {
      std::string k = kKey;
      sink.on_text("the key is " + k.substr(0, 10));
      sink.on_text(k.substr(10));
      Message m;
      m.role = Role::kAssistant;
      m.content.push_back(ContentBlock::Text("the key is " + k));
      return m;
    }
  };
  fs::path path = fs::temp_directory_path() / ("sepp-cassette-" + ShortId());
  ProviderConfig config;
  config.name = "anthropic";
  {
    auto rec = CassetteRecorder::Create(path.string(), config, CassetteScrub());
    ASSERT_TRUE(rec.ok());
    std::string streamed;
    StreamSink sink;
    sink.on_text = [&](std::string_view t) { streamed += t; };
    ASSERT_TRUE((*rec)->Wrap(std::make_unique<Chunky>())->Complete(TaskRequest(kKey), sink, nullptr).ok());
    EXPECT_EQ(streamed, std::string("the key is ") + kKey) << "the live run sees the real stream";
  }
  std::string text = ReadFile(path).value();
  fs::remove(path);
  EXPECT_EQ(text.find(kKey), std::string::npos) << text;
  EXPECT_EQ(text.find(std::string(kKey).substr(10)), std::string::npos) << text;
  EXPECT_NE(text.find("the key is [REDACTED]"), std::string::npos) << text;
}

TEST(Record, CassetteIsPrivateAndAnUnwritablePathIsAClearError) {
  fs::path dir = fs::temp_directory_path() / ("sepp-cassette-" + ShortId());
  fs::create_directories(dir);
  ProviderConfig config;
  config.name = "openai";
  config.api = ApiKind::kOpenAiChat;
  ASSERT_TRUE(CassetteRecorder::Create((dir / "c").string(), config, CassetteScrub()).ok());
  EXPECT_EQ(fs::status(dir / "c").permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
  auto bad = CassetteRecorder::Create((dir / "missing" / "c").string(), config, CassetteScrub());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("cannot write the cassette"), std::string::npos);
  fs::create_symlink(dir / "elsewhere", dir / "link");
  EXPECT_FALSE(CassetteRecorder::Create((dir / "link").string(), config, CassetteScrub()).ok())
      << "a symlink planted at the path is not followed";
  EXPECT_FALSE(fs::exists(dir / "elsewhere"));
  fs::remove_all(dir);
}

TEST(ProviderSourceTest, ReplayNeedsNoKeyAndRefusesConflictingFlags) {
  fs::path path = fs::temp_directory_path() / ("sepp-cassette-" + ShortId());
  ASSERT_TRUE(WriteFileAtomic(path, Write({Answer(0, 0, TaskRequest("a"), "hi")})).ok());
  ProviderSourceOptions o;
  o.replay_path = path.string();
  auto source = ProviderSource::Open(o);
  ASSERT_TRUE(source.ok()) << source.error().message;
  EXPECT_EQ((*source)->config().name, "anthropic");
  EXPECT_EQ(Answered(*(*source)->New(), TaskRequest("a")), "hi");
  EXPECT_EQ((*source)->Problems(), "");
  o.provider_flag = "openai";
  auto wrong = ProviderSource::Open(o);
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.error().kind, "usage");
  EXPECT_NE(wrong.error().message.find("recorded with anthropic"), std::string::npos);
  o.provider_flag.clear();
  o.record_path = path.string() + ".new";
  EXPECT_EQ(ProviderSource::Open(o).error().kind, "usage");
  fs::remove(path);
}

// ---- hostile cassettes ---------------------------------------------------

std::string ValidCassette() {
  Request r = TaskRequest("a");
  r.tools.push_back({"bash", "run", Json{{"type", "object"}}});
  Exchange x = Answer(0, 0, r, "hello");
  x.events.push_back(StreamEvent::Piece(StreamEvent::Kind::kThinking, "hmm"));
  x.events.push_back(StreamEvent::ToolCall(ContentBlock::ToolCall("id1", "bash", {{"command", "ls"}})));
  x.events.push_back(StreamEvent::Retry("429", 1, 1.5));
  x.message->content.push_back(ContentBlock::ToolCall("id1", "bash", {{"command", "ls"}}));
  x.message->stop_reason = StopReason::kToolUse;
  Exchange e = Answer(1, 0, TaskRequest("b"), "");
  e.message.reset();
  e.error = Error::Make("overloaded", "overloaded");
  return Write({x, e});
}

TEST(CassetteFormat, RoundTripsEveryField) {
  std::string text = ValidCassette();
  auto c = ParseCassette(text, "c");
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_EQ(c->exchanges.size(), 2u);
  std::string again = CassetteHeaderLine(c->provider, c->api);
  for (const auto& x : c->exchanges) again += ExchangeLine(x);
  EXPECT_EQ(again, text);
  EXPECT_EQ(c->exchanges[0].line, 2);
  EXPECT_EQ(c->exchanges[1].error.kind, "overloaded");
}

TEST(CassetteFormat, DamageIsAClearErrorNamingTheLine) {
  std::string valid = ValidCassette();
  auto lines = SplitLines(valid);
  struct Case {
    std::string text, expect;
  };
  Json x = ParseJson(lines[1]).value();
  auto with = [&](const std::function<void(Json&)>& f) {
    Json y = x;
    f(y);
    return lines[0] + "\n" + DumpJson(y) + "\n";
  };
  std::string deep = std::string(100000, '[') + std::string(100000, ']');
  std::vector<Case> cases = {
      {"", "empty: not a sepp cassette"},
      {"{\"hello\":1}\n", "c line 1: not a sepp cassette"},
      {"{\"sepp_cassette\":2,\"provider\":\"a\",\"api\":\"anthropic\"}\n", "cassette version 2 is not supported"},
      {"{\"sepp_cassette\":1,\"provider\":\"a\",\"api\":\"gemini\"}\n", "the header needs provider"},
      {lines[0] + "\n{not json\n", "c line 2: invalid JSON"},
      {lines[0] + "\n" + lines[1].substr(0, lines[1].size() / 2) + "\n", "c line 2: invalid JSON"},
      {lines[0] + "\n" + deep + "\n", "c line 2: JSON nested deeper than 128"},
      {with([](Json& y) { y["request"]["system"] = "edited"; }), "the fingerprint does not match"},
      {with([](Json& y) { y["agent"] = -1; }), "agent and call must be non-negative"},
      {with([](Json& y) { y["agent"] = 1e300; }), "agent and call must be non-negative"},
      {with([](Json& y) { y.erase("request"); }), "request is missing"},
      {with([](Json& y) { y["events"] = "text"; }), "events is not an array"},
      {with([](Json& y) { y["events"][0] = {{"text", 1}}; }), "event 0: text is not a string"},
      {with([](Json& y) { y["events"][0] = {{"text", "a"}, {"thinking", "b"}}; }), "exactly one of"},
      {with([](Json& y) { y["events"][0] = {{"bell", "a"}}; }), "unknown event"},
      {with([](Json& y) { y["events"][3]["retry"]["attempt"] = "one"; }), "retry needs"},
      {with([](Json& y) { y["events"][2]["tool_call"]["type"] = "text"; }), "tool_call: not a tool_call block"},
      {with([](Json& y) { y["result"] = Json::object(); }), "result must be"},
      {with([](Json& y) { y["result"]["message"]["role"] = "user"; }), "not an assistant message"},
      {with([](Json& y) { y["result"]["message"]["content"] = 5; }), "result message: "},
      {with([](Json& y) { y["result"] = {{"error", {{"message", 1}}}}; }), "result error needs"},
  };
  for (const auto& c : cases) {
    auto r = ParseCassette(c.text, "c");
    ASSERT_FALSE(r.ok()) << c.expect;
    EXPECT_EQ(r.error().kind, "bad_cassette");
    EXPECT_NE(r.error().message.find(c.expect), std::string::npos) << r.error().message;
  }
  EXPECT_TRUE(ParseCassette(with([](Json& y) { y.erase("fingerprint"); y["request"]["system"] = "edited"; }), "c").ok())
      << "a hand-edited request without its fingerprint is accepted";
}

// Random damage (flipped, deleted, inserted and duplicated bytes, cut
// lines): parsing never throws or crashes, and what parses replays without
// crashing and renders without a raw control character.
TEST(CassetteFormat, MutatedCassettesNeverCrash) {
  const std::string valid = ValidCassette();
  std::mt19937 rng(12345);
  const std::string junk = "{}[]\",:0123456789-eE.tfn\\u\x1b\x7f\xc2\x9b\xff\n ";
  int parsed = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string text = valid;
    int edits = 1 + rng() % 4;
    for (int e = 0; e < edits && !text.empty(); ++e) {
      size_t at = rng() % text.size();
      switch (rng() % 5) {
        case 0: text[at] = junk[rng() % junk.size()]; break;
        case 1: text.erase(at, 1 + rng() % 8); break;
        case 2: text.insert(at, 1, junk[rng() % junk.size()]); break;
        case 3: text.insert(at, text.substr(at, rng() % 40)); break;
        case 4: text.resize(at); break;
      }
    }
    auto c = ParseCassette(text, "m");
    if (!c.ok()) {
      EXPECT_EQ(c.error().kind, "bad_cassette");
      EXPECT_EQ(c.error().message.rfind("m", 0), 0u) << c.error().message;
      continue;
    }
    ++parsed;
    std::string shown = RenderCassette(*c, "m");
    EXPECT_EQ(shown.find('\x1b'), std::string::npos);
    auto replayer = std::make_shared<CassetteReplayer>(std::move(*c), "m", ReplayMode::kStrict, CassetteScrub());
    (void)replayer->NewProvider()->Complete(TaskRequest("a"), {}, nullptr);
    (void)replayer->Problems();
  }
  EXPECT_GT(parsed, 0) << "some mutations (inside strings) still parse, and replay";
}

// ---- the diff and the rendering -----------------------------------------

TEST(JsonDiff, SaysWhereAndWhat) {
  Json a = {{"model", "m"}, {"messages", {{{"text", "same"}}, {{"text", "gone"}}}}, {"n", 1}};
  Json b = {{"model", "m2"}, {"messages", {{{"text", "same"}}}}, {"n", "1"}, {"new key", true}};
  size_t total = 0;
  auto d = DiffJson(a, b, 2, &total);
  EXPECT_EQ(total, 4u);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].path, "messages[1]");
  EXPECT_EQ(d[0].recorded, "{\"text\":\"gone\"}");
  EXPECT_EQ(d[0].now, "(absent)");
  EXPECT_EQ(d[1].path, "model");
  EXPECT_NE(FormatDifferences(d, total).find("(2 more differences)"), std::string::npos);
  auto keys = DiffJson(a, b, 8);
  EXPECT_EQ(keys[3].path, "[\"new key\"]");
  std::string long_a(1000, 'x'), long_b = long_a;
  long_b[700] = 'y';
  auto cut = DiffJson(Json(long_a), Json(long_b));
  ASSERT_EQ(cut.size(), 1u);
  EXPECT_LT(cut[0].now.size(), 200u);
  EXPECT_NE(cut[0].now.find('y'), std::string::npos) << "shown around the first difference";
  EXPECT_TRUE(DiffJson(a, a).empty());
}

TEST(CassetteRender, ShowsEachExchangeReadably) {
  auto c = ParseCassette(ValidCassette(), "c.cassette");
  ASSERT_TRUE(c.ok());
  std::string text = RenderCassette(*c, "c.cassette");
  EXPECT_NE(text.find("cassette c.cassette: provider anthropic (API anthropic), 2 exchanges, 2 agents"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("#1 line 2 · agent 0 call 0 · m · stream · fingerprint "), std::string::npos) << text;
  EXPECT_NE(text.find("  > user: a\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  < tool_call bash {\"command\":\"ls\"}\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  ~ retry 1 after 1.5 s: 429\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  = tool_use · in 0 · out 0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  ! error (overloaded): overloaded\n"), std::string::npos) << text;
}

// The example in examples/replay (docs/replay.md) stays a valid cassette.
// Only its format is checked: replaying it would tie it to today's system
// prompt and tool descriptions.
TEST(CassetteExample, ParsesAndRenders) {
  auto c = LoadCassette(std::string(SEPP_SOURCE_DIR) + "/examples/replay/hello.cassette");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->exchanges.size(), 2u);
  EXPECT_NE(RenderCassette(*c, "hello.cassette").find("2 exchanges, 1 agent\n"), std::string::npos);
}

}  // namespace
}  // namespace sepp::llm
