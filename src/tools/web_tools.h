// fetch_content and web_search (web_tools.cc, docs/tools.md): through the
// egress proxy with the session's allowlist; in sepp's process, never in
// the tool worker (which has no network).
#pragma once
#include <memory>
#include <vector>

#include "tools/tool.h"

namespace sepp::tools {

std::vector<std::unique_ptr<Tool>> MakeWebTools();

}  // namespace sepp::tools
