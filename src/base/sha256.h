// SHA-256 (FIPS 180-4), for content keys: the trust store keys a project's
// configuration to the hash of its files. Small and dependency-free, so the
// lowest layer can use it without OpenSSL.
#pragma once
#include <string>
#include <string_view>

namespace sepp {

class Sha256 {
 public:
  Sha256();
  void Update(std::string_view data);
  std::string HexDigest();  // ends the hash: 64 lowercase hex digits

 private:
  void Block(const unsigned char* p);
  unsigned int h_[8];
  unsigned char buf_[64];
  size_t used_ = 0;
  unsigned long long bytes_ = 0;
};

std::string Sha256Hex(std::string_view data);

}  // namespace sepp
