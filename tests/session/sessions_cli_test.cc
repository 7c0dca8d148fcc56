// `sepp sessions` end to end: runs the built binary against a private
// SEPP_HOME. Skipped when the sepp binary has not been built (building only
// the session targets); CI builds everything first.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include "base/fd.h"
#include "base/file.h"
#include "session/jsonl_store.h"
#include "session/session_test_util.h"
#include "session/store.h"

namespace sepp::session {
namespace {

using testing::AssistantMessage;
using testing::TempDir;
using testing::UserMessage;

namespace fs = std::filesystem;

struct CliRun {
  int code = -1;
  std::string out, err;
};

class SessionsCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sepp_ = fs::path(SEPP_BINARY_DIR) / "sepp";
    if (!fs::exists(sepp_)) GTEST_SKIP() << "build the sepp target to run the CLI tests";
    fs::create_directories(home_.path() / "home");
    fs::create_directories(home_.path() / "proj");
    cwd_ = fs::canonical(home_.path() / "proj").string();
  }

  fs::path Root() const { return home_.path() / "home" / "sessions"; }

  CliRun Sepp(std::vector<std::string> args, std::string extra_env = "X=1") {
    args.insert(args.begin(), {sepp_.string(), "sessions"});
    auto out = MakePipe().value();
    auto err = MakePipe().value();
    std::string home_env = "SEPP_HOME=" + (home_.path() / "home").string();
    std::string cwd = cwd_;
    pid_t pid = ::fork();
    if (pid == 0) {
      ::dup2(out.second.get(), 1);
      ::dup2(err.second.get(), 2);
      if (::chdir(cwd.c_str()) != 0) ::_exit(120);
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      std::string path_env = "PATH=/usr/bin:/bin";
      std::string home = "HOME=" + cwd;
      char* envp[] = {home_env.data(), path_env.data(), home.data(), extra_env.data(), nullptr};
      ::execve(argv[0], argv.data(), envp);
      ::_exit(121);
    }
    out.second.Reset();
    err.second.Reset();
    CliRun r;
    r.out = *ReadAll(out.first.get());
    r.err = *ReadAll(err.first.get());
    r.code = testing::WaitExit(pid);
    return r;
  }

  std::string MakeSession(const std::string& prompt) {
    auto store = OpenStore(StoreKind::kJsonl, Root()).value();
    auto s = store->Create(NewSession{cwd_, "anthropic", "claude", ""}).value();
    std::string first = s->AppendMessage(UserMessage(prompt)).value();
    (void)s->AppendMessage(AssistantMessage("answer <b>bold</b>"));
    (void)s->SetLeaf(first);
    (void)s->AppendMessage(AssistantMessage("second answer"));
    return s->id();
  }

  TempDir home_;
  fs::path sepp_;
  std::string cwd_;
};

TEST_F(SessionsCliTest, ListShowTreeExport) {
  CliRun empty = Sepp({"list"});
  EXPECT_EQ(empty.code, 0);
  EXPECT_NE(empty.err.find("no sessions"), std::string::npos);

  std::string id = MakeSession("please fix the build");
  CliRun list = Sepp({"list"});
  EXPECT_EQ(list.code, 0) << list.err;
  EXPECT_NE(list.out.find(id), std::string::npos);
  EXPECT_NE(list.out.find("please fix the build"), std::string::npos);
  CliRun all = Sepp({"list", "--all"});
  EXPECT_NE(all.out.find(cwd_.substr(cwd_.size() > 20 ? cwd_.size() - 20 : 0)), std::string::npos)
      << all.out;

  CliRun show = Sepp({"show", id.substr(0, 28)});
  EXPECT_EQ(show.code, 0) << show.err;
  EXPECT_NE(show.out.find("second answer"), std::string::npos);
  EXPECT_EQ(show.out.find("answer <b>bold</b>"), std::string::npos);  // other branch

  CliRun tree = Sepp({"tree", id});
  EXPECT_EQ(tree.code, 0);
  EXPECT_NE(tree.out.find("├─ "), std::string::npos);
  EXPECT_NE(tree.out.find("← leaf"), std::string::npos);

  CliRun md = Sepp({"export", id, "--format", "md"});
  EXPECT_EQ(md.code, 0);
  EXPECT_NE(md.out.find("# Session " + id), std::string::npos);
  fs::path html = home_.path() / "out.html";
  CliRun h = Sepp({"export", id, "--format", "html", "-o", html.string()});
  EXPECT_EQ(h.code, 0) << h.err;
  std::string page = *ReadFile(html);
  EXPECT_NE(page.find("<!doctype html>"), std::string::npos);
  CliRun jl = Sepp({"export", id, "--format", "jsonl"});
  auto parsed = ParseJsonlSession(jl.out, "export");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_EQ(parsed->entries.size(), 3u);
}

TEST_F(SessionsCliTest, ShowAndExportRedactKeysFromTheEnvironment) {
  // A session file written elsewhere, with a key in it.
  const std::string key = "sk-ant-cli-test-0123456789abcdef";
  fs::path dir = Root() / CwdFolderName(cwd_);
  fs::create_directories(dir);
  std::string id = "0123456789abcdef0123456789abcdef";
  ASSERT_TRUE(WriteFileAtomic(dir / ("x_" + id + ".jsonl"),
                              "{\"type\":\"session\",\"version\":1,\"id\":\"" + id + "\",\"cwd\":\"" +
                                  cwd_ + "\"}\n{\"type\":\"message\",\"id\":\"a\",\"parentId\":null,"
                                  "\"message\":{\"role\":\"user\",\"content\":\"key " + key + "\"}}\n")
                  .ok());
  for (auto args : std::vector<std::vector<std::string>>{
           {"show", id}, {"export", id}, {"export", id, "--format", "jsonl"},
           {"export", id, "--format", "html"}}) {
    CliRun r = Sepp(args, "ANTHROPIC_API_KEY=" + key);
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out.find(key), std::string::npos) << args[0];
    EXPECT_NE(r.out.find("[REDACTED]"), std::string::npos) << args[0];
  }
}

TEST_F(SessionsCliTest, ExitCodesForErrorsAndUsage) {
  std::string a = MakeSession("one");
  std::string b = MakeSession("two");
  CliRun amb = Sepp({"show", a.substr(0, 6)});
  EXPECT_EQ(amb.code, 1);
  EXPECT_NE(amb.err.find("matches 2 sessions"), std::string::npos) << amb.err;
  EXPECT_EQ(Sepp({"show", "ffffffff"}).code, 1);
  EXPECT_EQ(Sepp({"show", "../etc"}).code, 1);
  EXPECT_EQ(Sepp({}).code, 2);
  EXPECT_EQ(Sepp({"show"}).code, 2);
  EXPECT_EQ(Sepp({"export", a, "--format", "pdf"}).code, 2);
  EXPECT_EQ(Sepp({"convert", "--to", "sqlite"}).code, 2);
  EXPECT_EQ(Sepp({"convert", "--to", "nosql", "--all"}).code, 2);
  EXPECT_EQ(Sepp({"--help"}).code, 0);
}

TEST_F(SessionsCliTest, RemoveRespectsTheWriterAndConvertMovesSessions) {
  std::string id = MakeSession("keep me");
  {
    auto store = OpenStore(StoreKind::kJsonl, Root()).value();
    auto held = store->Open(id, OpenMode::kAppend).value();
    CliRun rm = Sepp({"rm", id});
    EXPECT_EQ(rm.code, 1);
    EXPECT_NE(rm.err.find("pid " + std::to_string(::getpid())), std::string::npos) << rm.err;
  }
  CliRun to_sqlite = Sepp({"convert", "--to", "sqlite", "--all"});
  EXPECT_EQ(to_sqlite.code, 0) << to_sqlite.err;
  EXPECT_TRUE(fs::exists(Root() / "sessions.db"));
  CliRun only_sqlite = Sepp({"list", "--store", "sqlite"});
  EXPECT_NE(only_sqlite.out.find(id), std::string::npos) << only_sqlite.err;
  EXPECT_EQ(Sepp({"list", "--store", "jsonl"}).out.find(id), std::string::npos);
  CliRun show = Sepp({"show", id});  // found wherever it lives
  EXPECT_EQ(show.code, 0) << show.err;
  EXPECT_NE(show.out.find("second answer"), std::string::npos);
  EXPECT_EQ(Sepp({"convert", "--to", "jsonl", id.substr(0, 30)}).code, 0);
  EXPECT_NE(Sepp({"list", "--store", "jsonl"}).out.find(id), std::string::npos);
  CliRun rm = Sepp({"rm", id});
  EXPECT_EQ(rm.code, 0) << rm.err;
  EXPECT_EQ(Sepp({"show", id}).code, 1);
}

}  // namespace
}  // namespace sepp::session
