// ClientFiles (the editor's buffers as the tools' FileAccess) against a
// scripted client: the requests it sends, answers in any thread, hostile
// answers, a client that never answers (timeout) and cancel.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <thread>

#include "front/acp/client_files.h"

namespace sepp::front::acp {
namespace {

using namespace std::chrono_literals;

// Records each request; answer() decides the reply (nullopt: none).
struct ScriptedClient {
  struct Sent {
    int64_t id;
    std::string method;
    Json params;
  };
  std::mutex mu;
  std::vector<Sent> sent;
  std::vector<int64_t> forgotten;
  std::function<std::optional<std::pair<Json, Json>>(const Sent&)> answer;
  bool connected = true;

  ClientCaller Caller() {
    return {[this](std::string method, Json params,
                   std::function<void(const Json&, const Json&)> done) -> int64_t {
              if (!connected) return 0;
              Sent s;
              {
                std::lock_guard lock(mu);
                s = {static_cast<int64_t>(sent.size()) + 1, method, params};
                sent.push_back(s);
              }
              if (auto a = answer(s))  // from another thread, as the reader thread would
                std::thread([done, a] { done(a->first, a->second); }).detach();
              return s.id;
            },
            [this](int64_t id) {
              std::lock_guard lock(mu);
              forgotten.push_back(id);
            }};
  }
};

class ClientFilesTest : public ::testing::Test {
 protected:
  std::unique_ptr<ClientFiles> Make(std::chrono::milliseconds timeout = 10s) {
    auto f = std::make_unique<ClientFiles>(true, true, client_.Caller(), timeout);
    f->set_session_id("s-1");
    return f;
  }
  ScriptedClient client_;
};

TEST_F(ClientFilesTest, ReadAndWriteSendTheSessionAndPath) {
  client_.answer = [](const ScriptedClient::Sent& s) -> std::optional<std::pair<Json, Json>> {
    if (s.method == "fs/read_text_file") return std::pair{Json{{"content", "buffer text\n"}}, Json()};
    return std::pair{Json::object(), Json()};
  };
  auto f = Make();
  auto text = f->ReadText("/w/a.txt", nullptr);
  ASSERT_TRUE(text.ok()) << text.error().message;
  EXPECT_EQ(*text, "buffer text\n");
  ASSERT_TRUE(f->WriteText("/w/b.txt", "new\n", nullptr).ok());
  ASSERT_EQ(client_.sent.size(), 2u);
  EXPECT_EQ(client_.sent[0].params, (Json{{"sessionId", "s-1"}, {"path", "/w/a.txt"}}));
  EXPECT_EQ(client_.sent[1].method, "fs/write_text_file");
  EXPECT_EQ(client_.sent[1].params,
            (Json{{"sessionId", "s-1"}, {"path", "/w/b.txt"}, {"content", "new\n"}}));
}

TEST_F(ClientFilesTest, HostileAnswersAreClearErrors) {
  std::vector<std::pair<Json, Json>> answers = {
      {Json{{"content", 5}}, Json()},
      {Json::array(), Json()},
      {Json(), Json{{"code", -32002}, {"message", "no such file\x1b[2J" + std::string(2000, 'x')}}},
      {Json(), Json("not an object")},
  };
  size_t next = 0;
  client_.answer = [&](const ScriptedClient::Sent&) -> std::optional<std::pair<Json, Json>> {
    return answers[next++];
  };
  auto f = Make();
  auto r = f->ReadText("/w/a.txt", nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("has no \"content\" text"), std::string::npos);
  EXPECT_FALSE(f->ReadText("/w/a.txt", nullptr).ok());
  r = f->ReadText("/w/a.txt", nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.rfind("the editor refused: no such file", 0), 0u) << r.error().message;
  EXPECT_EQ(r.error().message.find('\x1b'), std::string::npos) << "control characters made visible";
  EXPECT_LT(r.error().message.size(), 600u) << "the client's words are bounded";
  auto w = f->WriteText("/w/a.txt", "x", nullptr);
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.error().message.find("not an object"), std::string::npos);
}

TEST_F(ClientFilesTest, NoAnswerTimesOutAndForgetsTheRequest) {
  client_.answer = [](const ScriptedClient::Sent&) { return std::optional<std::pair<Json, Json>>(); };
  auto f = Make(50ms);
  auto r = f->ReadText("/w/a.txt", nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, "timeout");
  EXPECT_EQ(r.error().message, "the editor did not answer fs/read_text_file within 50 ms");
  EXPECT_EQ(client_.forgotten, std::vector<int64_t>{1});
}

TEST_F(ClientFilesTest, CancelEndsTheWait) {
  client_.answer = [](const ScriptedClient::Sent&) { return std::optional<std::pair<Json, Json>>(); };
  auto f = Make(600s);  // would outlast the test: only cancel can end it
  CancelToken cancel;
  std::thread canceller([&] {
    for (;;) {  // cancel once the request is out
      {
        std::lock_guard lock(client_.mu);
        if (!client_.sent.empty()) break;
      }
      std::this_thread::yield();
    }
    cancel.Cancel();
  });
  auto r = f->WriteText("/w/a.txt", "x", &cancel);
  canceller.join();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, "cancelled");
  EXPECT_EQ(client_.forgotten, std::vector<int64_t>{1});
  // Already cancelled: nothing is sent.
  EXPECT_EQ(f->ReadText("/w/a.txt", &cancel).error().kind, "cancelled");
  EXPECT_EQ(client_.sent.size(), 1u);
}

TEST_F(ClientFilesTest, AClosedConnectionIsAnError) {
  client_.connected = false;
  auto f = Make();
  auto r = f->ReadText("/w/a.txt", nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("cannot be reached"), std::string::npos);
}

}  // namespace
}  // namespace sepp::front::acp
