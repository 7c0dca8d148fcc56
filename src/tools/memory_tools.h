// memory_status, memory_add, memory_search, memory_get, memory_update,
// memory_delete and memory_list: durable memory (memory/store.h,
// docs/memory.md) with sage's names and schemas, plus update and list.
//
// They run in sepp's process (the database is in $SEPP_HOME, hidden from
// the sandbox). The view (user, project, session) is asked for at every
// call and goes into every statement, so no argument a model passes can
// reach another project's memories. Text holding a known secret is refused.
#pragma once
#include <functional>
#include <memory>

#include "memory/store.h"
#include "tools/tool.h"

namespace sepp::tools {

struct MemoryBinding {
  std::shared_ptr<memory::Store> store;
  std::function<memory::MemoryView()> view;
  std::string embeddings;  // for memory_status: "" none, else "<model> at <url>"
};

void AddMemoryTools(ToolRegistry& registry, std::shared_ptr<const MemoryBinding> binding);

}  // namespace sepp::tools
