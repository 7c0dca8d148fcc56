// Dropping every capability: the bounding set (so exec cannot regain any,
// not even as uid 0 of the namespace), the ambient set, securebits locked so
// uid 0 means nothing special, then the effective/permitted/inheritable sets.
#pragma once

namespace sepp::sandbox {

// In the child, after everything that needs capabilities. 0 or errno.
int DropAllCapabilities(const char** step);

}  // namespace sepp::sandbox
