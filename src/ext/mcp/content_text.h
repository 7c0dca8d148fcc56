// MCP content blocks (a tool result's content, a prompt message's content)
// as text for the model: text as it is, an embedded text resource's text,
// images, audio, binary resources and resource links as a one-line note
// (what the model's text channel can carry of them).
#pragma once
#include <string>

#include "base/json.h"

namespace sepp::ext::mcp {

// content: one block or an array of them; other shapes give "".
std::string ContentText(const Json& content);

}  // namespace sepp::ext::mcp
