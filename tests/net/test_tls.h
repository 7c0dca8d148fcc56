// TLS helpers for net tests: a throwaway CA and server certificates made
// with OpenSSL at test time, and a tiny blocking TLS server.
#pragma once
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "test_sockets.h"

namespace sepp::net::testing {

struct KeyAndCert {
  EVP_PKEY* key = nullptr;
  X509* cert = nullptr;
  std::string cert_pem;
};

inline void AddExt(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
}

// Makes a certificate for `cn`, signed by `issuer` (self-signed if null).
// san: "DNS:localhost,IP:127.0.0.1"; is_ca adds CA basic constraints.
inline KeyAndCert MakeCert(const std::string& cn, const std::string& san, bool is_ca, const KeyAndCert* issuer) {
  KeyAndCert out;
  out.key = EVP_EC_gen("P-256");
  X509* c = X509_new();
  X509_set_version(c, 2);
  static std::atomic<long> serial{1000};
  ASN1_INTEGER_set(X509_get_serialNumber(c), serial++);
  X509_gmtime_adj(X509_getm_notBefore(c), -3600);
  X509_gmtime_adj(X509_getm_notAfter(c), 86400);
  X509_set_pubkey(c, out.key);
  X509_NAME* name = X509_get_subject_name(c);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0);
  X509_set_issuer_name(c, issuer ? X509_get_subject_name(issuer->cert) : name);
  X509* issuer_cert = issuer ? issuer->cert : c;
  if (is_ca) {
    AddExt(c, issuer_cert, NID_basic_constraints, "critical,CA:TRUE");
    AddExt(c, issuer_cert, NID_key_usage, "critical,keyCertSign,cRLSign");
  } else {
    AddExt(c, issuer_cert, NID_basic_constraints, "CA:FALSE");
    AddExt(c, issuer_cert, NID_ext_key_usage, "serverAuth");
  }
  if (!san.empty()) AddExt(c, issuer_cert, NID_subject_alt_name, san.c_str());
  X509_sign(c, issuer ? issuer->key : out.key, EVP_sha256());
  out.cert = c;
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_X509(bio, c);
  char* data = nullptr;
  long len = BIO_get_mem_data(bio, &data);
  out.cert_pem.assign(data, static_cast<size_t>(len));
  BIO_free(bio);
  return out;
}

// Serves TLS connections on 127.0.0.1 until destroyed; for each, reads the
// request head and sends `answer(head)`. Records the SNI names it saw.
class TlsServer {
 public:
  TlsServer(const KeyAndCert& leaf, std::function<std::string(const std::string&)> answer)
      : answer_(std::move(answer)) {
    // The client may be gone when we write (close_notify to a closed
    // connection): an error, not a SIGPIPE that ends the test binary.
    signal(SIGPIPE, SIG_IGN);
    ctx_ = SSL_CTX_new(TLS_server_method());
    SSL_CTX_use_certificate(ctx_, leaf.cert);
    SSL_CTX_use_PrivateKey(ctx_, leaf.key);
    listen_fd_ = ListenLocal(&port_);
    thread_ = std::thread([this] { Loop(); });
  }
  ~TlsServer() {
    stop_ = true;
    shutdown(listen_fd_, SHUT_RDWR);
    int active = active_fd_.load();
    if (active >= 0) shutdown(active, SHUT_RDWR);  // a client may keep it open
    thread_.join();
    close(listen_fd_);
    SSL_CTX_free(ctx_);
  }
  int port() const { return port_; }
  std::vector<std::string> sni() {
    std::lock_guard<std::mutex> lock(mu_);
    return sni_;
  }

 private:
  void Loop() {
    while (!stop_) {
      int c = accept(listen_fd_, nullptr, nullptr);
      if (c < 0) return;
      active_fd_ = c;
      if (stop_) shutdown(c, SHUT_RDWR);
      SSL* ssl = SSL_new(ctx_);
      SSL_set_fd(ssl, c);
      if (SSL_accept(ssl) == 1) {
        const char* name = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name);
        {
          std::lock_guard<std::mutex> lock(mu_);
          sni_.push_back(name ? name : "");
        }
        // Requests on this connection while the answers let the client
        // keep it (HTTP/1.1 with a Content-Length or chunked, no
        // "Connection: close").
        for (;;) {
          std::string head;
          char ch;
          while (head.find("\r\n\r\n") == std::string::npos && SSL_read(ssl, &ch, 1) == 1) head.push_back(ch);
          if (head.find("\r\n\r\n") == std::string::npos) break;  // the client closed
          std::string reply = answer_(head);
          SSL_write(ssl, reply.data(), static_cast<int>(reply.size()));
          bool keep = reply.rfind("HTTP/1.1", 0) == 0 &&
                      (reply.find("Content-Length:") != std::string::npos ||
                       reply.find("Transfer-Encoding: chunked") != std::string::npos) &&
                      reply.find("Connection: close") == std::string::npos;
          if (!keep) break;
        }
        SSL_shutdown(ssl);
      }
      SSL_free(ssl);
      active_fd_ = -1;
      close(c);
    }
  }

  SSL_CTX* ctx_;
  std::function<std::string(const std::string&)> answer_;
  int listen_fd_ = -1, port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> active_fd_{-1};
  std::thread thread_;
  std::mutex mu_;
  std::vector<std::string> sni_;
};

}  // namespace sepp::net::testing
