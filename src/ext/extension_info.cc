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

ExtensionInfo NotLoaded(Tier tier, std::string kind, std::string name, std::string scope,
                        std::string trust, std::string error) {
  ExtensionInfo info;
  info.tier = tier;
  info.kind = std::move(kind);
  info.name = std::move(name);
  info.scope = std::move(scope);
  info.trust = std::move(trust);
  info.errors.push_back(std::move(error));
  return info;
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
