// What the model saw of a tool call, read from the fake provider's request
// log: for the end-to-end tests that script tool calls.
#pragma once
#include <string>

#include "support/fake_provider.h"

namespace sepp::fake {

// The text of the last tool result for call_id in the requests the fake
// received (Anthropic's messages format), "" if there is none. The last:
// a test that runs sepp more than once may reuse an id.
std::string LastToolResult(const FakeProvider& fp, const std::string& call_id);

}  // namespace sepp::fake
