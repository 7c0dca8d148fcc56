// What is changed in a cassette's strings on the way in and out.
//
// On the way in (Hide): every registered secret is redacted, and each
// volatile value (the working directory, today's date) becomes its
// placeholder, so a cassette recorded in /home/ann/proj on Monday replays in
// /build/proj on Friday. On the way out (Reveal) placeholders become this
// run's values again, so a recorded tool call's absolute path points into
// the replaying run's directory. A live request is compared with a recorded
// one after Hide, never before.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "base/json.h"
#include "llm/cassette.h"

namespace sepp::llm {

inline constexpr char kCwdPlaceholder[] = "${SEPP_CWD}";
inline constexpr char kDatePlaceholder[] = "${SEPP_DATE}";

class CassetteScrub {
 public:
  CassetteScrub() = default;
  // Values shorter than 2 bytes (or "/") are ignored: replacing them would
  // rewrite ordinary text.
  CassetteScrub(const std::string& cwd, const std::string& date);

  std::string Hide(std::string_view text) const;
  std::string Reveal(std::string_view text) const;
  // Every string of j (values and object keys).
  Json Hide(const Json& j) const;
  // Hides every string of a response (stream events and result).
  void HideResponse(Exchange* x) const;
  // Reveals them. The request stays hidden: it is what live requests are
  // compared with.
  void RevealResponse(Exchange* x) const;

 private:
  // (value, placeholder), longest value first.
  std::vector<std::pair<std::string, std::string>> values_;
};

}  // namespace sepp::llm
