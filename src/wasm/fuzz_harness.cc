// Fuzz harness (fuzz_harness.h).
#include "wasm/fuzz_harness.h"

#include <span>

#include "wasm/decoder.h"
#include "wasm/runtime.h"

namespace sepp::wasm {

FuzzStats FuzzOne(const uint8_t* data, size_t size) {
  FuzzStats stats;
  auto m = DecodeModule(std::span<const uint8_t>(data, size));
  if (!m.ok()) return stats;
  stats.decoded = true;
  const Module& mod = **m;

  StoreLimits limits;
  limits.max_memory_pages = 32;
  limits.max_table_elements = 4096;
  limits.max_call_depth = 300;
  limits.value_stack_slots = 1u << 16;
  Store store(limits);
  constexpr uint64_t kFuel = 20000;
  store.SetFuel(kFuel);

  // Stub every import with something of the right type.
  Linker linker;
  for (const Import& im : mod.imports) {
    Extern x;
    x.kind = im.kind;
    switch (im.kind) {
      case ExternKind::kFunc: {
        HostFunc h;
        h.type = mod.types[im.type_index];
        h.callback = [](HostCall&) -> Status { return Ok(); };
        linker.DefineFunc(im.module, im.name, h);
        continue;
      }
      case ExternKind::kTable:
        x.table = store.CreateTable(im.table, Value::NullRef(im.table.elem));
        if (!x.table) return stats;
        break;
      case ExternKind::kMemory:
        x.memory = store.CreateMemory(im.memory);
        if (!x.memory) return stats;
        break;
      case ExternKind::kGlobal:
        x.global = store.CreateGlobal(im.global, Value{im.global.type, 0});
        break;
    }
    linker.Define(im.module, im.name, x);
  }
  auto inst = linker.Instantiate(store, *m);
  if (!inst.ok()) return stats;
  stats.instantiated = true;

  for (const Export& e : mod.exports) {
    if (e.kind != ExternKind::kFunc) continue;
    Function* f = (*inst)->funcs_[e.index];
    std::vector<Value> args;
    for (ValType t : f->type.params) args.push_back(Value{t, 0});
    store.SetFuel(kFuel);
    (void)store.Call(f, args);
    stats.calls++;
  }
  return stats;
}

}  // namespace sepp::wasm
