// Linking and instantiation (runtime.h Linker), following the spec's
// instantiation algorithm: resolve and type-check imports, allocate the
// module's functions/tables/memory/globals in the store, evaluate element
// segments, apply active element then data segments in order (a failing one
// traps, and effects before it persist), drop them, then run start.
#include <algorithm>

#include "wasm/runtime.h"

namespace sepp::wasm {
namespace {

Error Unlinkable(std::string m) { return Error::Make(std::move(m), "unlinkable"); }

bool LimitsMatch(uint64_t actual_min, bool actual_has_max, uint64_t actual_max, const Limits& want) {
  if (actual_min < want.min) return false;
  if (want.has_max) {
    if (!actual_has_max) return false;
    if (actual_max > want.max) return false;
  }
  return true;
}

uint64_t EvalConst(const ConstExpr& e, const Instance& inst) {
  switch (e.kind) {
    case ConstExpr::Kind::kConst: return e.bits;
    case ConstExpr::Kind::kGlobalGet: return inst.globals_[e.index]->bits_;
    case ConstExpr::Kind::kRefFunc: return reinterpret_cast<uint64_t>(inst.funcs_[e.index]);
    case ConstExpr::Kind::kRefNull: return 0;
  }
  return 0;
}

}  // namespace

void Linker::DefineFunc(std::string module, std::string name, HostFunc f) {
  Key k{std::move(module), std::move(name)};
  externs_.erase(k);
  host_funcs_[std::move(k)] = std::move(f);
}

void Linker::Define(std::string module, std::string name, Extern e) {
  Key k{std::move(module), std::move(name)};
  host_funcs_.erase(k);
  externs_[std::move(k)] = e;
}

void Linker::DefineInstance(std::string module, const Instance& instance) {
  for (const Export& e : instance.module().exports) {
    auto x = instance.GetExport(e.name);
    if (x) Define(module, e.name, *x);
  }
}

Result<Instance*> Linker::Instantiate(Store& store, std::shared_ptr<const Module> module_ptr) const {
  const Module& m = *module_ptr;
  // Resolve imports first so a link error allocates nothing.
  std::vector<Extern> resolved;
  for (const Import& im : m.imports) {
    Key k{im.module, im.name};
    std::string what = "\"" + im.module + "\" \"" + im.name + "\"";
    Extern x;
    if (auto h = host_funcs_.find(k); h != host_funcs_.end()) {
      if (im.kind != ExternKind::kFunc) return Unlinkable("incompatible import type for " + what);
      if (!(h->second.type == m.types[im.type_index]))
        return Unlinkable("incompatible import type for " + what + ": expected " +
                          FuncTypeToString(m.types[im.type_index]) + ", host has " +
                          FuncTypeToString(h->second.type));
      x.kind = ExternKind::kFunc;
      x.func = nullptr;  // created below, once linking is known to succeed
      resolved.push_back(x);
      continue;
    }
    auto it = externs_.find(k);
    if (it == externs_.end()) return Unlinkable("unknown import " + what);
    x = it->second;
    if (x.kind != im.kind) return Unlinkable("incompatible import type for " + what);
    switch (im.kind) {
      case ExternKind::kFunc:
        if (!(x.func->type == m.types[im.type_index]))
          return Unlinkable("incompatible import type for " + what + ": function signature differs");
        break;
      case ExternKind::kTable: {
        const TableType& tt = x.table->type();
        if (tt.elem != im.table.elem ||
            !LimitsMatch(x.table->size(), tt.limits.has_max, tt.limits.max, im.table.limits))
          return Unlinkable("incompatible import type for " + what + ": table type differs");
        break;
      }
      case ExternKind::kMemory: {
        const MemoryType& mt = x.memory->type();
        if (!LimitsMatch(x.memory->pages(), mt.limits.has_max, mt.limits.max, im.memory.limits))
          return Unlinkable("incompatible import type for " + what + ": memory limits differ");
        break;
      }
      case ExternKind::kGlobal:
        if (x.global->type().type != im.global.type || x.global->type().mutable_ != im.global.mutable_)
          return Unlinkable("incompatible import type for " + what + ": global type differs");
        break;
    }
    resolved.push_back(x);
  }

  // Check resource limits before allocating.
  for (size_t i = m.num_imported_memories; i < m.memories.size(); ++i)
    if (m.memories[i].limits.min > store.limits().max_memory_pages)
      return Error::Make("memory of " + std::to_string(m.memories[i].limits.min) +
                             " pages exceeds the store's limit of " +
                             std::to_string(store.limits().max_memory_pages),
                         "unlinkable");
  for (size_t i = m.num_imported_tables; i < m.tables.size(); ++i)
    if (m.tables[i].limits.min > store.limits().max_table_elements)
      return Error::Make("table of " + std::to_string(m.tables[i].limits.min) +
                             " elements exceeds the store's limit",
                         "unlinkable");

  Instance* inst = store.NewInstance();
  inst->module_ = module_ptr;
  for (const FuncType& t : m.types) inst->type_ids_.push_back(store.InternType(t));
  for (size_t i = 0; i < m.imports.size(); ++i) {
    const Import& im = m.imports[i];
    Extern x = resolved[i];
    switch (im.kind) {
      case ExternKind::kFunc:
        if (!x.func) x.func = store.CreateHostFunction(host_funcs_.at({im.module, im.name}));
        inst->funcs_.push_back(x.func);
        break;
      case ExternKind::kTable: inst->tables_.push_back(x.table); break;
      case ExternKind::kMemory: inst->memory_ = x.memory; break;
      case ExternKind::kGlobal: inst->globals_.push_back(x.global); break;
    }
  }
  for (size_t i = 0; i < m.funcs.size(); ++i) {
    Function* f = store.NewFunction();
    uint32_t ti = m.funcs[i].type_index;
    f->type = m.types[ti];
    f->type_id = inst->type_ids_[ti];
    f->instance = inst;
    f->code = &m.funcs[i];
    inst->funcs_.push_back(f);
  }
  for (size_t i = m.num_imported_tables; i < m.tables.size(); ++i)
    inst->tables_.push_back(store.CreateTable(m.tables[i], Value::NullRef(m.tables[i].elem)));
  for (size_t i = m.num_imported_memories; i < m.memories.size(); ++i)
    inst->memory_ = store.CreateMemory(m.memories[i]);
  for (const GlobalDef& g : m.global_defs)
    inst->globals_.push_back(store.CreateGlobal(g.type, Value{g.type.type, EvalConst(g.init, *inst)}));
  for (const ElemSegment& s : m.elems) {
    std::vector<uint64_t> items;
    items.reserve(s.items.size());
    for (const ConstExpr& e : s.items) items.push_back(EvalConst(e, *inst));
    inst->elems_.push_back(std::move(items));
  }
  inst->data_dropped_.assign(m.datas.size(), false);

  for (size_t i = 0; i < m.elems.size(); ++i) {
    const ElemSegment& s = m.elems[i];
    if (s.mode == ElemSegment::Mode::kActive) {
      uint64_t offset = static_cast<uint32_t>(EvalConst(s.offset, *inst));
      Table* t = inst->tables_[s.table];
      std::vector<uint64_t>& items = inst->elems_[i];
      if (offset + items.size() > t->size()) return Error::Make("out of bounds table access", "trap");
      std::copy(items.begin(), items.end(), t->elems().begin() + static_cast<ptrdiff_t>(offset));
    }
    if (s.mode != ElemSegment::Mode::kPassive) inst->elems_[i].clear();
  }
  for (size_t i = 0; i < m.datas.size(); ++i) {
    const DataSegment& d = m.datas[i];
    if (!d.active) continue;
    uint64_t offset = static_cast<uint32_t>(EvalConst(d.offset, *inst));
    Status st = inst->memory_->Write(offset, d.bytes);
    if (!st.ok()) return Error::Make("out of bounds memory access", "trap");
    inst->data_dropped_[i] = true;
  }
  if (m.has_start) {
    auto r = store.Call(inst->funcs_[m.start], {});
    if (!r.ok()) return r.error();
  }
  return inst;
}

}  // namespace sepp::wasm
