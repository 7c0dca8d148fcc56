// /v1/fs/* end to end: sepp serve as a child, its file API's worker in a
// sandbox that shows only the workspace. Each attack (`..`, absolute paths
// outside, symlinks out, a FIFO, over-long names, a symlink swapped in while
// requests run, hostile archives) runs next to the legitimate calls that
// must still work, and the test checks the host files the attack aimed at.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include "base/file.h"
#include "base/strings.h"
#include "serve/serve_child.h"
#include "serve/tar_builder.h"

namespace sepp::servetest {
namespace {

namespace fs = std::filesystem;

std::string Slurp(const fs::path& p) {
  auto r = ReadFile(p);
  return r.ok() ? *r : "";
}

constexpr const char* kToken = "fs-test-token-0123456789";
constexpr const char* kSecret = "TOP-SECRET-OUTSIDE-THE-WORKSPACE";

std::string Escape(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (isalnum(c) || c == '/' || c == '.' || c == '-' || c == '_') out += static_cast<char>(c);
    else {
      char b[4];
      snprintf(b, sizeof b, "%%%02X", c);
      out += b;
    }
  }
  return out;
}

class FsE2e : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/sepp-serve-fs-XXXXXX";
    root_ = mkdtemp(tmpl);
    fs::create_directories(root_ / "home");
    fs::create_directories(root_ / "project");
    fs::create_directories(root_ / "outside");
    std::ofstream(root_ / "outside" / "secret") << kSecret;
    server_ = std::make_unique<ServeChild>(
        project(), std::map<std::string, std::string>{{"HOME", (root_ / "home").string()},
                                                      {"SEPP_HOME", (root_ / "home").string()},
                                                      // a provider is configured; these tests never call it
                                                      {"ANTHROPIC_BASE_URL", "http://127.0.0.1:9"},
                                                      {"ANTHROPIC_API_KEY", "test-key-not-secret"}},
        std::vector<std::string>{"--token", kToken});
  }
  void TearDown() override {
    server_.reset();
    fs::remove_all(root_);
  }
  std::string project() const { return (root_ / "project").string(); }
  net::HttpResponse Call(const std::string& method, const std::string& route, const std::string& path,
                         const std::string& body = "", net::Headers h = {}) {
    h.emplace_back("Authorization", std::string("Bearer ") + kToken);
    std::string url = server_->url(route) + (path.empty() ? "" : "?path=" + Escape(path));
    return Fetch(method, url, h, body);
  }
  Json JsonOf(const net::HttpResponse& r) {
    auto j = ParseJson(r.body);
    return j.ok() ? *j : Json();
  }
  std::string TypeOf(const net::HttpResponse& r) { return JsonOf(r).value("type", ""); }

  fs::path root_;
  std::unique_ptr<ServeChild> server_;
};

TEST_F(FsE2e, FilesAndFoldersInTheWorkspace) {
  std::string bytes("bin\0ary\xff\n", 9);
  auto put = Call("PUT", "/v1/fs/file", project() + "/src/a.bin", bytes,
                  {{"Content-Type", "application/octet-stream"}});
  ASSERT_EQ(put.head.status, 200) << put.body;
  EXPECT_EQ(JsonOf(put)["bytesWritten"], 9);
  EXPECT_EQ(JsonOf(put)["path"], project() + "/src/a.bin");
  EXPECT_EQ(Slurp(root_ / "project/src/a.bin"), bytes) << "written on the host, parents made";

  auto get = Call("GET", "/v1/fs/file", "src/a.bin");  // relative: to the workspace
  ASSERT_EQ(get.head.status, 200) << get.body;
  EXPECT_EQ(get.head.Header("Content-Type"), "application/octet-stream");
  EXPECT_EQ(get.body, bytes);

  auto stat = JsonOf(Call("GET", "/v1/fs/stat", "src/a.bin"));
  EXPECT_EQ(stat["entryType"], "file");
  EXPECT_EQ(stat["size"], 9);
  EXPECT_EQ(stat["path"], project() + "/src/a.bin");
  EXPECT_TRUE(stat["modified"].is_string() && stat["modified"].get<std::string>().ends_with("Z")) << stat.dump();

  ASSERT_EQ(Call("POST", "/v1/fs/mkdir", "src/deep/er").head.status, 200);
  EXPECT_TRUE(fs::is_directory(root_ / "project/src/deep/er"));
  auto entries = Call("GET", "/v1/fs/entries", "src");
  ASSERT_EQ(entries.head.status, 200) << entries.body;
  Json list = JsonOf(entries);
  ASSERT_EQ(list.size(), 2u) << list.dump();
  EXPECT_EQ(list[0]["name"], "a.bin");
  EXPECT_EQ(list[0]["entryType"], "file");
  EXPECT_EQ(list[1]["name"], "deep");
  EXPECT_EQ(list[1]["entryType"], "directory");
  EXPECT_EQ(list[1]["path"], project() + "/src/deep");
  auto top = JsonOf(Call("GET", "/v1/fs/entries", ""));  // no path: the workspace
  ASSERT_EQ(top.size(), 1u) << top.dump();
  EXPECT_EQ(top[0]["name"], "src");

  // move: no overwrite unless asked
  ASSERT_EQ(Call("PUT", "/v1/fs/file", "src/b.txt", "bee").head.status, 200);
  net::Headers json = {{"Content-Type", "application/json"}};
  auto clash = Call("POST", "/v1/fs/move", "", R"({"from":"src/b.txt","to":"src/a.bin"})", json);
  EXPECT_EQ(clash.head.status, 409) << clash.body;
  EXPECT_EQ(TypeOf(clash), "urn:sepp:error:conflict");
  auto moved = Call("POST", "/v1/fs/move", "", R"({"from":"src/b.txt","to":"src/a.bin","overwrite":true})", json);
  ASSERT_EQ(moved.head.status, 200) << moved.body;
  EXPECT_EQ(JsonOf(moved)["to"], project() + "/src/a.bin");
  EXPECT_EQ(Slurp(root_ / "project/src/a.bin"), "bee");
  EXPECT_FALSE(fs::exists(root_ / "project/src/b.txt"));

  // delete: a full folder only with recursive
  auto full = Call("DELETE", "/v1/fs/entry", "src");
  EXPECT_EQ(full.head.status, 409) << full.body;
  EXPECT_TRUE(fs::exists(root_ / "project/src/a.bin"));
  auto gone = Call("DELETE", "/v1/fs/entry", "src/a.bin");
  EXPECT_EQ(gone.head.status, 200) << gone.body;
  auto rec = Fetch("DELETE", server_->url("/v1/fs/entry?recursive=true&path=src"),
                   {{"Authorization", std::string("Bearer ") + kToken}});
  EXPECT_EQ(rec.head.status, 200) << rec.body;
  EXPECT_FALSE(fs::exists(root_ / "project/src"));
  auto missing = Call("GET", "/v1/fs/stat", "src");
  EXPECT_EQ(missing.head.status, 404);
  EXPECT_EQ(TypeOf(missing), "urn:sepp:error:not_found");
}

TEST_F(FsE2e, UploadBatchExtractsATarAndRefusesAHostileOneWhole) {
  std::string tar = TarEntryBytes("pkg/", '5') + TarEntryBytes("pkg/index.js", '0', "console.log(1)\n") +
                    TarEntryBytes("pkg/lib/util.js", '0', "x") + TarEnd();
  auto up = Call("POST", "/v1/fs/upload-batch", "dest", tar, {{"Content-Type", "application/x-tar"}});
  ASSERT_EQ(up.head.status, 200) << up.body;
  Json j = JsonOf(up);
  EXPECT_EQ(j["truncated"], false);
  ASSERT_EQ(j["paths"].size(), 2u) << j.dump();
  EXPECT_EQ(j["paths"][0], project() + "/dest/pkg/index.js");
  EXPECT_EQ(Slurp(root_ / "project/dest/pkg/lib/util.js"), "x");

  for (const std::string& bad :
       {TarEntryBytes("first.txt", '0', "1") + TarEntryBytes("../../outside/planted", '0', "p") + TarEnd(),
        TarEntryBytes("first.txt", '0', "1") + TarEntryBytes("ln", '2', "", root_.string() + "/outside") +
            TarEntryBytes("ln/planted", '0', "p") + TarEnd(),
        TarEntryBytes("first.txt", '0', "1") + TarEntryBytes("/tmp/planted", '0', "p") + TarEnd(),
        std::string("not a tar archive at all")}) {
    auto r = Call("POST", "/v1/fs/upload-batch", "hostile", bad, {{"Content-Type", "application/x-tar"}});
    EXPECT_EQ(r.head.status, 400) << r.body;
    EXPECT_EQ(TypeOf(r), "urn:sepp:error:invalid_request");
  }
  EXPECT_FALSE(fs::exists(root_ / "project/hostile")) << "nothing of a refused archive is written";
  EXPECT_FALSE(fs::exists(root_ / "outside/planted"));
}

TEST_F(FsE2e, PathsOutsideTheWorkspacesAreRefused) {
  ASSERT_EQ(Call("PUT", "/v1/fs/file", "ok.txt", "fine").head.status, 200);
  for (const std::string& p : {std::string("../outside/secret"), root_.string() + "/outside/secret",
                               project() + "/../outside/secret", std::string("/etc/passwd"),
                               std::string("sub/../../outside/secret"), std::string("/")}) {
    auto r = Call("GET", "/v1/fs/file", p);
    EXPECT_EQ(r.head.status, 403) << p << " " << r.body;
    EXPECT_EQ(TypeOf(r), "urn:sepp:error:permission_denied") << p;
    EXPECT_NE(JsonOf(r).value("detail", "").find("outside the server's workspaces"), std::string::npos);
    EXPECT_EQ(r.body.find(kSecret), std::string::npos);
    EXPECT_EQ(Call("PUT", "/v1/fs/file", p, "overwritten").head.status, 403) << p;
    EXPECT_EQ(Call("DELETE", "/v1/fs/entry", p).head.status, 403) << p;
  }
  EXPECT_EQ(Slurp(root_ / "outside/secret"), kSecret);
  auto mv = Call("POST", "/v1/fs/move", "", R"({"from":"ok.txt","to":"../outside/stolen"})",
                 {{"Content-Type", "application/json"}});
  EXPECT_EQ(mv.head.status, 403) << mv.body;
  EXPECT_FALSE(fs::exists(root_ / "outside/stolen"));

  // Over-long: the whole path (past the 4 KiB query value limit) and one name
  // (past NAME_MAX, which the kernel refuses inside the sandbox).
  auto huge = Call("GET", "/v1/fs/stat", std::string(5000, 'a'));
  EXPECT_EQ(huge.head.status, 400) << huge.body;
  auto name = Call("PUT", "/v1/fs/file", std::string(300, 'b'), "x");
  EXPECT_EQ(name.head.status, 400) << name.body;
  EXPECT_NE(name.body.find("too long"), std::string::npos) << name.body;
  auto big = Call("PUT", "/v1/fs/file", "big.bin", std::string((32 << 20) + 1, 'x'));
  EXPECT_EQ(big.head.status, 413) << big.body;
  EXPECT_FALSE(fs::exists(root_ / "project/big.bin"));
  auto nul = Fetch("GET", server_->url("/v1/fs/stat?path=a%00b"), {{"Authorization", std::string("Bearer ") + kToken}});
  EXPECT_EQ(nul.head.status, 400) << nul.body;
  EXPECT_EQ(Call("GET", "/v1/fs/file", "ok.txt").body, "fine") << "the legitimate file still reads";
}

TEST_F(FsE2e, SymlinksOutOfTheWorkspaceReachNothing) {
  fs::create_directory_symlink(root_ / "outside", root_ / "project/dirlink");
  fs::create_symlink(root_ / "outside/secret", root_ / "project/filelink");
  fs::create_symlink("/etc/passwd", root_ / "project/passwd");
  fs::create_symlink("/proc/self/environ", root_ / "project/environ");
  fs::create_symlink("../outside/secret", root_ / "project/relative");
  fs::create_symlink(root_ / "outside/new-file", root_ / "project/dangling");
  std::ofstream(root_ / "project/inside.txt") << "inside";
  fs::create_symlink("inside.txt", root_ / "project/goodlink");

  for (const char* p : {"dirlink/secret", "filelink", "passwd", "environ", "relative"}) {
    auto r = Call("GET", "/v1/fs/file", p);
    EXPECT_TRUE(r.head.status == 403 || r.head.status == 404) << p << " " << r.head.status << " " << r.body;
    EXPECT_EQ(r.body.find(kSecret), std::string::npos) << p;
    EXPECT_EQ(r.body.find("root:"), std::string::npos) << p;
    auto w = Call("PUT", "/v1/fs/file", p, "overwritten");
    EXPECT_TRUE(w.head.status == 403 || w.head.status == 404) << p << " " << w.body;
  }
  for (const char* p : {"dirlink/planted", "dangling", "dirlink/sub/planted"}) {
    auto w = Call("PUT", "/v1/fs/file", p, "planted");
    EXPECT_TRUE(w.head.status == 403 || w.head.status == 404) << p << " " << w.body;
  }
  EXPECT_EQ(Call("POST", "/v1/fs/mkdir", "dirlink/made").head.status / 100, 4);
  auto ls = Call("GET", "/v1/fs/entries", "dirlink");
  EXPECT_EQ(ls.head.status / 100, 4) << ls.body;
  EXPECT_EQ(ls.body.find("secret"), std::string::npos);
  auto mv = Call("POST", "/v1/fs/move", "", R"({"from":"inside.txt","to":"dirlink/stolen"})",
                 {{"Content-Type", "application/json"}});
  EXPECT_EQ(mv.head.status / 100, 4) << mv.body;
  // Deleting through the link removes nothing outside; deleting the link
  // itself removes the link, not its target.
  EXPECT_EQ(Call("DELETE", "/v1/fs/entry", "dirlink/secret").head.status / 100, 4);
  auto rec = Fetch("DELETE", server_->url("/v1/fs/entry?recursive=true&path=dirlink"),
                   {{"Authorization", std::string("Bearer ") + kToken}});
  EXPECT_EQ(rec.head.status, 200) << rec.body;
  EXPECT_FALSE(fs::is_symlink(root_ / "project/dirlink"));

  EXPECT_EQ(Slurp(root_ / "outside/secret"), kSecret);
  EXPECT_FALSE(fs::exists(root_ / "outside/planted"));
  EXPECT_FALSE(fs::exists(root_ / "outside/new-file"));
  EXPECT_FALSE(fs::exists(root_ / "outside/made"));
  EXPECT_FALSE(fs::exists(root_ / "outside/stolen"));
  EXPECT_TRUE(fs::exists(root_ / "project/inside.txt"));
  // A link that stays inside works.
  EXPECT_EQ(Call("GET", "/v1/fs/file", "goodlink").body, "inside");
  // A FIFO planted in the workspace does not hang the worker.
  ASSERT_EQ(mkfifo((root_ / "project/fifo").c_str(), 0644), 0);
  EXPECT_EQ(Call("GET", "/v1/fs/file", "fifo").head.status, 400);
  EXPECT_EQ(Call("PUT", "/v1/fs/file", "fifo", "x").head.status, 400);
  EXPECT_EQ(Call("GET", "/v1/fs/file", "inside.txt").body, "inside");
}

TEST_F(FsE2e, ASymlinkSwappedInDuringRequestsNeverReachesOutside) {
  // project/swap flips between a real folder and a symlink to outside/
  // (renameat2 RENAME_EXCHANGE), as fast as it can, while the server reads
  // and writes in it.
  fs::create_directories(root_ / "project/swap");
  std::ofstream(root_ / "project/swap/secret") << "inside";
  fs::create_directory_symlink(root_ / "outside", root_ / "project/.link");
  std::atomic<bool> stop{false};
  std::atomic<int> flips{0};
  std::thread swapper([&] {
    std::string swap = project() + "/swap", link = project() + "/.link";
    while (!stop) {  // atomic exchanges: swap always exists, a folder or the link
      for (int k = 0; k < 2; ++k)
        ASSERT_EQ(renameat2(AT_FDCWD, swap.c_str(), AT_FDCWD, link.c_str(), RENAME_EXCHANGE), 0);
      ++flips;
    }
  });
  int inside = 0;
  for (int i = 0; i < 150; ++i) {
    auto r = Call("GET", "/v1/fs/file", "swap/secret");
    EXPECT_EQ(r.body.find(kSecret), std::string::npos) << "read outside on try " << i;
    if (r.head.status == 200 && r.body == "inside") ++inside;
    Call("PUT", "/v1/fs/file", "swap/planted", "planted");
    Call("POST", "/v1/fs/mkdir", "swap/made");
    auto ls = Call("GET", "/v1/fs/entries", "swap");
    EXPECT_EQ(ls.body.find(root_.string() + "/outside"), std::string::npos);
  }
  stop = true;
  swapper.join();
  EXPECT_GT(flips.load(), 0);
  EXPECT_EQ(Slurp(root_ / "outside/secret"), kSecret);
  EXPECT_FALSE(fs::exists(root_ / "outside/planted")) << "a write went through the swapped-in link";
  EXPECT_FALSE(fs::exists(root_ / "outside/made"));
  // The legitimate reads went on between the flips (and do after them).
  EXPECT_GT(inside, 0);
  EXPECT_EQ(Call("GET", "/v1/fs/file", "swap/secret").body, "inside");
}

TEST_F(FsE2e, TheRoutesTakeTheirMethodsAndParameters) {
  EXPECT_EQ(Call("POST", "/v1/fs/file", "a").head.status, 405);
  EXPECT_EQ(Call("GET", "/v1/fs/mkdir", "a").head.status, 405);
  EXPECT_EQ(Call("GET", "/v1/fs/nothing", "a").head.status, 404);
  auto no_path = Call("GET", "/v1/fs/file", "");
  EXPECT_EQ(no_path.head.status, 400);
  EXPECT_NE(no_path.body.find("is required"), std::string::npos) << no_path.body;
  auto bad_move = Call("POST", "/v1/fs/move", "", R"({"from":1})", {{"Content-Type", "application/json"}});
  EXPECT_EQ(bad_move.head.status, 400);
  auto no_token = Fetch("GET", server_->url("/v1/fs/entries"));
  EXPECT_EQ(no_token.head.status, 401);
}

}  // namespace
}  // namespace sepp::servetest
