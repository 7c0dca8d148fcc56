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
  std::string out;
  size_t from = 0;      // start of what is not yet written
  size_t hold = buf.size();  // what from here on stays for the next piece
  for (;;) {
    // The earliest secret at or after from; at one position the longest.
    size_t at = std::string::npos, len = 0;
    for (const auto& s : secrets) {
      size_t p = buf.find(s, from);
      if (p < at) at = p, len = s.size();
    }
    if (at == std::string::npos) break;
    // Fewer bytes than the longest secret follow: a longer secret that
    // starts here may still complete with the next piece. Decide then.
    if (!final && buf.size() - at < longest) {
      hold = at;
      break;
    }
    out.append(buf, from, at - from);
    out += kMark;
    from = at + len;
  }
  if (!final) {
    // Any secret that starts in the last longest-1 bytes is still incomplete.
    if (longest > 1 && buf.size() - from >= longest - 1) hold = std::min(hold, buf.size() - (longest - 1));
    else if (longest > 1) hold = from;
    // Never cut a UTF-8 character: step back to the start of one.
    while (hold > from && hold < buf.size() && (static_cast<unsigned char>(buf[hold]) & 0xC0) == 0x80)
      --hold;
    if (hold == buf.size()) hold -= IncompleteUtf8Tail(std::string_view(buf).substr(from));
  } else {
    hold = buf.size();
  }
  out.append(buf, from, hold - from);
  pending_.erase(0, hold);
  return out;
}

}  // namespace sepp
