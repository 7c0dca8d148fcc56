// Cuts a text into the sidecar's chunks, losslessly: the chunks, joined in
// order, are the text byte for byte (context_export checks the sha256).
//
// A chunk is at most kMaxChunkBytes. It ends, by preference, after a blank
// line in the second half of its window (a paragraph), else after the last
// newline in it, else at a UTF-8 boundary (one very long line). Its title
// is its first non-empty line, cut to 120 bytes.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace sepp::sidecar {

inline constexpr size_t kMaxChunkBytes = 4096;

struct Chunk {
  std::string_view content;  // a view into the text given to ChunkText
  std::string title;
};

std::vector<Chunk> ChunkText(std::string_view text, size_t max_bytes = kMaxChunkBytes);

}  // namespace sepp::sidecar
