// Test helpers: feed a recorded SSE byte stream to a decoder, cut anywhere.
#pragma once
#include <algorithm>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "llm/wire.h"
#include "net/sse.h"

namespace sepp::llm::testing {

// Feeds bytes in pieces ending at the given cut offsets (ascending), through
// the real SSE parser, stopping at the first decoder error.
inline Result<Message> Decode(wire::StreamDecoder& decoder, std::string_view bytes,
                              const std::vector<size_t>& cuts = {}) {
  Status status;
  net::SseParser parser([&](const net::SseEvent& e) {
    if (status.ok()) status = decoder.OnEvent(e);
  });
  size_t start = 0;
  for (size_t cut : cuts) {
    if (cut <= start || cut >= bytes.size()) continue;
    parser.Feed(bytes.substr(start, cut - start));
    start = cut;
  }
  parser.Feed(bytes.substr(start));
  parser.Finish();
  if (!status.ok()) return status.error();
  return decoder.Finish();
}

// Random cut points, reproducible.
inline std::vector<size_t> RandomCuts(size_t size, int count, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<size_t> cuts;
  for (int i = 0; i < count && size > 1; ++i) cuts.push_back(1 + rng() % (size - 1));
  std::sort(cuts.begin(), cuts.end());
  return cuts;
}

// Turns a list of (event, data) pairs into SSE bytes.
inline std::string Sse(const std::vector<std::pair<std::string, std::string>>& events) {
  std::string out;
  for (const auto& [event, data] : events) {
    if (!event.empty()) out += "event: " + event + "\n";
    out += "data: " + data + "\n\n";
  }
  return out;
}

}  // namespace sepp::llm::testing
