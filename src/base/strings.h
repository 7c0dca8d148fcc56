// Small string helpers: UTF-8 safety, splitting, trimming, formatting.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sepp {

// True if text is well-formed UTF-8 (no overlongs, surrogates or > U+10FFFF).
bool IsValidUtf8(std::string_view text);

// Returns text with every ill-formed UTF-8 sequence replaced by U+FFFD, so it
// can safely go into JSON or a terminal.
std::string SanitizeUtf8(std::string_view text);

// Length of the longest prefix of text, at most max_bytes long, that does not
// end inside a UTF-8 sequence.
size_t Utf8SafePrefix(std::string_view text, size_t max_bytes);

// Appends the UTF-8 encoding of the code point cp to *out.
void AppendUtf8(char32_t cp, std::string* out);

std::vector<std::string> Split(std::string_view text, char sep);
std::vector<std::string> SplitLines(std::string_view text);  // drops the '\n's
std::string_view Trim(std::string_view text);
std::string Join(const std::vector<std::string>& parts, std::string_view sep);
std::string ToLower(std::string_view text);
std::string ReplaceAll(std::string text, std::string_view from, std::string_view to);
bool StartsWith(std::string_view text, std::string_view prefix);
bool EndsWith(std::string_view text, std::string_view suffix);

// "1.5 KB", "12 MB": for messages to people.
std::string HumanBytes(uint64_t bytes);

}  // namespace sepp
