#include "sidecar/chunker.h"

#include "base/strings.h"

namespace sepp::sidecar {
namespace {

std::string TitleOf(std::string_view chunk) {
  size_t pos = 0;
  while (pos < chunk.size()) {
    size_t nl = chunk.find('\n', pos);
    std::string_view line = chunk.substr(pos, nl == std::string_view::npos ? nl : nl - pos);
    line = Trim(line);
    if (!line.empty()) return std::string(line.substr(0, Utf8SafePrefix(line, 120)));
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  return "";
}

}  // namespace

std::vector<Chunk> ChunkText(std::string_view text, size_t max_bytes) {
  std::vector<Chunk> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t len = text.size() - pos;
    if (len > max_bytes) {
      std::string_view window = text.substr(pos, max_bytes);
      size_t para = window.rfind("\n\n");
      size_t nl = window.rfind('\n');
      if (para != std::string_view::npos && para + 2 >= max_bytes / 2) {
        len = para + 2;
      } else if (nl != std::string_view::npos) {
        len = nl + 1;
      } else {
        len = Utf8SafePrefix(window, max_bytes);
        if (len == 0) len = max_bytes;  // not UTF-8 at all: cut anyway, losslessly
      }
    }
    std::string_view c = text.substr(pos, len);
    out.push_back({c, TitleOf(c)});
    pos += len;
  }
  return out;
}

}  // namespace sepp::sidecar
