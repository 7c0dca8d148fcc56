// TLS to PostgreSQL (session/pg_tls.h) against a throwaway cluster with ssl
// on, its CA and server certificate (for 127.0.0.1) made by the test with
// the openssl command: verify-full with the right CA connects over TLS (the
// server says so) and the store works through it; a wrong CA, a host name
// the certificate does not hold, a missing CA file and a server without TLS
// under sslmode=require each fail with a clear error of kind "tls"; and no
// error carries the password, which is in the URL of every attempt.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>

#include "pg/pg_cluster.h"
#include "session/pg_conn.h"
#include "session/pg_url.h"
#include "session/store.h"

namespace sepp::session {
namespace {

namespace fs = std::filesystem;
using pgtest::PgCluster;

class PgTls : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!PgCluster::MissingBinaries().empty() || std::system("openssl version >/dev/null 2>&1") != 0)
      return;
    char tmpl[] = "/tmp/sepp-pg-tls-XXXXXX";
    certs_ = new std::string(::mkdtemp(tmpl));
    std::string d = *certs_;
    std::ofstream(d + "/server.ext") << "subjectAltName=IP:127.0.0.1\n";
    std::string key = " -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes";
    std::string ca_ext = " -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign";
    std::string script =
        "cd " + d + " && " +
        "openssl req -x509" + key + " -keyout ca.key -out ca.crt -days 2 -subj /CN=sepp-test-ca" + ca_ext +
        " && openssl req -x509" + key + " -keyout other.key -out other.crt -days 2 -subj /CN=sepp-other-ca" + ca_ext +
        " && openssl req" + key + " -keyout server.key -out server.csr -subj /CN=127.0.0.1" +
        " && openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2"
        " -extfile server.ext -out server.crt";
    made_ = std::system((script + " >openssl.out 2>&1").c_str()) == 0;
    if (!made_) return;
    cluster_ = new PgCluster(std::string(PgCluster::kTestConf) +
                             "ssl = on\nssl_cert_file = 'server.crt'\nssl_key_file = 'server.key'\n");
    if (!cluster_->Init().ok()) return;
    for (const char* f : {"server.crt", "server.key"}) {
      std::string to = cluster_->data_dir() + "/" + f;
      fs::copy_file(d + "/" + f, to, fs::copy_options::overwrite_existing);
      cluster_->GiveToServer(to, 0600);
    }
    Status s = cluster_->Start();
    started_ = s.ok();
    if (!s.ok()) start_error_ = new std::string(s.error().message);
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
    if (certs_) {
      std::error_code ec;
      fs::remove_all(*certs_, ec);
    }
  }
  void SetUp() override {
    if (std::string m = PgCluster::MissingBinaries(); !m.empty()) GTEST_SKIP() << m;
    ASSERT_TRUE(certs_) << "the openssl command is missing (scripts/setup installs it)";
    ASSERT_TRUE(made_) << "openssl could not make the certificates: see " << *certs_ << "/openssl.out";
    ASSERT_TRUE(started_) << (start_error_ ? *start_error_ : "no cluster");
  }
  // The TCP URL with the password in it, and more parameters.
  static std::string Url(const std::string& params, const std::string& host = "127.0.0.1") {
    std::string u = cluster_->tcp_url(true);
    size_t at = u.find("@127.0.0.1");
    u.replace(at + 1, 9, host);
    return u + "?" + params;
  }
  static std::string Ca(const char* name) { return *certs_ + "/" + name; }
  static Result<std::unique_ptr<PgConn>> Connect(const std::string& url) {
    auto config = ParsePgUrl(url);
    if (!config.ok()) return config.error();
    return PgConn::Connect(*config);
  }
  // Whether the server sees this connection as TLS.
  static std::string ServerSaysTls(PgConn& c) {
    auto r = c.Query("SELECT ssl::text FROM pg_stat_ssl WHERE pid = pg_backend_pid()");
    EXPECT_TRUE(r.ok()) << r.error().message;
    return r.ok() && !r->rows.empty() && r->rows[0][0] ? *r->rows[0][0] : "?";
  }
  static void ExpectClearTlsError(const Result<std::unique_ptr<PgConn>>& c, const std::string& says) {
    ASSERT_FALSE(c.ok()) << "must not connect";
    EXPECT_EQ(c.error().kind, "tls") << c.error().message;
    EXPECT_NE(c.error().message.find(says), std::string::npos) << c.error().message;
    EXPECT_EQ(c.error().message.find(PgCluster::kPassword), std::string::npos)
        << "the password is in no error: " << c.error().message;
  }

  static std::string* certs_;
  static bool made_, started_;
  static std::string* start_error_;
  static PgCluster* cluster_;
};
std::string* PgTls::certs_ = nullptr;
bool PgTls::made_ = false;
bool PgTls::started_ = false;
std::string* PgTls::start_error_ = nullptr;
PgCluster* PgTls::cluster_ = nullptr;

TEST_F(PgTls, VerifyFullWithTheRightCaConnectsOverTlsAndTheStoreWorks) {
  auto c = Connect(Url("sslmode=verify-full&sslrootcert=" + Ca("ca.crt")));
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(ServerSaysTls(**c), "true");
  for (const char* mode : {"require", "prefer", "verify-ca"}) {
    auto other = Connect(Url(std::string("sslmode=") + mode + "&sslrootcert=" + Ca("ca.crt")));
    ASSERT_TRUE(other.ok()) << mode << ": " << other.error().message;
    EXPECT_EQ(ServerSaysTls(**other), "true") << mode;
  }
  auto plain = Connect(Url("sslmode=disable"));
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  EXPECT_EQ(ServerSaysTls(**plain), "false");

  // The store through TLS: a big entry (many TLS records each way) and back.
  auto store = OpenUrlStore(Url("sslmode=verify-full&sslrootcert=" + Ca("ca.crt")));
  ASSERT_TRUE(store.ok()) << store.error().message;
  auto s = (*store)->Create({"/tmp/tls-project", "anthropic", "m", ""});
  ASSERT_TRUE(s.ok()) << s.error().message;
  std::string big(300000, 'b');
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE((*s)->AppendMessage({{"role", "user"},
                                     {"content", {{{"type", "text"}, {"text", big + std::to_string(i)}}}}})
                    .ok());
  auto back = (*store)->Open((*s)->id(), OpenMode::kReadOnly);
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ((*back)->size(), 3u);
  EXPECT_EQ((*back)->entries()[2].data.get(), (*s)->entries()[2].data.get());
}

TEST_F(PgTls, AWrongCaIsRefusedSayingWhy) {
  ExpectClearTlsError(Connect(Url("sslmode=verify-full&sslrootcert=" + Ca("other.crt"))),
                      "does not verify");
  ExpectClearTlsError(Connect(Url("sslmode=verify-ca&sslrootcert=" + Ca("other.crt"))),
                      "sslrootcert=" + Ca("other.crt"));
  // A store opened so fails the same way: it never falls back to plain.
  auto store = OpenUrlStore(Url("sslmode=verify-full&sslrootcert=" + Ca("other.crt")));
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.error().kind, "tls");
  EXPECT_EQ(store.error().message.find(PgCluster::kPassword), std::string::npos);
}

TEST_F(PgTls, AHostNameTheCertificateDoesNotHoldIsRefusedByVerifyFullOnly) {
  // The certificate names 127.0.0.1; "localhost" reaches the same server.
  ExpectClearTlsError(Connect(Url("sslmode=verify-full&sslrootcert=" + Ca("ca.crt"), "localhost")),
                      "connect by a name the certificate holds");
  auto c = Connect(Url("sslmode=verify-ca&sslrootcert=" + Ca("ca.crt"), "localhost"));
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(ServerSaysTls(**c), "true");
}

TEST_F(PgTls, NoCaFileAndNoTlsOnTheServerFailClearly) {
  ExpectClearTlsError(Connect(Url("sslmode=verify-full&sslrootcert=/nonexistent/root.crt")),
                      "needs CA certificates");
  // The shared cluster has no TLS: require refuses it, prefer goes plain.
  PgCluster* plain = pgtest::SharedCluster();
  ASSERT_TRUE(plain && plain->Start().ok());
  ExpectClearTlsError(Connect(plain->tcp_url(true) + "?sslmode=require"), "does not offer TLS");
  auto c = Connect(plain->tcp_url(true) + "?sslmode=prefer");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(ServerSaysTls(**c), "false");
  auto bad = ParsePgUrl(plain->tcp_url(true) + "?sslmode=allow");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("verify-full"), std::string::npos) << bad.error().message;
  EXPECT_EQ(bad.error().message.find(PgCluster::kPassword), std::string::npos);
}

TEST_F(PgTls, AWrongPasswordOverTlsIsRefusedWithoutShowingIt) {
  std::string url = Url("sslmode=verify-full&sslrootcert=" + Ca("ca.crt"));
  url.replace(url.find(PgCluster::kPassword), std::string(PgCluster::kPassword).size(),
              "wrong-pass-51ac");
  auto c = Connect(url);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().kind, "auth") << c.error().message;
  EXPECT_EQ(c.error().message.find("wrong-pass-51ac"), std::string::npos) << c.error().message;
}

}  // namespace
}  // namespace sepp::session
