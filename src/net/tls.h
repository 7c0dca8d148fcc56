// The client-side TLS context: peer verification against the system's CA
// certificates (or SSL_CERT_FILE / SSL_CERT_DIR), TLS 1.2 or newer.
#pragma once
#include <openssl/ssl.h>

#include "base/result.h"

namespace sepp::net {

// A shared, verifying client context, built once per distinct CA source
// (SSL_CERT_FILE, SSL_CERT_DIR or the probed bundle; a replaced file counts
// as new) and kept for the life of the process.
// Thread-safe. Error kind "tls" when no CA certificates can be found.
Result<SSL_CTX*> ClientTlsContext();

// The CA sources ClientTlsContext() would use, for messages and `sepp doctor`:
// "file /etc/ssl/certs/ca-certificates.crt", "SSL_CERT_FILE=/x.pem", ...
std::string DescribeCaSource();

}  // namespace sepp::net
