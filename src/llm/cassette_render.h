// `sepp replay show FILE`: a cassette as text a person reads, one block per
// exchange: who asked (agent, call), what was new in the request, what came
// back. Every piece of recorded text is shortened and its control characters
// are shown escaped: a cassette is outside input and must not drive the
// terminal.
#pragma once
#include <string>

#include "llm/cassette.h"

namespace sepp::llm {

std::string RenderCassette(const Cassette& cassette, const std::string& name);

}  // namespace sepp::llm
