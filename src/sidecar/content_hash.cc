#include "sidecar/content_hash.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <mutex>

#include "base/sha256.h"

namespace sepp::sidecar {

std::string ContentHash(std::string_view text) {
  // The sepp binary skips OpenSSL's CPU probe before main
  // (app/lazy_openssl_cpuid.cc); OPENSSL_init_crypto runs it, so the SHA
  // instructions are found before the first digest.
  static std::once_flag init;
  std::call_once(init, [] { OPENSSL_init_crypto(0, nullptr); });
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(text.data(), text.size(), md, &len, EVP_sha256(), nullptr) != 1 || len != 32)
    return Sha256Hex(text);  // OpenSSL could not (no default provider): the portable one
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(64, '0');
  for (unsigned i = 0; i < 32; ++i) {
    out[2 * i] = kHex[md[i] >> 4];
    out[2 * i + 1] = kHex[md[i] & 15];
  }
  return out;
}

}  // namespace sepp::sidecar
