// A tool a Lua hook file registered (sepp.register_tool): a tools::Tool the
// session adds to its registry, run in the file's state (under its lock and
// limits), in sepp's own process: it can do only what the Lua sandbox lets
// it (compute, answer from its arguments and ctx.state), so it needs no
// worker.
#pragma once
#include <memory>
#include <string>

#include "base/json.h"
#include "tools/tool.h"

namespace sepp::ext {

class LuaHookFile;

std::unique_ptr<tools::Tool> MakeLuaTool(std::shared_ptr<LuaHookFile> file, std::string name,
                                         std::string description, Json parameters, int ref);

}  // namespace sepp::ext
