// Internal to src/session: TLS for a PostgreSQL connection (pg_conn.cc), as
// the config's sslmode asks (pg_url.h): the SSLRequest exchange on a freshly
// connected TCP socket, then the OpenSSL handshake, verifying the server's
// certificate against sslrootcert (verify-ca) and its name (verify-full).
#pragma once
#include <memory>

#include <openssl/ssl.h>

#include "base/result.h"
#include "session/pg_url.h"

namespace sepp::session {

struct SslFree {
  void operator()(SSL* ssl) const { SSL_free(ssl); }
};
using SslPtr = std::unique_ptr<SSL, SslFree>;

// Asks the server on fd (connected, non-blocking) for TLS and shakes hands,
// waiting at most timeout_s. nullptr when the connection stays plain: the
// mode is disable, or prefer and the server does not offer TLS. Errors:
// kind "tls" when the mode's demand is not met (no TLS offered, a
// certificate that does not verify or does not name the host, no CA file),
// "unavailable" when the server does not answer or hangs up.
Result<SslPtr> StartPgTls(int fd, const PgConfig& config, double timeout_s);

// The text of OpenSSL's last error on this thread (and clears the queue).
std::string SslErrorText();

}  // namespace sepp::session
