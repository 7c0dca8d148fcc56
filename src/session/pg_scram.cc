#include "session/pg_scram.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include "base/strings.h"

namespace sepp::session {
namespace {

std::string Hmac(std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &len);
  return std::string(reinterpret_cast<char*>(out), len);
}

std::string Sha256Raw(std::string_view data) {
  unsigned char out[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), out);
  return std::string(reinterpret_cast<char*>(out), sizeof out);
}

// The attribute `name` ("r", "s", "i", "v", "e") of a SCRAM message.
std::string Attribute(std::string_view message, char name) {
  for (const std::string& part : Split(message, ',')) {
    if (part.size() >= 2 && part[0] == name && part[1] == '=') return part.substr(2);
  }
  return "";
}

Error AuthError(std::string what) {
  return Error::Make("PostgreSQL SCRAM-SHA-256 authentication failed: " + what, "auth");
}

}  // namespace

std::string Base64Encode(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3), '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(bytes.data()),
                          static_cast<int>(bytes.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

bool Base64Decode(std::string_view text, std::string* out) {
  if (text.size() % 4 != 0) return false;
  std::string buf(3 * (text.size() / 4), '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(buf.data()),
                          reinterpret_cast<const unsigned char*>(text.data()),
                          static_cast<int>(text.size()));
  if (n < 0) return false;
  size_t len = static_cast<size_t>(n);
  // EVP_DecodeBlock counts the padding as zero bytes.
  for (size_t i = text.size(); i > 0 && text[i - 1] == '='; --i) --len;
  buf.resize(len);
  *out = std::move(buf);
  return true;
}

ScramClient::ScramClient(std::string password, std::string nonce, std::string user)
    : password_(std::move(password)), nonce_(std::move(nonce)), user_(std::move(user)) {
  if (nonce_.empty()) {
    unsigned char raw[18];
    RAND_bytes(raw, sizeof raw);
    nonce_ = Base64Encode(std::string_view(reinterpret_cast<char*>(raw), sizeof raw));
  }
}

std::string ScramClient::First() {
  first_bare_ = "n=" + user_ + ",r=" + nonce_;
  return "n,," + first_bare_;
}

Result<std::string> ScramClient::Final(std::string_view server_first) {
  std::string nonce = Attribute(server_first, 'r');
  std::string salt_b64 = Attribute(server_first, 's');
  std::string iterations_text = Attribute(server_first, 'i');
  if (nonce.size() <= nonce_.size() || nonce.compare(0, nonce_.size(), nonce_) != 0)
    return AuthError("the server's nonce does not extend the client's");
  std::string salt;
  if (salt_b64.empty() || !Base64Decode(salt_b64, &salt))
    return AuthError("the server sent no valid salt");
  if (iterations_text.empty() || iterations_text.size() > 7 ||
      iterations_text.find_first_not_of("0123456789") != std::string::npos)
    return AuthError("the server sent no valid iteration count");
  int iterations = std::stoi(iterations_text);
  if (iterations < 1) return AuthError("the server sent an iteration count below 1");

  unsigned char salted[32];
  PKCS5_PBKDF2_HMAC(password_.data(), static_cast<int>(password_.size()),
                    reinterpret_cast<const unsigned char*>(salt.data()),
                    static_cast<int>(salt.size()), iterations, EVP_sha256(), sizeof salted, salted);
  std::string_view salted_password(reinterpret_cast<char*>(salted), sizeof salted);
  std::string client_key = Hmac(salted_password, "Client Key");
  std::string stored_key = Sha256Raw(client_key);
  std::string without_proof = "c=biws,r=" + nonce;  // biws = base64("n,,")
  std::string auth_message = first_bare_ + "," + std::string(server_first) + "," + without_proof;
  std::string signature = Hmac(stored_key, auth_message);
  std::string proof = client_key;
  for (size_t i = 0; i < proof.size(); ++i) proof[i] = static_cast<char>(proof[i] ^ signature[i]);
  server_signature_ = Hmac(Hmac(salted_password, "Server Key"), auth_message);
  return without_proof + ",p=" + Base64Encode(proof);
}

Status ScramClient::Verify(std::string_view server_final) const {
  if (std::string e = Attribute(server_final, 'e'); !e.empty())
    return AuthError("the server said " + e);
  std::string v;
  if (!Base64Decode(Attribute(server_final, 'v'), &v) || v.empty() || v != server_signature_)
    return AuthError("the server's signature is wrong (it does not know the password)");
  return Ok();
}

}  // namespace sepp::session
