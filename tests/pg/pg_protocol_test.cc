// The PostgreSQL protocol client (src/session/pg_*): its URL parser and
// SCRAM against hostile input, then a real server: trust over the socket,
// SCRAM over TCP (right, wrong and missing password), queries with
// parameters, server errors, LISTEN/NOTIFY, and fake servers that break the
// protocol.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thread>

#include "pg/pg_cluster.h"
#include "session/pg_conn.h"
#include "session/pg_scram.h"
#include "session/pg_url.h"

namespace sepp::session {
namespace {

using pgtest::PgCluster;

TEST(PgUrl, ReadsEveryForm) {
  auto c = ParsePgUrl("postgres://alice:s%40cret@db.example:6543/events?connect_timeout=3&pool_size=8");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->user, "alice");
  EXPECT_EQ(c->password, "s@cret");
  EXPECT_EQ(c->host, "db.example");
  EXPECT_EQ(c->port, 6543);
  EXPECT_EQ(c->database, "events");
  EXPECT_EQ(c->connect_timeout_s, 3);
  EXPECT_EQ(c->pool_size, 8);
  EXPECT_EQ(c->Describe().find("s@cret"), std::string::npos) << "no password in messages";

  auto sock = ParsePgUrl("postgresql://bob@%2Ftmp%2Fpg/x");
  ASSERT_TRUE(sock.ok());
  EXPECT_TRUE(sock->unix_socket());
  EXPECT_EQ(sock->host, "/tmp/pg");
  auto q = ParsePgUrl("postgres:///x?host=/run/pg&port=7000&user=carol");
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->host, "/run/pg");
  EXPECT_EQ(q->port, 7000);
  EXPECT_EQ(q->user, "carol");
  auto v6 = ParsePgUrl("postgres://u@[::1]:5433/d");
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->port, 5433);
  auto bare = ParsePgUrl("postgres://");
  ASSERT_TRUE(bare.ok());
  EXPECT_EQ(bare->host, "/var/run/postgresql");
  EXPECT_FALSE(bare->user.empty());
  EXPECT_EQ(bare->database, bare->user);
  EXPECT_EQ(bare->ssl_mode, PgSslMode::kPrefer) << "libpq's default";

  auto tls = ParsePgUrl("postgres://u@db/d?sslmode=verify-full&sslrootcert=%2Fetc%2Fca.pem"
                        "&synchronous_commit=off&outbox_kb=128");
  ASSERT_TRUE(tls.ok()) << tls.error().message;
  EXPECT_EQ(tls->ssl_mode, PgSslMode::kVerifyFull);
  EXPECT_EQ(tls->ssl_root_cert, "/etc/ca.pem");
  EXPECT_EQ(tls->synchronous_commit, "off");
  EXPECT_EQ(tls->outbox_max_bytes, 128u << 10);
}

TEST(PgUrl, RefusesHostileUrlsSayingWhy) {
  struct Case {
    const char* url;
    const char* says;
  } cases[] = {
      {"mysql://x/y", "postgres://"},
      {"postgres://u@h:99999/d", "between 1 and 65535"},
      {"postgres://u@h:12ab/d", "not a number"},
      {"postgres://u@h:/d", "not a number"},
      {"postgres://u%zz@h/d", "percent escape"},
      {"postgres://u@h/d%4", "percent escape"},
      {"postgres://u@[::1/d", "without ']'"},
      {"postgres://u@h/d?sslcert=client.crt", "unknown parameter"},
      {"postgres://u@h/d?sslmode=allow", "verify-full"},
      {"postgres://u@h/d?sslmode=", "not one sepp speaks"},
      {"postgres://u@h/d?synchronous_commit=maybe", "on, off, local"},
      {"postgres://u@h/d?outbox_kb=0", "between 1 and"},
      {"postgres://u@h/d?pool_size=0", "between 1 and 64"},
      {"postgres://u@h/d?connect_timeout=99999999999", "not a number"},
  };
  for (const auto& c : cases) {
    auto r = ParsePgUrl(c.url);
    ASSERT_FALSE(r.ok()) << c.url;
    EXPECT_EQ(r.error().kind, "invalid_argument") << c.url;
    EXPECT_NE(r.error().message.find(c.says), std::string::npos) << c.url << ": " << r.error().message;
  }
  // A URL-length of junk is refused, not crashed on.
  std::string junk = "postgres://" + std::string(100000, '%');
  EXPECT_FALSE(ParsePgUrl(junk).ok());
}

TEST(Scram, MatchesRfc7677) {
  // RFC 7677 section 3: user "user", password "pencil".
  ScramClient c("pencil", "rOprNGfwEbeRWgbNEkqO", "user");
  EXPECT_EQ(c.First(), "n,,n=user,r=rOprNGfwEbeRWgbNEkqO");
  auto final = c.Final(
      "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096");
  ASSERT_TRUE(final.ok()) << final.error().message;
  EXPECT_EQ(*final,
            "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
            "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=");
  EXPECT_TRUE(c.Verify("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=").ok());
  Status forged = c.Verify("v=AAAATRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=");
  ASSERT_FALSE(forged.ok()) << "a server that does not know the password is caught";
  EXPECT_EQ(forged.error().kind, "auth");
  EXPECT_FALSE(c.Verify("e=invalid-proof").ok());
}

TEST(Scram, RefusesAServerThatBreaksTheExchange) {
  for (const char* bad : {
           "r=someoneelse,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",        // foreign nonce
           "r=abc,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",                // our nonce, nothing added
           "r=abcXYZ,s=@@@@,i=4096",                                 // bad salt
           "r=abcXYZ,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=0",                // no iterations
           "r=abcXYZ,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=99999999999",      // absurd count
           "r=abcXYZ,s=W22ZaJ0SNY7soEsUEjb6gQ==",                    // missing
           "",
       }) {
    ScramClient c("pw", "abc");
    c.First();
    auto f = c.Final(bad);
    ASSERT_FALSE(f.ok()) << bad;
    EXPECT_EQ(f.error().kind, "auth") << bad;
  }
  ScramClient ok("pw", "abc");
  ok.First();
  EXPECT_TRUE(ok.Final("r=abcXYZ,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=16").ok());
}

class PgConnTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string m = PgCluster::MissingBinaries(); !m.empty()) GTEST_SKIP() << m;
  }
  static PgConfig Config(const std::string& url) {
    auto c = ParsePgUrl(url);
    EXPECT_TRUE(c.ok());
    c->connect_timeout_s = 5;
    c->statement_timeout_s = 10;
    return *c;
  }
};

TEST_F(PgConnTest, QueriesWithParametersOverTheSocket) {
  auto c = PgConn::Connect(Config(pgtest::SharedCluster()->socket_url()));
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_GT((*c)->backend_pid(), 0);
  auto r = (*c)->Exec("SELECT 1 AS one, 'two' AS two; SELECT 3");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->rows.size(), 1u);
  EXPECT_EQ(r->rows[0][0], "3") << "the last statement's rows";

  // Parameters travel as data, never as SQL: quotes, NULL, UTF-8, a long one.
  std::string tricky = "it's'); DROP TABLE x; --  \xc3\xa9\xe2\x82\xac";
  std::string big(1 << 20, 'b');
  for (int round = 0; round < 2; ++round) {  // the second time on the kept statement
    auto p = (*c)->Query("SELECT $1::text, $2::text IS NULL, length($3::text), $4::int + 1",
                         {tricky, std::nullopt, big, "41"});
    ASSERT_TRUE(p.ok()) << p.error().message;
    ASSERT_EQ(p->rows.size(), 1u);
    EXPECT_EQ(p->rows[0][0], tricky);
    EXPECT_EQ(p->rows[0][1], "t");
    EXPECT_EQ(p->rows[0][2], std::to_string(big.size()));
    EXPECT_EQ(p->rows[0][3], "42");
  }
  auto null = (*c)->Query("SELECT NULL::text", {});
  ASSERT_TRUE(null.ok());
  EXPECT_FALSE(null->rows[0][0].has_value());
}

// The URL's synchronous_commit is set for sepp's connection only (a startup
// parameter), not for the server.
TEST_F(PgConnTest, TheUrlsSynchronousCommitIsThisConnectionsOwn) {
  // The test cluster runs with synchronous_commit = off (kTestConf).
  auto local = PgConn::Connect(Config(pgtest::SharedCluster()->socket_url() + "?synchronous_commit=local"));
  ASSERT_TRUE(local.ok()) << local.error().message;
  auto plain = PgConn::Connect(Config(pgtest::SharedCluster()->socket_url()));
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  auto a = (*local)->Exec("SHOW synchronous_commit");
  auto b = (*plain)->Exec("SHOW synchronous_commit");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->rows[0][0], "local");
  EXPECT_EQ(b->rows[0][0], "off");
}

TEST_F(PgConnTest, ServerErrorsCarryTheirStateAndLeaveTheConnectionUsable) {
  auto c = PgConn::Connect(Config(pgtest::SharedCluster()->socket_url()));
  ASSERT_TRUE(c.ok()) << c.error().message;
  auto missing = (*c)->Query("SELECT * FROM no_such_table_here", {});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind, "pg_42P01");
  EXPECT_NE(missing.error().message.find("no_such_table_here"), std::string::npos);
  auto syntax = (*c)->Exec("SELEC oops");
  ASSERT_FALSE(syntax.ok());
  EXPECT_EQ(syntax.error().kind, "pg_42601");
  auto bad_param = (*c)->Query("SELECT $1::int", {"not a number"});
  ASSERT_FALSE(bad_param.ok());
  EXPECT_EQ(bad_param.error().kind, "pg_22P02");
  EXPECT_FALSE((*c)->broken());
  auto fine = (*c)->Query("SELECT $1::int * 2", {"21"});
  ASSERT_TRUE(fine.ok()) << fine.error().message;
  EXPECT_EQ(fine->rows[0][0], "42");
}

TEST_F(PgConnTest, ScramOverTcpNeedsTheRightPassword) {
  auto good = PgConn::Connect(Config(pgtest::SharedCluster()->tcp_url(true)));
  ASSERT_TRUE(good.ok()) << good.error().message;
  auto method = (*good)->Exec("SHOW password_encryption");
  ASSERT_TRUE(method.ok());
  EXPECT_EQ(method->rows[0][0], "scram-sha-256");

  PgConfig wrong = Config(pgtest::SharedCluster()->tcp_url(false));
  wrong.password = "not-the-password-91c2";
  auto refused = PgConn::Connect(wrong);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().kind, "auth");
  EXPECT_NE(refused.error().message.find("password authentication failed"), std::string::npos)
      << refused.error().message;
  EXPECT_EQ(refused.error().message.find("not-the-password-91c2"), std::string::npos);

  PgConfig none = Config(pgtest::SharedCluster()->tcp_url(false));
  none.password.clear();
  auto asked = PgConn::Connect(none);
  ASSERT_FALSE(asked.ok());
  EXPECT_NE(asked.error().message.find("PGPASSWORD"), std::string::npos) << asked.error().message;
}

TEST_F(PgConnTest, ListenHearsAnotherConnectionsNotify) {
  auto listener = PgConn::Connect(Config(pgtest::SharedCluster()->socket_url()));
  auto talker = PgConn::Connect(Config(pgtest::SharedCluster()->tcp_url(true)));
  ASSERT_TRUE(listener.ok() && talker.ok());
  ASSERT_TRUE((*listener)->Exec("LISTEN test_channel").ok());
  auto quiet = (*listener)->WaitNotifications(0.05);
  ASSERT_TRUE(quiet.ok());
  EXPECT_TRUE(quiet->empty()) << "a quiet channel times out empty";
  ASSERT_TRUE((*talker)->Query("SELECT pg_notify('test_channel', $1)", {"hello 1"}).ok());
  ASSERT_TRUE((*talker)->Query("SELECT pg_notify('other_channel', 'x')", {}).ok());
  auto heard = (*listener)->WaitNotifications(10);
  ASSERT_TRUE(heard.ok()) << heard.error().message;
  ASSERT_EQ(heard->size(), 1u);
  EXPECT_EQ((*heard)[0].channel, "test_channel");
  EXPECT_EQ((*heard)[0].payload, "hello 1");
  EXPECT_EQ((*heard)[0].pid, (*talker)->backend_pid());
}

// A loopback server that answers the startup message with `reply`, then
// hangs up.
class FakePg {
 public:
  explicit FakePg(std::string reply) : reply_(std::move(reply)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    socklen_t len = sizeof a;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    ::listen(fd_, 1);
    thread_ = std::thread([this] {
      int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      char buf[512];
      (void)!::read(c, buf, sizeof buf);
      (void)!::write(c, reply_.data(), reply_.size());
      ::close(c);  // and nothing more
    });
  }
  ~FakePg() {
    ::shutdown(fd_, SHUT_RDWR);
    thread_.join();
    ::close(fd_);
  }
  PgConfig config() const {
    PgConfig c;
    c.host = "127.0.0.1";
    c.port = port_;
    c.user = "u";
    c.database = "d";
    c.password = "pw";
    c.connect_timeout_s = 5;
    c.ssl_mode = PgSslMode::kDisable;  // the startup message comes first
    return c;
  }

 private:
  std::string reply_;
  int fd_ = -1;
  int port_ = 0;
  std::thread thread_;
};

TEST(PgHostileServer, BrokenAnswersGiveClearErrors) {
  struct Case {
    std::string reply;
    const char* says;
  } cases[] = {
      {std::string("R\xff\xff\xff\xff", 5), "not the PostgreSQL protocol"},
      {std::string("R\0\0\0\x08\0\0\0\x07", 9), "authentication method 7"},
      {std::string("R\0\0\0\x0c\0\0\0\x0aXYZ\0", 13), "no SASL mechanism"},
      {std::string("Q\0\0\0\x04", 5), "unexpected message"},
      {std::string("HTTP/1.1 400 Bad Request\r\n\r\n"), "not the PostgreSQL protocol"},
      {std::string("R\0\0\0\x08", 5), "closed the connection"},  // cut short
  };
  for (const auto& c : cases) {
    FakePg server(c.reply);
    auto r = PgConn::Connect(server.config());
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find(c.says), std::string::npos) << r.error().message;
  }
  // The TLS request (sslmode prefer and up) answered wrongly.
  struct TlsCase {
    std::string reply;
    PgSslMode mode;
    const char* says;
    const char* kind;
  } tls_cases[] = {
      {"R", PgSslMode::kPrefer, "answered the TLS request with byte 0x52", "unavailable"},
      {"", PgSslMode::kRequire, "hung up when asked for TLS", "unavailable"},
      {"N", PgSslMode::kRequire, "does not offer TLS", "tls"},
      {"N", PgSslMode::kPrefer, "closed the connection", "unavailable"},  // plain, then nothing
      {"Sthis is no TLS record at all", PgSslMode::kRequire, "TLS handshake failed", "tls"},
      {"S", PgSslMode::kVerifyFull, "TLS", "unavailable"},  // hangs up mid-handshake
  };
  for (const auto& c : tls_cases) {
    FakePg server(c.reply);
    PgConfig config = server.config();
    config.ssl_mode = c.mode;
    config.ssl_root_cert = "system";
    auto r = PgConn::Connect(config);
    ASSERT_FALSE(r.ok()) << c.reply;
    EXPECT_NE(r.error().message.find(c.says), std::string::npos) << r.error().message;
    EXPECT_EQ(r.error().kind, c.kind) << r.error().message;
  }
}

// Random answers, at startup and in the middle of a query (after a valid
// login): every one ends in an error that says something, never a crash or
// a hang (the fake hangs up after its bytes).
TEST(PgHostileServer, RandomAnswersFailCleanly) {
  const std::string login = std::string("R\0\0\0\x08\0\0\0\0", 9) + std::string("Z\0\0\0\x05I", 6);
  uint64_t state = 0x9e3779b97f4a7c15ull;
  auto next = [&] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  const std::string types = "RZEDTCANS12nIK";
  for (int round = 0; round < 120; ++round) {
    std::string reply = round % 2 ? login : "";
    size_t messages = 1 + next() % 6;
    for (size_t m = 0; m < messages; ++m) {
      std::string body(next() % 40, '\0');
      for (char& c : body) c = static_cast<char>(next() % 4 == 0 ? 0 : next());
      uint32_t len = htonl(static_cast<uint32_t>(next() % 8 == 0 ? next() : body.size() + 4));
      reply += types[next() % types.size()];
      reply.append(reinterpret_cast<const char*>(&len), 4);
      reply += body;
    }
    FakePg server(reply);
    auto c = PgConn::Connect(server.config());
    if (!c.ok()) {
      EXPECT_FALSE(c.error().message.empty());
      continue;
    }
    auto r = (*c)->Exec("SELECT 1");
    if (!r.ok()) {
      EXPECT_FALSE(r.error().message.empty());
    }
  }
}

TEST(PgHostileServer, NothingListeningIsUnavailable) {
  PgConfig c;
  c.host = "/nonexistent-sepp-pg-dir";
  c.user = "u";
  c.database = "d";
  auto r = PgConn::Connect(c);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, "unavailable");
  EXPECT_NE(r.error().message.find("/nonexistent-sepp-pg-dir"), std::string::npos) << r.error().message;
}

}  // namespace
}  // namespace sepp::session
