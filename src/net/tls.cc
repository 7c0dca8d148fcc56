// CA certificates: SSL_CERT_FILE and SSL_CERT_DIR win when set (as with the
// openssl tool); otherwise the first bundle found among the usual places of
// the major distributions, then the hashed directory /etc/ssl/certs. A
// static binary cannot rely on OpenSSL's compiled-in default directory (it
// names the build machine's layout), hence the probing.
#include "net/tls.h"

#include <sys/stat.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <string>

#include <openssl/err.h>

namespace sepp::net {
namespace {

const char* const kBundles[] = {
    "/etc/ssl/certs/ca-certificates.crt",                 // Debian, Ubuntu, Arch, Gentoo
    "/etc/pki/tls/certs/ca-bundle.crt",                   // Fedora, RHEL, CentOS
    "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",  // RHEL 7+
    "/etc/ssl/ca-bundle.pem",                             // openSUSE
    "/etc/pki/tls/cacert.pem",                            // OpenELEC
    "/etc/ssl/cert.pem",                                  // Alpine, macOS, BSDs
};
const char* const kDirs[] = {"/etc/ssl/certs", "/etc/pki/tls/certs"};

bool IsFile(const char* p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}
bool IsDir(const char* p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

struct CaSource {
  std::string file, dir;
  std::string description;
};

CaSource PickCaSource() {
  CaSource s;
  const char* env_file = std::getenv("SSL_CERT_FILE");
  const char* env_dir = std::getenv("SSL_CERT_DIR");
  if ((env_file && *env_file) || (env_dir && *env_dir)) {
    if (env_file && *env_file) {
      s.file = env_file;
      s.description = std::string("SSL_CERT_FILE=") + env_file;
    }
    if (env_dir && *env_dir) {
      s.dir = env_dir;
      if (!s.description.empty()) s.description += ", ";
      s.description += std::string("SSL_CERT_DIR=") + env_dir;
    }
    return s;
  }
  for (const char* b : kBundles) {
    if (IsFile(b)) {
      s.file = b;
      s.description = std::string("file ") + b;
      return s;
    }
  }
  for (const char* d : kDirs) {
    if (IsDir(d)) {
      s.dir = d;
      s.description = std::string("directory ") + d;
      return s;
    }
  }
  return s;
}

std::string OpenSslErrors() {
  std::string out;
  while (unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    if (!out.empty()) out += "; ";
    out += buf;
  }
  return out;
}

}  // namespace

std::string DescribeCaSource() {
  CaSource s = PickCaSource();
  return s.description.empty() ? "none found" : s.description;
}

Result<SSL_CTX*> ClientTlsContext() {
  static std::mutex mu;
  static std::map<std::string, SSL_CTX*> contexts;  // never freed: process lifetime
  CaSource src = PickCaSource();
  // The key includes the bundle's identity, so a replaced file is reloaded.
  std::string key = src.file + '\n' + src.dir;
  struct stat st;
  if (!src.file.empty() && stat(src.file.c_str(), &st) == 0) {
    key += '\n' + std::to_string(st.st_ino) + ':' + std::to_string(st.st_size) + ':' +
           std::to_string(st.st_mtim.tv_sec) + '.' + std::to_string(st.st_mtim.tv_nsec);
  }
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = contexts.find(key); it != contexts.end()) return it->second;

  if (src.file.empty() && src.dir.empty()) {
    return Error::Make(
        "no CA certificates found (looked for /etc/ssl/certs/ca-certificates.crt and the other usual "
        "bundles) — install the ca-certificates package or set SSL_CERT_FILE",
        "tls");
  }
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  if (!ctx) return Error::Make("cannot create a TLS context: " + OpenSslErrors(), "tls");
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
  // A peer closing without close_notify is reported as a plain EOF; the HTTP
  // framing (Content-Length, chunked) detects truncated bodies itself.
  SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
  SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  if (SSL_CTX_load_verify_locations(ctx, src.file.empty() ? nullptr : src.file.c_str(),
                                    src.dir.empty() ? nullptr : src.dir.c_str()) != 1) {
    std::string err = OpenSslErrors();
    SSL_CTX_free(ctx);
    return Error::Make("cannot load CA certificates from " + src.description + ": " + err +
                           " — check the file or set SSL_CERT_FILE to a PEM bundle",
                       "tls");
  }
  contexts[key] = ctx;
  return ctx;
}

}  // namespace sepp::net
