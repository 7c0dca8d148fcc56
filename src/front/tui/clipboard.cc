#include "front/tui/clipboard.h"

#include <algorithm>
#include <cstdint>

namespace sepp::front::tui {
namespace {

std::string Base64(std::string_view in) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    uint32_t v = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8) | uint8_t(in[i + 2]);
    for (int s : {18, 12, 6, 0}) out.push_back(kAlphabet[(v >> s) & 63]);
  }
  if (i < in.size()) {
    uint32_t v = uint8_t(in[i]) << 16;
    if (i + 1 < in.size()) v |= uint8_t(in[i + 1]) << 8;
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(i + 1 < in.size() ? kAlphabet[(v >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

}  // namespace

std::string Osc52(std::string_view text, bool inside_tmux) {
  std::string seq = "\x1b]52;c;" + Base64(text) + "\x07";
  if (!inside_tmux) return seq;
  std::string wrapped = "\x1bPtmux;";
  for (char c : seq) {
    if (c == '\x1b') wrapped.push_back('\x1b');
    wrapped.push_back(c);
  }
  return wrapped + "\x1b\\";
}

std::vector<std::string> CodeBlocks(std::string_view md) {
  std::vector<std::string> out;
  std::string fence;  // the open fence ("```" or "~~~~"), empty outside a block
  std::string body;
  size_t pos = 0;
  while (pos < md.size()) {
    size_t nl = md.find('\n', pos);
    std::string_view line = md.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    std::string_view trimmed = line.substr(std::min(line.find_first_not_of(' '), line.size()));
    if (fence.empty()) {
      for (char f : {'`', '~'}) {
        size_t n = 0;
        while (n < trimmed.size() && trimmed[n] == f) ++n;
        if (n >= 3 && line.size() - trimmed.size() < 4) {
          fence.assign(n, f);
          body.clear();
          break;
        }
      }
    } else if (trimmed.rfind(fence, 0) == 0 &&
               trimmed.find_first_not_of(fence[0]) == std::string_view::npos) {
      out.push_back(body);
      fence.clear();
    } else {
      body.append(line);
      body.push_back('\n');
    }
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  if (!fence.empty()) out.push_back(body);
  return out;
}

}  // namespace sepp::front::tui
