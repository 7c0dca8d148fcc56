#include "ext/extension_info.h"

namespace sepp::ext {

const char* ToString(Tier tier) {
  switch (tier) {
    case Tier::kResource: return "resource";
    case Tier::kHook: return "hook";
    case Tier::kPlugin: return "plugin";
    case Tier::kMcpServer: return "mcp-server";
  }
  return "unknown";
}

Json ToJson(const ExtensionInfo& info) {
  return Json{{"name", info.name},
              {"tier", static_cast<int>(info.tier)},
              {"tier_name", ToString(info.tier)},
              {"kind", info.kind},
              {"source", info.source.string()},
              {"scope", info.scope},
              {"may", info.may},
              {"trust", info.trust},
              {"loaded", info.loaded},
              {"errors", info.errors}};
}

}  // namespace sepp::ext
