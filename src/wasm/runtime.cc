// Store, memories, tables, globals and calls from the host (runtime.h).
#include "wasm/runtime.h"

#include <algorithm>

#include "wasm/interp.h"

namespace sepp::wasm {

// ---- Memory ----

Memory::Memory(MemoryType type, uint64_t cap_pages) : type_(type), cap_pages_(cap_pages) {
  if (type_.limits.has_max) cap_pages_ = std::min(cap_pages_, type_.limits.max);
  size_ = type_.limits.min * kPageSize;
  bytes_.assign(size_, 0);
}

Status Memory::Read(uint64_t address, std::span<uint8_t> out) const {
  if (address > size_ || out.size() > size_ - address)
    return Error::Make("memory read out of bounds: " + std::to_string(out.size()) + " bytes at " +
                       std::to_string(address) + " (memory is " + std::to_string(size_) + " bytes)");
  if (!out.empty()) std::memcpy(out.data(), bytes_.data() + address, out.size());
  return Ok();
}

Status Memory::Write(uint64_t address, std::span<const uint8_t> in) {
  if (address > size_ || in.size() > size_ - address)
    return Error::Make("memory write out of bounds: " + std::to_string(in.size()) + " bytes at " +
                       std::to_string(address) + " (memory is " + std::to_string(size_) + " bytes)");
  if (!in.empty()) std::memcpy(bytes_.data() + address, in.data(), in.size());
  return Ok();
}

Result<std::string> Memory::ReadString(uint64_t address, uint64_t length) const {
  if (address > size_ || length > size_ - address)
    return Error::Make("string out of bounds: " + std::to_string(length) + " bytes at " +
                       std::to_string(address));
  return std::string(reinterpret_cast<const char*>(bytes_.data()) + address, length);
}

int64_t Memory::Grow(uint64_t delta) {
  uint64_t old = pages();
  if (delta > cap_pages_ || old + delta > cap_pages_) return -1;
  if (delta == 0) return static_cast<int64_t>(old);
  try {
    bytes_.resize((old + delta) * kPageSize, 0);
  } catch (const std::bad_alloc&) {
    return -1;
  }
  size_ = bytes_.size();
  return static_cast<int64_t>(old);
}

// ---- Table ----

Table::Table(TableType type, uint64_t cap, uint64_t init) : type_(type), cap_(cap) {
  if (type_.limits.has_max) cap_ = std::min(cap_, type_.limits.max);
  elems_.assign(type_.limits.min, init);
}

int64_t Table::Grow(uint64_t delta, uint64_t init) {
  uint64_t old = elems_.size();
  if (delta > cap_ || old + delta > cap_) return -1;
  elems_.resize(old + delta, init);
  return static_cast<int64_t>(old);
}

Result<Value> Table::Get(uint64_t index) const {
  if (index >= elems_.size()) return Error::Make("table index out of bounds", "trap");
  return Value{type_.elem, elems_[index]};
}

Status Table::Set(uint64_t index, Value v) {
  if (v.type != type_.elem) return Error::Make("table element type mismatch");
  if (index >= elems_.size()) return Error::Make("table index out of bounds", "trap");
  elems_[index] = v.bits;
  return Ok();
}

// ---- Global ----

Status Global::Set(Value v) {
  if (!type_.mutable_) return Error::Make("global is immutable");
  if (v.type != type_.type) return Error::Make("global type mismatch");
  bits_ = v.bits;
  return Ok();
}

// ---- Store ----

Store::Store(StoreLimits limits) : limits_(limits) {}
Store::~Store() = default;

uint32_t Store::InternType(const FuncType& t) {
  for (size_t i = 0; i < types_.size(); ++i)
    if (types_[i] == t) return static_cast<uint32_t>(i);
  types_.push_back(t);
  return static_cast<uint32_t>(types_.size() - 1);
}

Function* Store::NewFunction() {
  funcs_.push_back(std::make_unique<Function>());
  return funcs_.back().get();
}

Instance* Store::NewInstance() {
  instances_.push_back(std::make_unique<Instance>());
  instances_.back()->store_ = this;
  return instances_.back().get();
}

Function* Store::CreateHostFunction(HostFunc f) {
  Function* fn = NewFunction();
  fn->type = std::move(f.type);
  fn->type_id = InternType(fn->type);
  fn->host = std::move(f.callback);
  return fn;
}

Memory* Store::CreateMemory(MemoryType type) {
  if (type.limits.min > limits_.max_memory_pages) return nullptr;
  memories_.push_back(std::make_unique<Memory>(type, limits_.max_memory_pages));
  return memories_.back().get();
}

Table* Store::CreateTable(TableType type, Value init) {
  if (type.limits.min > limits_.max_table_elements) return nullptr;
  tables_.push_back(std::make_unique<Table>(type, limits_.max_table_elements, init.bits));
  return tables_.back().get();
}

Global* Store::CreateGlobal(GlobalType type, Value init) {
  globals_.push_back(std::make_unique<Global>(type, init.bits));
  return globals_.back().get();
}

Result<std::vector<Value>> Store::Call(Function* f, std::span<const Value> args) {
  const FuncType& t = f->type;
  if (args.size() != t.params.size())
    return Error::Make("wrong number of arguments: expected " + std::to_string(t.params.size()) + ", got " +
                       std::to_string(args.size()));
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i].type != t.params[i])
      return Error::Make(std::string("argument ") + std::to_string(i) + " has type " +
                         ValTypeName(args[i].type) + ", expected " + ValTypeName(t.params[i]));
  if (stack_.empty()) {
    stack_.assign(limits_.value_stack_slots, 0);
    stack_top_ = stack_.data();
  }
  uint64_t* slots = stack_top_;
  size_t need = std::max(t.params.size(), t.results.size());
  if (slots + need > stack_.data() + stack_.size()) return Error::Make("call stack exhausted", "trap");
  for (size_t i = 0; i < args.size(); ++i) {
    uint64_t bits = args[i].bits;
    if (t.params[i] == ValType::kI32 || t.params[i] == ValType::kF32) bits &= 0xFFFFFFFFu;
    slots[i] = bits;
  }
  uint64_t* saved = stack_top_;
  Status st = Execute(*this, f, slots);
  stack_top_ = saved;
  if (!st.ok()) return st.error();
  std::vector<Value> out(t.results.size());
  for (size_t i = 0; i < out.size(); ++i) out[i] = Value{t.results[i], slots[i]};
  return out;
}

// ---- Instance ----

std::optional<Extern> Instance::GetExport(std::string_view name) const {
  for (const Export& e : module_->exports) {
    if (e.name != name) continue;
    Extern x;
    x.kind = e.kind;
    switch (e.kind) {
      case ExternKind::kFunc: x.func = funcs_[e.index]; break;
      case ExternKind::kTable: x.table = tables_[e.index]; break;
      case ExternKind::kMemory: x.memory = memory_; break;
      case ExternKind::kGlobal: x.global = globals_[e.index]; break;
    }
    return x;
  }
  return std::nullopt;
}

Function* Instance::GetFunc(std::string_view name) const {
  auto e = GetExport(name);
  return e && e->kind == ExternKind::kFunc ? e->func : nullptr;
}
Memory* Instance::GetMemory(std::string_view name) const {
  auto e = GetExport(name);
  return e && e->kind == ExternKind::kMemory ? e->memory : nullptr;
}
Global* Instance::GetGlobal(std::string_view name) const {
  auto e = GetExport(name);
  return e && e->kind == ExternKind::kGlobal ? e->global : nullptr;
}

Result<std::vector<Value>> Instance::Call(std::string_view name, std::span<const Value> args) {
  Function* f = GetFunc(name);
  if (!f) return Error::Make("no exported function named \"" + std::string(name) + "\"", "not_found");
  return store_->Call(f, args);
}

}  // namespace sepp::wasm
