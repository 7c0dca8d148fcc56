// Base64 (RFC 4648, the standard alphabet with '=' padding): binary data in
// JSON, which holds only text (the serve API's file and process bytes).
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace sepp {

std::string Base64Encode(std::string_view bytes);
// nullopt for anything that is not canonical padded base64 (a stray
// character, a wrong length, bits set past the end).
std::optional<std::string> Base64Decode(std::string_view text);

}  // namespace sepp
