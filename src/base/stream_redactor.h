// Redaction of text that arrives in pieces: a stream of model deltas, a
// command's output read chunk by chunk. Redact() on each piece alone misses
// a secret split across two pieces ("sk-ab" + "cdef..."); a StreamRedactor
// holds back the end of what it has seen that could still be the start of a
// secret, and lets it out with the next piece or at Flush().
//
//   StreamRedactor r;
//   for (chunk : chunks) Write(r.Push(chunk));
//   Write(r.Flush());
//
// Held back: only an end that is the start of a registered secret (so at
// most the longest secret minus one byte; ordinary text streams through at
// once), plus up to three bytes so that what comes out always ends on a
// whole UTF-8 character (a terminal or JSON writer downstream never sees
// half of one).
// Not thread-safe: one per stream.
#pragma once
#include <string>
#include <string_view>

namespace sepp {

class StreamRedactor {
 public:
  // The text that is safe to write now, with every secret in it replaced.
  std::string Push(std::string_view chunk);
  // Everything held back, redacted; the stream starts afresh.
  std::string Flush();
  // Bytes held back right now.
  size_t pending() const { return pending_.size(); }

 private:
  std::string Take(bool final);
  std::string pending_;
};

}  // namespace sepp
