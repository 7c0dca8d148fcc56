// `sepp --replay FILE`: Providers that answer from a cassette (cassette.h)
// instead of the network. No key, no URL, no socket.
//
// Strict (the default): each request is served by the first unused exchange
// whose request equals it exactly (after the cassette's scrub: secrets
// redacted, working directory and date as placeholders). Matching by content
// rather than by order makes parallel sub-agents replay deterministically:
// whatever order their calls arrive in, each gets the answer recorded for
// its request. A request that matches nothing fails with kind
// "replay_mismatch"; Problems() then holds a diff against the closest
// recorded request (the same agent's next one, else one with the same first
// message, else the first unused).
//
// Lenient: each provider is bound, at its first call, to a recorded agent
// (the first unclaimed one whose first request has the same first message,
// else the first unclaimed one), and is served that agent's exchanges by
// position, whatever it asks. For replaying after a prompt was edited.
//
// Cost. The recorded requests are kept as their canonical text (DumpJson),
// not as JSON trees, and indexed by fingerprint; the responses are revealed
// once, at load, and served by reference. So a strict call costs one
// conversion of the live request (it must be compared whole: that is the
// guarantee) and a hash lookup, not a scan of the cassette; a lenient call
// after the first costs O(1) whatever the conversation's length (it never
// looks at the request), and a lenient replayer keeps no recorded request at
// all, only each agent's first message.
#pragma once
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "llm/cassette.h"
#include "llm/cassette_scrub.h"
#include "llm/provider.h"

namespace sepp::llm {

enum class ReplayMode { kStrict, kLenient };

class CassetteReplayer : public std::enable_shared_from_this<CassetteReplayer> {
 public:
  // name names the cassette in messages (its path).
  CassetteReplayer(Cassette cassette, std::string name, ReplayMode mode, CassetteScrub scrub);
  static Result<std::shared_ptr<CassetteReplayer>> Open(const std::string& path, ReplayMode mode,
                                                        CassetteScrub scrub);

  // The recorded provider and API, with no key and no URL.
  ProviderConfig config() const;
  // One provider per agent (the main agent, each sub-agent). Thread-safe.
  std::unique_ptr<Provider> NewProvider();

  // After the run: "" if it asked exactly what was recorded; otherwise what
  // went wrong, several lines (the first mismatch with its diff; in strict
  // mode also the recorded exchanges that were never asked for).
  std::string Problems() const;

  // One provider's place in the cassette.
  struct Cursor {
    int stream = -1;  // the recorded agent it is bound to
    int calls = 0;
  };
  // Serves one request for the provider at cursor. The exchange (its
  // response revealed) lives as long as the replayer.
  Result<const Exchange*> Serve(Cursor* cursor, const Request& request);

 private:
  Result<const Exchange*> ServeStrict(Cursor* cursor, const Request& request);
  Result<const Exchange*> ServeLenient(Cursor* cursor, const Request& request);
  Error Mismatch(const Json& request, int candidate);
  int FirstUnusedOfStream(int stream) const;  // -1: none

  Cassette cassette_;  // requests as request_text (strict) or dropped (lenient)
  std::string name_;
  ReplayMode mode_;
  CassetteScrub scrub_;
  // Strict: exchange indices by the fingerprint of their request, file order.
  std::unordered_map<std::string, std::vector<size_t>> by_fingerprint_;
  // Exchange indices of each recorded agent, in call order.
  std::map<int, std::vector<size_t>> streams_;
  // Lenient: each recorded agent's first message (scrubbed), for binding.
  std::map<int, Json> first_messages_;

  mutable std::mutex mu_;
  std::vector<bool> used_;
  std::set<int> claimed_;      // lenient: recorded agents bound to a provider
  int requests_ = 0;           // requests served or refused so far
  std::string problem_;        // the first failure, with its diff
};

}  // namespace sepp::llm
