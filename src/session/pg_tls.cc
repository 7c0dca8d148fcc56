#include "session/pg_tls.h"

#include <arpa/inet.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <chrono>
#include <cstring>

#include <openssl/err.h>
#include <openssl/x509v3.h>

#include "base/fd.h"
#include "base/sigpipe_block.h"

namespace sepp::session {
namespace {

using Clock = std::chrono::steady_clock;

struct CtxFree {
  void operator()(SSL_CTX* ctx) const { SSL_CTX_free(ctx); }
};

int MsLeft(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(left) + 1;
}

bool IsAddress(const std::string& host) {
  unsigned char buf[sizeof(in6_addr)];
  return inet_pton(AF_INET, host.c_str(), buf) == 1 || inet_pton(AF_INET6, host.c_str(), buf) == 1;
}

}  // namespace

std::string SslErrorText() {
  std::string out;
  while (unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    if (!out.empty()) out += "; ";
    out += buf;
  }
  return out.empty() ? "no detail from OpenSSL" : out;
}

Result<SslPtr> StartPgTls(int fd, const PgConfig& config, double timeout_s) {
  if (config.ssl_mode == PgSslMode::kDisable || config.unix_socket()) return SslPtr();
  const std::string who = "the PostgreSQL store " + config.Describe();
  auto deadline = Clock::now() + std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000));
  auto unavailable = [&](const std::string& what) {
    return Error::Make(who + " is unavailable: " + what, "unavailable");
  };

  // SSLRequest: length 8, code 80877103. The answer is one byte, read
  // alone: anything the server sent after it must not be taken as if it
  // had come over TLS (CVE-2021-23222).
  unsigned char request[8] = {0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f};
  if (::send(fd, request, sizeof request, MSG_NOSIGNAL) != static_cast<ssize_t>(sizeof request))
    return unavailable("sending the TLS request: " + ErrnoText(errno));
  char answer = 0;
  for (;;) {
    ssize_t n = ::recv(fd, &answer, 1, 0);
    if (n == 1) break;
    if (n == 0) return unavailable("the server hung up when asked for TLS");
    if (errno == EINTR) continue;
    if (errno != EAGAIN) return unavailable("receiving: " + ErrnoText(errno));
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, MsLeft(deadline)) == 0) return unavailable("no answer to the TLS request");
  }
  if (answer != 'S' && answer != 'N') {
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02x", static_cast<unsigned char>(answer));
    return unavailable(std::string("the server answered the TLS request with byte ") + hex +
                       ": not the PostgreSQL protocol");
  }
  if (answer == 'N') {
    if (config.ssl_mode == PgSslMode::kPrefer) return SslPtr();
    return Error::Make(who + " does not offer TLS, and the URL's sslmode demands it (turn on ssl "
                             "in the server's postgresql.conf, or use sslmode=prefer or disable)",
                       "tls");
  }

  std::unique_ptr<SSL_CTX, CtxFree> ctx(SSL_CTX_new(TLS_client_method()));
  if (!ctx) return Error::Make("TLS set-up failed: " + SslErrorText(), "tls");
  SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION);
  bool verify = config.ssl_mode == PgSslMode::kVerifyCa || config.ssl_mode == PgSslMode::kVerifyFull;
  if (verify) {
    int loaded = config.ssl_root_cert == "system"
                     ? SSL_CTX_set_default_verify_paths(ctx.get())
                     : SSL_CTX_load_verify_locations(ctx.get(), config.ssl_root_cert.c_str(), nullptr);
    if (loaded != 1)
      return Error::Make("sslmode=" +
                             std::string(config.ssl_mode == PgSslMode::kVerifyCa ? "verify-ca"
                                                                                 : "verify-full") +
                             " needs CA certificates to check " + who + " with, and sslrootcert=" +
                             config.ssl_root_cert + " gives none (" + SslErrorText() +
                             "): give a PEM file of the CA that signed the server's certificate",
                         "tls");
    SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
  }
  SslPtr ssl(SSL_new(ctx.get()));
  if (!ssl || SSL_set_fd(ssl.get(), fd) != 1)
    return Error::Make("TLS set-up failed: " + SslErrorText(), "tls");
  SSL_set_mode(ssl.get(), SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  bool address = IsAddress(config.host);
  if (!address) SSL_set_tlsext_host_name(ssl.get(), config.host.c_str());
  if (config.ssl_mode == PgSslMode::kVerifyFull) {
    X509_VERIFY_PARAM* param = SSL_get0_param(ssl.get());
    int ok = address ? X509_VERIFY_PARAM_set1_ip_asc(param, config.host.c_str())
                     : X509_VERIFY_PARAM_set1_host(param, config.host.c_str(), 0);
    if (ok != 1) return Error::Make("TLS set-up failed: " + SslErrorText(), "tls");
  }
  SigpipeBlock no_sigpipe;  // OpenSSL writes with write(2)
  for (;;) {
    ERR_clear_error();
    int rc = SSL_connect(ssl.get());
    if (rc == 1) break;
    int err = SSL_get_error(ssl.get(), rc);
    if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {
      pollfd p{fd, static_cast<short>(err == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT), 0};
      if (::poll(&p, 1, MsLeft(deadline)) == 0) return unavailable("the TLS handshake timed out");
      continue;
    }
    long verified = SSL_get_verify_result(ssl.get());
    if (verify && verified != X509_V_OK) {
      std::string why = X509_verify_cert_error_string(verified);
      std::string fix = verified == X509_V_ERR_HOSTNAME_MISMATCH || verified == X509_V_ERR_IP_ADDRESS_MISMATCH
                            ? "connect by a name the certificate holds, or use sslmode=verify-ca"
                            : "sslrootcert must be the CA that signed the server's certificate";
      return Error::Make(who + " refused: its TLS certificate does not verify (" + why +
                             "; sslrootcert=" + config.ssl_root_cert + "): " + fix,
                         "tls");
    }
    bool eof = ERR_GET_REASON(ERR_peek_error()) == SSL_R_UNEXPECTED_EOF_WHILE_READING;
    if (err == SSL_ERROR_SYSCALL || err == SSL_ERROR_ZERO_RETURN || eof) {
      ERR_clear_error();
      return unavailable("the server hung up during the TLS handshake");
    }
    return Error::Make(who + ": the TLS handshake failed: " + SslErrorText(), "tls");
  }
  return ssl;
}

}  // namespace sepp::session
