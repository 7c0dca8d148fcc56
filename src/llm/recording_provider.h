// `sepp --record FILE`: a Provider decorator that forwards every call to the
// real provider and appends the exchange (request, response stream, result)
// to a cassette (format: cassette.h). All providers of one run (the main
// agent's and every sub-agent's) share one CassetteRecorder, so the whole
// session tree lands in one file; the lines are written whole under a lock,
// in the order the exchanges complete.
#pragma once
#include <memory>
#include <mutex>
#include <string>

#include "base/fd.h"
#include "base/result.h"
#include "llm/cassette.h"
#include "llm/cassette_scrub.h"
#include "llm/provider.h"

namespace sepp::llm {

class CassetteRecorder : public std::enable_shared_from_this<CassetteRecorder> {
 public:
  // Creates or truncates path (mode 0600: it holds the conversation) and
  // writes the header naming config's provider and API.
  static Result<std::shared_ptr<CassetteRecorder>> Create(const std::string& path,
                                                          const ProviderConfig& config,
                                                          CassetteScrub scrub);

  // A provider that records everything inner does. Each wrapped provider is
  // one "agent" of the cassette.
  std::unique_ptr<Provider> Wrap(std::unique_ptr<Provider> inner);

  // The first write failure, if any. After one, nothing more is written (a
  // cassette with a hole would replay wrongly); the run itself goes on.
  Status status() const;

  // For the wrapped providers: the next agent number, and the append.
  int NewAgent();
  void Append(Exchange x);

  CassetteRecorder(std::string path, UniqueFd fd, CassetteScrub scrub);

 private:
  std::string path_;
  CassetteScrub scrub_;
  mutable std::mutex mu_;
  UniqueFd fd_;
  int agents_ = 0;
  Status status_;
};

}  // namespace sepp::llm
