// Embedding API and sandbox limits: host functions, fuel, interrupt, call
// depth, memory accessors and caps, link errors, traps.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "wasm/decoder.h"
#include "wasm/runtime.h"
#include "module_builder.h"

namespace sepp::wasm {
namespace {

using testing::Bytes;
using testing::kI32;
using testing::kI64;
using testing::ModuleBuilder;

std::shared_ptr<const Module> MustDecode(const Bytes& b) {
  auto m = DecodeModule(b);
  EXPECT_TRUE(m.ok()) << m.error().message;
  return m.ok() ? *m : nullptr;
}

// (func (param i32) (result i32) (call $add (local.get 0) (i32.const 10)))
Bytes AddViaHost() {
  ModuleBuilder b;
  uint32_t t2 = b.Type({kI32, kI32}, {kI32});
  uint32_t t1 = b.Type({kI32}, {kI32});
  uint32_t add = b.ImportFunc("env", "add", t2);
  uint32_t f = b.Func(t1, {0x20, 0x00, 0x41, 0x0A, 0x10, static_cast<uint8_t>(add), 0x0B});
  b.ExportFunc("run", f);
  return b.Build();
}

// (func (loop (br 0)))
Bytes InfiniteLoop() {
  ModuleBuilder b;
  uint32_t t = b.Type({}, {});
  uint32_t f = b.Func(t, {0x03, 0x40, 0x0C, 0x00, 0x0B, 0x0B});
  b.ExportFunc("spin", f);
  return b.Build();
}

TEST(WasmRuntime, TypedHostFunction) {
  Store store;
  Linker linker;
  int calls = 0;
  linker.DefineFunc("env", "add", HostFunc::Make([&](HostCall&, int32_t a, int32_t b) -> int32_t {
                      ++calls;
                      return a + b;
                    }));
  auto inst = linker.Instantiate(store, MustDecode(AddViaHost()));
  ASSERT_TRUE(inst.ok()) << inst.error().message;
  Value arg = Value::I32(32);
  auto r = (*inst)->Call("run", {&arg, 1});
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].i32(), 42);
  EXPECT_EQ(calls, 1);
}

TEST(WasmRuntime, HostErrorBecomesTrap) {
  Store store;
  Linker linker;
  linker.DefineFunc("env", "add", HostFunc::Make([](HostCall&, int32_t, int32_t) -> Result<int32_t> {
                      return Error::Make("permission denied: no network capability");
                    }));
  auto inst = linker.Instantiate(store, MustDecode(AddViaHost()));
  ASSERT_TRUE(inst.ok());
  Value arg = Value::I32(1);
  auto r = (*inst)->Call("run", {&arg, 1});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, "trap");
  EXPECT_EQ(r.error().message, "permission denied: no network capability");
}

TEST(WasmRuntime, UnlinkableImports) {
  Store store;
  Linker linker;
  auto missing = linker.Instantiate(store, MustDecode(AddViaHost()));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind, "unlinkable");
  EXPECT_NE(missing.error().message.find("\"env\" \"add\""), std::string::npos);
  linker.DefineFunc("env", "add", HostFunc::Make([](HostCall&, int64_t a) -> int64_t { return a; }));
  auto wrong = linker.Instantiate(store, MustDecode(AddViaHost()));
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.error().kind, "unlinkable");
}

TEST(WasmRuntime, ArgumentsAreTypeChecked) {
  Store store;
  Linker linker;
  auto inst = linker.Instantiate(store, MustDecode(InfiniteLoop()));
  ASSERT_TRUE(inst.ok());
  Value arg = Value::I32(1);
  EXPECT_FALSE((*inst)->Call("spin", {&arg, 1}).ok());
  EXPECT_FALSE((*inst)->Call("nope", {}).ok());
}

TEST(WasmRuntime, FuelTrapsAndRefills) {
  Store store;
  Linker linker;
  auto inst = linker.Instantiate(store, MustDecode(InfiniteLoop()));
  ASSERT_TRUE(inst.ok());
  store.SetFuel(100000);
  auto r = (*inst)->Call("spin", {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, "trap");
  EXPECT_EQ(r.error().message, "fuel exhausted");
  EXPECT_EQ(store.fuel(), 0u);
  store.SetFuel(10);
  EXPECT_EQ((*inst)->Call("spin", {}).error().message, "fuel exhausted");
}

TEST(WasmRuntime, FuelIsChargedPerInstruction) {
  // fib-like loop: count down from n, returning 0. ~5 instructions/iteration.
  ModuleBuilder b;
  uint32_t t = b.Type({kI32}, {kI32});
  // (loop (local.set 0 (i32.sub (local.get 0) (i32.const 1))) (br_if 0 (local.get 0))) (local.get 0)
  uint32_t f = b.Func(t, {0x03, 0x40, 0x20, 0x00, 0x41, 0x01, 0x6B, 0x21, 0x00, 0x20, 0x00, 0x0D, 0x00, 0x0B,
                          0x20, 0x00, 0x0B});
  b.ExportFunc("count", f);
  Store store;
  Linker linker;
  auto inst = linker.Instantiate(store, MustDecode(b.Build()));
  ASSERT_TRUE(inst.ok());
  store.SetFuel(1000000);
  Value n = Value::I32(1000);
  auto r = (*inst)->Call("count", {&n, 1});
  ASSERT_TRUE(r.ok()) << r.error().message;
  uint64_t used = 1000000 - store.fuel();
  EXPECT_GE(used, 5000u);
  EXPECT_LE(used, 8000u);
}

TEST(WasmRuntime, InterruptFromAnotherThread) {
  Store store;
  Linker linker;
  auto inst = linker.Instantiate(store, MustDecode(InfiniteLoop()));
  ASSERT_TRUE(inst.ok());
  std::thread t([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    store.Interrupt();
  });
  auto r = (*inst)->Call("spin", {});
  t.join();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "interrupted");
  store.ClearInterrupt();
  store.SetFuel(1000);
  EXPECT_EQ((*inst)->Call("spin", {}).error().message, "fuel exhausted");
}

TEST(WasmRuntime, DeepRecursionTrapsInsteadOfOverflowing) {
  ModuleBuilder b;
  uint32_t t = b.Type({kI64}, {kI64});
  // (func $f (param i64) (result i64) (i64.add (call $f (local.get 0)) (i64.const 1)))
  uint32_t f = b.Func(t, {0x20, 0x00, 0x10, 0x00, 0x42, 0x01, 0x7C, 0x0B});
  b.ExportFunc("f", f);
  for (uint32_t depth : {100u, 10000u, 200000u}) {
    StoreLimits limits;
    limits.max_call_depth = depth;
    Store store(limits);
    Linker linker;
    auto inst = linker.Instantiate(store, MustDecode(b.Build()));
    ASSERT_TRUE(inst.ok());
    Value v = Value::I64(0);
    auto r = (*inst)->Call("f", {&v, 1});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().message, "call stack exhausted");
    // The store stays usable after the trap.
    auto again = (*inst)->Call("f", {&v, 1});
    EXPECT_EQ(again.error().message, "call stack exhausted");
  }
}

TEST(WasmRuntime, IntegerTrapsHaveSpecMessages) {
  ModuleBuilder b;
  uint32_t t = b.Type({kI32, kI32}, {kI32});
  uint32_t f = b.Func(t, {0x20, 0x00, 0x20, 0x01, 0x6D, 0x0B});  // i32.div_s
  b.ExportFunc("div", f);
  Store store;
  Linker linker;
  auto inst = linker.Instantiate(store, MustDecode(b.Build()));
  ASSERT_TRUE(inst.ok());
  Value zero[] = {Value::I32(1), Value::I32(0)};
  EXPECT_EQ((*inst)->Call("div", zero).error().message, "integer divide by zero");
  Value overflow[] = {Value::I32(INT32_MIN), Value::I32(-1)};
  EXPECT_EQ((*inst)->Call("div", overflow).error().message, "integer overflow");
  Value ok[] = {Value::I32(-7), Value::I32(2)};
  EXPECT_EQ((*(*inst)->Call("div", ok))[0].i32(), -3);
}

Bytes MemoryModule(uint32_t min, int64_t max) {
  ModuleBuilder b;
  uint32_t grow_t = b.Type({kI32}, {kI32});
  uint32_t load_t = b.Type({kI32}, {kI32});
  uint32_t grow = b.Func(grow_t, {0x20, 0x00, 0x40, 0x00, 0x0B});
  uint32_t load = b.Func(load_t, {0x20, 0x00, 0x28, 0x02, 0x00, 0x0B});
  b.Memory(min, max);
  b.ExportFunc("grow", grow);
  b.ExportFunc("load", load);
  b.Export("mem", 0x02, 0);
  return b.Build();
}

TEST(WasmRuntime, MemoryAccessorsCheckBounds) {
  Store store;
  Linker linker;
  auto inst = linker.Instantiate(store, MustDecode(MemoryModule(1, -1)));
  ASSERT_TRUE(inst.ok());
  Memory* mem = (*inst)->GetMemory("mem");
  ASSERT_NE(mem, nullptr);
  EXPECT_EQ(mem->size(), kPageSize);
  const uint8_t word[] = {0x2A, 0, 0, 0};
  EXPECT_TRUE(mem->Write(100, word).ok());
  Value addr = Value::I32(100);
  EXPECT_EQ((*(*inst)->Call("load", {&addr, 1}))[0].i32(), 42);
  EXPECT_FALSE(mem->Write(kPageSize - 3, word).ok());
  EXPECT_FALSE(mem->Write(UINT64_MAX - 1, word).ok());
  uint8_t out[8];
  EXPECT_FALSE(mem->Read(kPageSize - 4, out).ok());
  EXPECT_TRUE(mem->Read(kPageSize - 8, out).ok());
  EXPECT_FALSE(mem->ReadString(10, kPageSize).ok());
  EXPECT_EQ(*mem->ReadString(100, 1), "*");
  Value oob = Value::I32(-1);
  EXPECT_EQ((*inst)->Call("load", {&oob, 1}).error().message, "out of bounds memory access");
}

TEST(WasmRuntime, MemoryGrowthIsCappedByStoreLimits) {
  StoreLimits limits;
  limits.max_memory_pages = 4;
  Store store(limits);
  Linker linker;
  auto too_big = linker.Instantiate(store, MustDecode(MemoryModule(5, -1)));
  ASSERT_FALSE(too_big.ok());
  EXPECT_NE(too_big.error().message.find("exceeds"), std::string::npos);
  auto inst = linker.Instantiate(store, MustDecode(MemoryModule(1, -1)));
  ASSERT_TRUE(inst.ok());
  Value three = Value::I32(3);
  EXPECT_EQ((*(*inst)->Call("grow", {&three, 1}))[0].i32(), 1);
  Value one = Value::I32(1);
  EXPECT_EQ((*(*inst)->Call("grow", {&one, 1}))[0].i32(), -1);
  EXPECT_EQ((*inst)->memory()->pages(), 4u);
}

TEST(WasmRuntime, HostCanCallBackIntoWasm) {
  // wasm run(x) -> host add(x, 10) -> host calls wasm "double"(x) -> 2x.
  ModuleBuilder b;
  uint32_t t2 = b.Type({kI32, kI32}, {kI32});
  uint32_t t1 = b.Type({kI32}, {kI32});
  uint32_t add = b.ImportFunc("env", "add", t2);
  uint32_t run = b.Func(t1, {0x20, 0x00, 0x41, 0x0A, 0x10, static_cast<uint8_t>(add), 0x0B});
  uint32_t dbl = b.Func(t1, {0x20, 0x00, 0x20, 0x00, 0x6A, 0x0B});
  b.ExportFunc("run", run);
  b.ExportFunc("double", dbl);
  Store store;
  Linker linker;
  linker.DefineFunc("env", "add", HostFunc::Make([](HostCall& c, int32_t a, int32_t x) -> Result<int32_t> {
                      Value v = Value::I32(a);
                      auto r = c.caller->Call("double", {&v, 1});
                      if (!r.ok()) return r.error();
                      return (*r)[0].i32() + x;
                    }));
  auto inst = linker.Instantiate(store, MustDecode(b.Build()));
  ASSERT_TRUE(inst.ok());
  Value v = Value::I32(16);
  auto r = (*inst)->Call("run", {&v, 1});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ((*r)[0].i32(), 42);
}

}  // namespace
}  // namespace sepp::wasm

namespace sepp::wasm {
namespace {

TEST(WasmRuntime, BulkMemoryCostsFuelBySize) {
  testing::ModuleBuilder b;
  uint32_t t = b.Type({testing::kI32}, {});
  // (func (param i32) (memory.fill (i32.const 0) (i32.const 0) (local.get 0)))
  uint32_t f = b.Func(t, {0x41, 0x00, 0x41, 0x00, 0x20, 0x00, 0xFC, 0x0B, 0x00, 0x0B});
  b.Memory(1);
  b.ExportFunc("fill", f);
  Store store;
  Linker linker;
  auto inst = linker.Instantiate(store, MustDecode(b.Build()));
  ASSERT_TRUE(inst.ok());
  store.SetFuel(100);
  Value small = Value::I32(64);
  EXPECT_TRUE((*inst)->Call("fill", {&small, 1}).ok());
  Value page = Value::I32(65536);
  EXPECT_EQ((*inst)->Call("fill", {&page, 1}).error().message, "fuel exhausted");
  store.SetFuel(2000);
  EXPECT_TRUE((*inst)->Call("fill", {&page, 1}).ok());
}

}  // namespace
}  // namespace sepp::wasm
