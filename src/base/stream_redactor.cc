#include "base/stream_redactor.h"

#include <algorithm>
#include <vector>

#include "base/secrets.h"

namespace sepp {
namespace {

constexpr std::string_view kMark = "[REDACTED]";

// Bytes at the end of text that begin a UTF-8 character not yet complete.
size_t IncompleteUtf8Tail(std::string_view text) {
  for (size_t back = 1; back <= 3 && back <= text.size(); ++back) {
    unsigned char c = static_cast<unsigned char>(text[text.size() - back]);
    if ((c & 0xC0) == 0x80) continue;  // a continuation byte: look further back
    size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    return need > back ? back : 0;
  }
  return 0;
}

}  // namespace

std::string StreamRedactor::Push(std::string_view chunk) {
  pending_.append(chunk);
  return Take(false);
}

std::string StreamRedactor::Flush() { return Take(true); }

std::string StreamRedactor::Take(bool final) {
  const std::vector<std::string> secrets = RegisteredSecrets();  // longest first
  const size_t longest = secrets.empty() ? 0 : secrets.front().size();
  const std::string& buf = pending_;
  const size_t size = buf.size();
  // The first position at or after from where the rest of buf is a proper
  // prefix of a secret: from there on the next piece may complete one.
  auto tail_start = [&](size_t from) {
    if (final) return size;
    for (size_t p = std::max(from, size - std::min(size, longest > 0 ? longest - 1 : 0)); p < size; ++p)
      for (const auto& s : secrets)
        if (s.size() > size - p && buf.compare(p, size - p, s, 0, size - p) == 0) return p;
    return size;
  };
  std::string out;
  size_t from = 0;  // start of what is not yet written
  size_t hold = tail_start(from);
  for (;;) {
    // The earliest secret at or after from; at one position the longest.
    size_t at = std::string::npos, len = 0;
    for (const auto& s : secrets) {
      size_t p = buf.find(s, from);
      if (p < at) at = p, len = s.size();
    }
    // A match in the tail may still grow into a longer secret: decide it
    // with the next piece. (Before the tail, no longer secret can start.)
    if (at == std::string::npos || at >= hold) break;
    out.append(buf, from, at - from);
    out += kMark;
    from = at + len;
    hold = tail_start(from);
  }
  if (!final) {
    // Never cut a UTF-8 character: step back to the start of one.
    while (hold > from && hold < size && (static_cast<unsigned char>(buf[hold]) & 0xC0) == 0x80) --hold;
    if (hold == size) hold -= IncompleteUtf8Tail(std::string_view(buf).substr(from));
  }
  out.append(buf, from, hold - from);
  pending_.erase(0, hold);
  return out;
}

}  // namespace sepp
