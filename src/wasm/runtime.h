// The embedding API: how a C++ host loads, links and runs WebAssembly.
//
//   auto module = wasm::DecodeModule(bytes);            // decoder.h; validates
//   wasm::Store store({.max_memory_pages = 256});        // owns all runtime objects
//   wasm::Linker linker;
//   linker.DefineFunc("env", "log", wasm::HostFunc::Make(
//       [](wasm::HostCall& c, int32_t ptr, int32_t len) -> wasm::Status {
//         auto text = c.memory->ReadString(ptr, len);    // bounds-checked
//         ...; return wasm::Ok();
//       }));
//   auto inst = linker.Instantiate(store, *module);      // Result<Instance*>
//   store.SetFuel(1'000'000);
//   auto out = (*inst)->Call("run", {wasm::Value::I32(7)});  // Result<vector<Value>>
//
// Contract:
// - A Store owns every function, memory, table, global and instance created in
//   it; pointers handed out stay valid for the Store's lifetime. A Store is
//   used by one thread at a time, except Interrupt(), which any thread may
//   call at any time.
// - Nothing a module does can make the host misbehave: every access is bounds
//   checked, recursion is bounded by max_call_depth and the value stack, and
//   memory/table growth is capped by StoreLimits. Failures inside wasm are
//   traps, returned as Error{kind = "trap"} with the spec's wording
//   ("integer divide by zero", "out of bounds memory access", "fuel
//   exhausted", "interrupted", "call stack exhausted", ...).
// - Link errors are Error{kind = "unlinkable"}; decode errors "malformed" or
//   "invalid"; a trap while instantiating (segment out of bounds, start
//   function) is Error{kind = "trap"}.
// - Fuel counts executed wasm instructions (charged per straight-line region
//   on entry, so a trap may come a few instructions early). It is a budget for
//   the store: each Call consumes from it; refill with SetFuel. Fuel is off
//   (unlimited) until SetFuel is called.
#pragma once
#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "base/result.h"
#include "wasm/module.h"
#include "wasm/types.h"

namespace sepp::wasm {

using sepp::Ok;
using sepp::Status;

struct StoreLimits {
  uint64_t max_memory_pages = 16384;       // 1 GiB per memory
  uint64_t max_table_elements = 1u << 20;  // per table
  uint32_t max_call_depth = 10000;         // nested wasm calls
  uint32_t value_stack_slots = 1u << 20;   // 8 MiB of operand/local slots
};

class Store;
class Instance;
class Memory;

// Linear memory. All accessors check bounds and never touch bytes outside it.
class Memory {
 public:
  Memory(MemoryType type, uint64_t cap_pages);
  uint64_t pages() const { return size_ / kPageSize; }
  uint64_t size() const { return size_; }
  const MemoryType& type() const { return type_; }
  Status Read(uint64_t address, std::span<uint8_t> out) const;
  Status Write(uint64_t address, std::span<const uint8_t> bytes);
  Result<std::string> ReadString(uint64_t address, uint64_t length) const;
  // Returns the old size in pages, or -1 if over the module's or store's cap.
  int64_t Grow(uint64_t delta_pages);
  // Raw view for the interpreter; invalidated by Grow.
  uint8_t* data() { return bytes_.data(); }

 private:
  MemoryType type_;
  uint64_t cap_pages_;
  std::vector<uint8_t> bytes_;
  uint64_t size_ = 0;
};

class Table {
 public:
  Table(TableType type, uint64_t cap, uint64_t init);
  const TableType& type() const { return type_; }
  uint64_t size() const { return elems_.size(); }
  // Returns the old size, or -1 if over the table's or store's cap.
  int64_t Grow(uint64_t delta, uint64_t init);
  std::vector<uint64_t>& elems() { return elems_; }
  Result<Value> Get(uint64_t index) const;
  Status Set(uint64_t index, Value v);

 private:
  TableType type_;
  uint64_t cap_;
  std::vector<uint64_t> elems_;
};

class Global {
 public:
  Global(GlobalType type, uint64_t bits) : bits_(bits), type_(type) {}
  const GlobalType& type() const { return type_; }
  Value Get() const { return Value{type_.type, bits_}; }
  // Fails if the global is immutable or the type differs.
  Status Set(Value v);
  uint64_t bits_;  // the interpreter reads and writes this directly

 private:
  GlobalType type_;
};

// What a host function sees when called from wasm.
struct HostCall {
  Store& store;
  Instance* caller;  // the calling instance, or null when called from the host
  Memory* memory;    // the caller's memory 0, or null
  std::span<const Value> args;
  std::span<Value> results;  // pre-typed; write the bits
};
// Return a non-OK Status to trap; its message becomes the trap message.
using HostCallback = std::function<Status(HostCall&)>;

namespace detail {
template <class T> constexpr ValType TypeOf();
template <> constexpr ValType TypeOf<int32_t>() { return ValType::kI32; }
template <> constexpr ValType TypeOf<uint32_t>() { return ValType::kI32; }
template <> constexpr ValType TypeOf<int64_t>() { return ValType::kI64; }
template <> constexpr ValType TypeOf<uint64_t>() { return ValType::kI64; }
template <> constexpr ValType TypeOf<float>() { return ValType::kF32; }
template <> constexpr ValType TypeOf<double>() { return ValType::kF64; }
template <class T> T FromValue(const Value& v) {
  if constexpr (std::is_same_v<T, float>) return v.f32();
  else if constexpr (std::is_same_v<T, double>) return v.f64();
  else if constexpr (sizeof(T) == 4) return static_cast<T>(v.i32());
  else return static_cast<T>(v.i64());
}
template <class T> Value ToValue(T x) {
  if constexpr (std::is_same_v<T, float>) return Value::F32(x);
  else if constexpr (std::is_same_v<T, double>) return Value::F64(x);
  else if constexpr (sizeof(T) == 4) return Value::I32(static_cast<int32_t>(x));
  else return Value::I64(static_cast<int64_t>(x));
}
template <class T> struct Lambda : Lambda<decltype(&T::operator())> {};
template <class C, class R, class... A> struct Lambda<R (C::*)(HostCall&, A...) const> {
  using Ret = R;
  using Args = std::tuple<A...>;
};
}  // namespace detail

// A host function with its wasm signature.
struct HostFunc {
  FuncType type;
  HostCallback callback;

  // Typed construction from a lambda `(HostCall&, A...) -> R` where A are
  // int32_t/uint32_t/int64_t/uint64_t/float/double and R is void, one of
  // those, Status or Result<one of those>. The wasm signature is derived.
  template <class F>
  static HostFunc Make(F fn) {
    using L = detail::Lambda<F>;
    return MakeImpl<F, typename L::Ret>(std::move(fn), static_cast<typename L::Args*>(nullptr));
  }

 private:
  template <class R> struct RetTraits { using T = R; static constexpr bool kWrapped = false; };
  template <class R> struct RetTraits<Result<R>> { using T = R; static constexpr bool kWrapped = true; };

  template <class F, class R, class... A>
  static HostFunc MakeImpl(F fn, std::tuple<A...>*) {
    HostFunc h;
    h.type.params = {detail::TypeOf<A>()...};
    using RT = RetTraits<R>;
    constexpr bool kVoid = std::is_void_v<R> || std::is_same_v<R, Status>;
    if constexpr (!kVoid) h.type.results = {detail::TypeOf<typename RT::T>()};
    h.callback = [fn = std::move(fn)](HostCall& c) -> Status {
      return Invoke<F, R>(fn, c, std::index_sequence_for<A...>{}, static_cast<std::tuple<A...>*>(nullptr));
    };
    return h;
  }
  template <class F, class R, size_t... I, class... A>
  static Status Invoke(const F& fn, HostCall& c, std::index_sequence<I...>, std::tuple<A...>*) {
    if constexpr (std::is_void_v<R>) {
      fn(c, detail::FromValue<A>(c.args[I])...);
      return Ok();
    } else if constexpr (std::is_same_v<R, Status>) {
      return fn(c, detail::FromValue<A>(c.args[I])...);
    } else if constexpr (RetTraits<R>::kWrapped) {
      R r = fn(c, detail::FromValue<A>(c.args[I])...);
      if (!r.ok()) return r.error();
      c.results[0] = detail::ToValue(r.value());
      return Ok();
    } else {
      c.results[0] = detail::ToValue(fn(c, detail::FromValue<A>(c.args[I])...));
      return Ok();
    }
  }
};

// A function in a store: either wasm code of an instance or a host callback.
struct Function {
  FuncType type;
  uint32_t type_id = 0;           // store-interned, for call_indirect checks
  Instance* instance = nullptr;   // wasm functions
  const CompiledFunc* code = nullptr;
  HostCallback host;              // host functions
};

struct Extern {
  ExternKind kind = ExternKind::kFunc;
  Function* func = nullptr;
  Table* table = nullptr;
  Memory* memory = nullptr;
  Global* global = nullptr;
};

class Instance {
 public:
  const Module& module() const { return *module_; }
  std::optional<Extern> GetExport(std::string_view name) const;
  Function* GetFunc(std::string_view name) const;
  Memory* GetMemory(std::string_view name) const;
  Global* GetGlobal(std::string_view name) const;
  Memory* memory() const { return memory_; }  // memory 0 or null
  // Calls an exported function; args are checked against its signature.
  Result<std::vector<Value>> Call(std::string_view name, std::span<const Value> args);

  // --- runtime state (read by the interpreter) ---
  std::shared_ptr<const Module> module_;
  Store* store_ = nullptr;
  std::vector<Function*> funcs_;
  std::vector<Table*> tables_;
  Memory* memory_ = nullptr;
  std::vector<Global*> globals_;
  std::vector<uint32_t> type_ids_;          // per module type index
  std::vector<std::vector<uint64_t>> elems_;  // element segments (cleared on drop)
  std::vector<bool> data_dropped_;
};

class Store {
 public:
  explicit Store(StoreLimits limits = {});
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  const StoreLimits& limits() const { return limits_; }

  void SetFuel(uint64_t fuel) { fuel_ = static_cast<int64_t>(fuel > INT64_MAX ? INT64_MAX : fuel); }
  void DisableFuel() { fuel_ = INT64_MAX; }
  uint64_t fuel() const { return fuel_ < 0 ? 0 : static_cast<uint64_t>(fuel_); }
  // Thread-safe: makes running code trap with "interrupted" at its next loop
  // iteration or call. Cleared by ClearInterrupt().
  void Interrupt() { interrupt_.store(true, std::memory_order_relaxed); }
  void ClearInterrupt() { interrupt_.store(false, std::memory_order_relaxed); }

  Function* CreateHostFunction(HostFunc f);
  Memory* CreateMemory(MemoryType type);       // fails (null) if over limits
  Table* CreateTable(TableType type, Value init);
  Global* CreateGlobal(GlobalType type, Value init);

  // Calls any function in this store with type-checked arguments.
  Result<std::vector<Value>> Call(Function* f, std::span<const Value> args);

  // --- internal ---
  uint32_t InternType(const FuncType& t);
  Instance* NewInstance();
  Function* NewFunction();
  int64_t fuel_ = INT64_MAX;
  std::atomic<bool> interrupt_{false};
  uint32_t depth_ = 0;
  std::vector<uint64_t> stack_;
  uint64_t* stack_top_ = nullptr;  // first free slot for the next host->wasm call

 private:
  StoreLimits limits_;
  std::vector<FuncType> types_;
  std::deque<std::unique_ptr<Function>> funcs_;
  std::deque<std::unique_ptr<Memory>> memories_;
  std::deque<std::unique_ptr<Table>> tables_;
  std::deque<std::unique_ptr<Global>> globals_;
  std::deque<std::unique_ptr<Instance>> instances_;
};

// Resolves imports by (module, name) and instantiates modules.
class Linker {
 public:
  // Host functions are bound to a store when a module importing them is
  // instantiated. Later definitions replace earlier ones.
  void DefineFunc(std::string module, std::string name, HostFunc f);
  void Define(std::string module, std::string name, Extern e);
  // Makes every export of `instance` importable under `module`.
  void DefineInstance(std::string module, const Instance& instance);

  // Links, allocates, initialises segments and runs the start function. On a
  // trap during initialisation the error has kind "trap" (effects made before
  // the trap persist, as the spec requires).
  Result<Instance*> Instantiate(Store& store, std::shared_ptr<const Module> module) const;

 private:
  using Key = std::pair<std::string, std::string>;
  std::map<Key, HostFunc> host_funcs_;
  std::map<Key, Extern> externs_;
};

}  // namespace sepp::wasm
