#include "ext/catalog.h"

#include <algorithm>

#include "ext/resources.h"

namespace sepp::ext {
namespace {

// One line per tier's loader.
constexpr CatalogContributor kContributors[] = {
    &ResourceExtensions,  // tier 1: skills, prompt templates
};

}  // namespace

std::vector<ExtensionInfo> ResourceExtensions(const std::filesystem::path& cwd) {
  return LoadResources(cwd).infos;
}

std::vector<ExtensionInfo> ListExtensions(const std::filesystem::path& cwd) {
  std::vector<ExtensionInfo> all;
  for (CatalogContributor c : kContributors) {
    std::vector<ExtensionInfo> part = c(cwd);
    all.insert(all.end(), std::make_move_iterator(part.begin()), std::make_move_iterator(part.end()));
  }
  std::stable_sort(all.begin(), all.end(), [](const ExtensionInfo& a, const ExtensionInfo& b) {
    return static_cast<int>(a.tier) < static_cast<int>(b.tier);
  });
  return all;
}

}  // namespace sepp::ext
