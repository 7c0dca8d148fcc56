// The inspector's files as `sepp serve` serves them (the browser test is
// tests/ui): every file of src/front/serve/ui/ byte for byte, without a
// token, with a CSP that allows only the server itself; nothing else under
// /ui/ (no path leads to the disk), the Host check still in front, and the
// API behind the page still wanting the token from a same-origin caller.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "serve/serve_child.h"

namespace sepp::servetest {
namespace {

namespace fs = std::filesystem;

constexpr const char* kToken = "inspector-token-0123456789abcdef";

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

class ServeInspector : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/sepp-serve-ui-XXXXXX";
    root_ = mkdtemp(tmpl);
    fs::create_directories(root_ / "home");
    server_ = std::make_unique<ServeChild>(
        root_.string(),
        std::map<std::string, std::string>{{"HOME", (root_ / "home").string()},
                                           {"SEPP_HOME", (root_ / "home").string()},
                                           {"ANTHROPIC_API_KEY", "test-key-not-secret"}},
        std::vector<std::string>{"--token", kToken});
  }
  void TearDown() override {
    server_.reset();
    fs::remove_all(root_);
  }
  std::string Raw(const std::string& head) {
    return RawRequest(server_->port(), head + "Connection: close\r\n\r\n");
  }
  std::string Host() const { return "127.0.0.1:" + std::to_string(server_->port()); }

  fs::path root_;
  std::unique_ptr<ServeChild> server_;
};

TEST_F(ServeInspector, EveryFileIsServedAsWrittenWithoutATokenUnderAStrictPolicy) {
  const fs::path dir = fs::path(SEPP_SOURCE_DIR) / "src/front/serve/ui";
  int files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    auto r = Fetch("GET", server_->url("/ui/" + name));
    ASSERT_EQ(r.head.status, 200) << name << ": " << r.body;
    EXPECT_EQ(r.body, ReadFile(entry.path())) << name << " is embedded byte for byte";
    const std::string csp = r.head.Header("Content-Security-Policy");
    EXPECT_NE(csp.find("default-src 'none'"), std::string::npos) << csp;
    EXPECT_NE(csp.find("script-src 'self';"), std::string::npos) << csp;
    EXPECT_NE(csp.find("connect-src 'self';"), std::string::npos) << csp;
    EXPECT_NE(csp.find("frame-ancestors 'none'"), std::string::npos) << csp;
    EXPECT_EQ(csp.find("unsafe"), std::string::npos) << csp;
    EXPECT_EQ(r.head.Header("X-Content-Type-Options"), "nosniff");
    EXPECT_EQ(r.head.Header("Referrer-Policy"), "no-referrer");
    ++files;
  }
  EXPECT_GE(files, 5) << "index.html, app.js, markdown.js, style.css, favicon.svg";
  auto page = Fetch("GET", server_->url("/ui/"));
  ASSERT_EQ(page.head.status, 200);
  EXPECT_EQ(page.body, ReadFile(dir / "index.html"));
  EXPECT_EQ(page.head.Header("Content-Type"), "text/html; charset=utf-8");
  EXPECT_EQ(Fetch("GET", server_->url("/ui/app.js")).head.Header("Content-Type"),
            "text/javascript; charset=utf-8");
  // The page loads only its own files: every src and href is a bare name
  // that the server has (no CDN, no other origin, no inline script).
  std::regex ref(R"re((?:src|href)="([^"]*)")re");
  int refs = 0;
  for (std::sregex_iterator it(page.body.begin(), page.body.end(), ref), end; it != end; ++it) {
    std::string target = (*it)[1];
    EXPECT_EQ(target.find(':'), std::string::npos) << target;
    EXPECT_EQ(target.find('/'), std::string::npos) << target;
    EXPECT_EQ(Fetch("GET", server_->url("/ui/" + target)).head.status, 200) << target;
    ++refs;
  }
  EXPECT_GE(refs, 3);
  EXPECT_EQ(page.body.find("<script>"), std::string::npos) << "no inline script";
  EXPECT_EQ(page.body.find("style="), std::string::npos) << "no inline style";
}

TEST_F(ServeInspector, NoPathUnderUiReachesAnythingButTheEmbeddedFiles) {
  for (const char* path : {"/ui/../v1/sessions", "/ui/%2e%2e/v1/sessions", "/ui/..%2fv1%2fsessions",
                           "/ui//etc/passwd", "/ui/nope.js", "/ui/index.html/", "/ui/app.js%00.html",
                           "/ui/.%2e/CMakeLists.txt", "/ui/ui_assets.cc"}) {
    std::string raw = Raw(std::string("GET ") + path + " HTTP/1.1\r\nHost: " + Host() + "\r\n");
    int status = StatusOf(raw);
    EXPECT_TRUE(status == 404 || status == 400) << path << ": " << raw.substr(0, 200);
    EXPECT_EQ(raw.find("\"sessions\""), std::string::npos) << path;
    EXPECT_EQ(raw.find("root:"), std::string::npos) << path;
  }
  auto redirect = Fetch("GET", server_->url("/ui"));
  // The client may follow it; either way the page is reached under /ui/.
  EXPECT_TRUE(redirect.head.status == 308 || redirect.head.status == 200) << redirect.head.status;
  std::string moved = Raw("GET /ui?session=s1 HTTP/1.1\r\nHost: " + Host() + "\r\n");
  EXPECT_EQ(StatusOf(moved), 308);
  EXPECT_NE(moved.find("Location: /ui/?session=s1\r\n"), std::string::npos) << moved;
  EXPECT_EQ(Fetch("POST", server_->url("/ui/"), {{"Content-Type", "text/plain"}}, "x").head.status, 405);
  // A rebound name cannot load the page either.
  EXPECT_EQ(StatusOf(Raw("GET /ui/ HTTP/1.1\r\nHost: evil.example:" +
                         std::to_string(server_->port()) + "\r\n")), 403);
}

TEST_F(ServeInspector, ThePagesOwnOriginStillNeedsTheTokenForTheApi) {
  const std::string origin = "Origin: http://" + Host() + "\r\n";
  EXPECT_EQ(StatusOf(Raw("GET /v1/sessions HTTP/1.1\r\nHost: " + Host() + "\r\n" + origin)), 401);
  EXPECT_EQ(StatusOf(Raw("GET /v1/sessions HTTP/1.1\r\nHost: " + Host() + "\r\n" + origin +
                         "Authorization: Bearer " + kToken + "\r\n")), 200);
  // Another origin is refused whatever it sends.
  EXPECT_EQ(StatusOf(Raw("GET /v1/sessions HTTP/1.1\r\nHost: " + Host() +
                         "\r\nOrigin: http://evil.example\r\nAuthorization: Bearer " + kToken + "\r\n")),
            403);
}

}  // namespace
}  // namespace sepp::servetest
