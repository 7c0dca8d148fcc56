// The interpreter: one loop over the internal form (ops.h) with threaded
// dispatch (computed goto), so each handler jumps straight to the next.
//
// Machine state lives in locals the compiler keeps in registers: ip (current
// instruction), sp (first free slot), fp (frame base: params then locals),
// inst (current instance), mem/mem_size (its linear memory), fuel. Calls
// between wasm functions do not recurse on the native stack: a Frame records
// the return ip, fp and instance, so deep wasm recursion is bounded by
// max_call_depth and the value stack, never by the host's C++ stack. Host
// functions are called directly; if they call back into wasm, Execute is
// re-entered above the current stack top.
#include "wasm/interp.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <vector>

#include "wasm/numeric.h"

namespace sepp::wasm {
namespace {

struct Frame {
  const Instr* ret_ip;
  uint64_t* fp;
  Instance* inst;
};

Status TrapError(const char* message) { return Error::Make(message, "trap"); }

Status CallHost(Store& store, Function* f, Instance* caller, uint64_t* args) {
  const FuncType& t = f->type;
  std::vector<Value> in(t.params.size());
  for (size_t i = 0; i < in.size(); ++i) in[i] = Value{t.params[i], args[i]};
  std::vector<Value> out(t.results.size());
  for (size_t i = 0; i < out.size(); ++i) out[i] = Value{t.results[i], 0};
  HostCall call{store, caller, caller ? caller->memory_ : nullptr, in, out};
  uint64_t* saved_top = store.stack_top_;
  store.stack_top_ = args + std::max(in.size(), out.size());
  Status st = f->host(call);
  store.stack_top_ = saved_top;
  if (!st.ok()) return Error::Make(st.error().message, "trap");
  for (size_t i = 0; i < out.size(); ++i) {
    uint64_t bits = out[i].bits;
    if (t.results[i] == ValType::kI32 || t.results[i] == ValType::kF32) bits &= 0xFFFFFFFFu;
    args[i] = bits;
  }
  return Ok();
}

}  // namespace

Status Execute(Store& store, Function* entry, uint64_t* slots) {
  uint64_t* const stack_end = store.stack_.data() + store.stack_.size();
  if (!entry->code) {
    if (slots + entry->type.params.size() + entry->type.results.size() > stack_end)
      return TrapError("call stack exhausted");
    return CallHost(store, entry, nullptr, slots);
  }

#define SEPP_WASM_LABEL(name) &&L_##name,
  static const void* const kLabels[] = {SEPP_WASM_OPS(SEPP_WASM_LABEL)};
#undef SEPP_WASM_LABEL

  std::vector<Frame> frames;
  frames.reserve(16);
  const uint32_t max_depth = store.limits().max_call_depth;
  const uint32_t base_depth = store.depth_;
  std::atomic<bool>* interrupt = &store.interrupt_;
  int64_t fuel = store.fuel_;

  const Instr* ip = nullptr;
  uint64_t* sp = slots + entry->type.params.size();
  uint64_t* fp = slots;
  Instance* inst = nullptr;
  Memory* memory = nullptr;
  uint8_t* mem = nullptr;
  uint64_t mem_size = 0;
  Function* callee = entry;
  const char* trap = nullptr;
  Status host_status;

#define LOAD_MEM()                    \
  do {                                \
    memory = inst->memory_;           \
    if (memory) {                     \
      mem = memory->data();           \
      mem_size = memory->size();      \
    } else {                          \
      mem = nullptr;                  \
      mem_size = 0;                   \
    }                                 \
  } while (0)
#define DISPATCH() goto* kLabels[static_cast<int>(ip->op)]
  // Bulk operations cost fuel in proportion to their size: one unit per 64
  // bytes (8 table slots), so a budget bounds wall-clock time too.
#define CHARGE(units)                                   \
  do {                                                  \
    fuel -= static_cast<int64_t>(units);                \
    if (fuel < 0) TRAP("fuel exhausted");               \
  } while (0)
#define NEXT()  \
  do {          \
    ++ip;       \
    DISPATCH(); \
  } while (0)
#define TRAP(msg)  \
  do {             \
    trap = msg;    \
    goto do_trap;  \
  } while (0)

  // Enter the entry function as if called from a frame that returns to the
  // host (ret_ip == nullptr).
  frames.push_back(Frame{nullptr, nullptr, nullptr});
  fp = slots;
  goto enter_wasm;

enter_wasm : {
  // callee is a wasm function; its args are at fp[0..params).
  const CompiledFunc* code = callee->code;
  // frames.size() - 1 wasm frames are live in this activation.
  if (base_depth + frames.size() > max_depth) TRAP("call stack exhausted");
  if (fp + code->max_height + 4 > stack_end) TRAP("call stack exhausted");
  sp = fp + code->num_locals;
  for (uint64_t* p = fp + code->num_params; p < sp; ++p) *p = 0;
  inst = callee->instance;
  LOAD_MEM();
  ip = code->code.data();
  DISPATCH();
}

do_call : {
  // callee set; args are the top params slots of sp.
  if (callee->code) {
    frames.push_back(Frame{ip + 1, fp, inst});
    fp = sp - callee->code->num_params;
    goto enter_wasm;
  }
  size_t np = callee->type.params.size();
  size_t nr = callee->type.results.size();
  uint64_t* args = sp - np;
  if (args + std::max(np, nr) + 4 > stack_end) TRAP("call stack exhausted");
  if (base_depth + frames.size() > max_depth) TRAP("call stack exhausted");
  store.fuel_ = fuel;
  store.depth_ = base_depth + static_cast<uint32_t>(frames.size());
  host_status = CallHost(store, callee, inst, args);
  store.depth_ = base_depth;
  fuel = store.fuel_;
  if (!host_status.ok()) goto do_host_trap;
  sp = args + nr;
  LOAD_MEM();
  NEXT();
}

L_Unreachable:
  TRAP("unreachable");
L_Nop:
  NEXT();
L_Fuel:
  fuel -= static_cast<int64_t>(ip->b);
  if (fuel < 0) TRAP("fuel exhausted");
  if (interrupt->load(std::memory_order_relaxed)) TRAP("interrupted");
  NEXT();
L_Br:
  ip += static_cast<int32_t>(ip->a);
  DISPATCH();
L_BrMove : {
  uint32_t drop = static_cast<uint32_t>(ip->b);
  uint32_t keep = static_cast<uint32_t>(ip->b >> 32);
  std::memmove(sp - keep - drop, sp - keep, keep * sizeof(uint64_t));
  sp -= drop;
  ip += static_cast<int32_t>(ip->a);
  DISPATCH();
}
L_BrIf:
  if (static_cast<uint32_t>(*--sp)) {
    ip += static_cast<int32_t>(ip->a);
    DISPATCH();
  }
  NEXT();
L_BrIfMove:
  if (static_cast<uint32_t>(*--sp)) goto L_BrMove;
  NEXT();
L_BrUnless:
  if (!static_cast<uint32_t>(*--sp)) {
    ip += static_cast<int32_t>(ip->a);
    DISPATCH();
  }
  NEXT();
L_BrTable : {
  uint32_t idx = static_cast<uint32_t>(*--sp);
  uint32_t n = ip->a;
  const Instr* t = ip + 1 + (idx < n ? idx : n);
  uint32_t drop = static_cast<uint32_t>(t->b);
  uint32_t keep = static_cast<uint32_t>(t->b >> 32);
  if (drop) {
    std::memmove(sp - keep - drop, sp - keep, keep * sizeof(uint64_t));
    sp -= drop;
  }
  ip += static_cast<int32_t>(t->a);
  DISPATCH();
}
L_Return : {
  uint32_t n = ip->a;
  for (uint32_t i = 0; i < n; ++i) fp[i] = sp[static_cast<ptrdiff_t>(i) - n];
  sp = fp + n;
  Frame fr = frames.back();
  frames.pop_back();
  if (!fr.ret_ip) {
    store.fuel_ = fuel;
    return Ok();
  }
  ip = fr.ret_ip;
  fp = fr.fp;
  inst = fr.inst;
  LOAD_MEM();
  DISPATCH();
}
L_Call:
  callee = inst->funcs_[ip->a];
  goto do_call;
L_CallIndirect : {
  Table* table = inst->tables_[ip->b];
  uint32_t idx = static_cast<uint32_t>(*--sp);
  if (idx >= table->size()) TRAP("undefined element");
  uint64_t ref = table->elems()[idx];
  if (!ref) TRAP("uninitialized element");
  callee = reinterpret_cast<Function*>(ref);
  if (callee->type_id != inst->type_ids_[ip->a]) TRAP("indirect call type mismatch");
  goto do_call;
}
L_Drop:
  --sp;
  NEXT();
L_Select : {
  uint32_t c = static_cast<uint32_t>(sp[-1]);
  sp -= 2;
  if (!c) sp[-1] = sp[0];
  NEXT();
}
L_LocalGet:
  *sp++ = fp[ip->a];
  NEXT();
L_LocalSet:
  fp[ip->a] = *--sp;
  NEXT();
L_LocalTee:
  fp[ip->a] = sp[-1];
  NEXT();
L_GlobalGet:
  *sp++ = inst->globals_[ip->a]->bits_;
  NEXT();
L_GlobalSet:
  inst->globals_[ip->a]->bits_ = *--sp;
  NEXT();
L_TableGet : {
  Table* t = inst->tables_[ip->a];
  uint32_t i = static_cast<uint32_t>(sp[-1]);
  if (i >= t->size()) TRAP("out of bounds table access");
  sp[-1] = t->elems()[i];
  NEXT();
}
L_TableSet : {
  Table* t = inst->tables_[ip->a];
  uint64_t v = sp[-1];
  uint32_t i = static_cast<uint32_t>(sp[-2]);
  sp -= 2;
  if (i >= t->size()) TRAP("out of bounds table access");
  t->elems()[i] = v;
  NEXT();
}
L_Const:
  *sp++ = ip->b;
  NEXT();

#define LOAD_OP(name, CT, EXPR)                                          \
  L_##name : {                                                           \
    uint64_t ea = static_cast<uint64_t>(static_cast<uint32_t>(sp[-1])) + ip->a; \
    if (ea + sizeof(CT) > mem_size) TRAP("out of bounds memory access"); \
    CT v;                                                                \
    std::memcpy(&v, mem + ea, sizeof(CT));                               \
    sp[-1] = (EXPR);                                                     \
    NEXT();                                                              \
  }
  LOAD_OP(I32Load, uint32_t, v)
  LOAD_OP(I64Load, uint64_t, v)
  LOAD_OP(F32Load, uint32_t, v)
  LOAD_OP(F64Load, uint64_t, v)
  LOAD_OP(I32Load8S, int8_t, static_cast<uint32_t>(static_cast<int32_t>(v)))
  LOAD_OP(I32Load8U, uint8_t, static_cast<uint32_t>(v))
  LOAD_OP(I32Load16S, int16_t, static_cast<uint32_t>(static_cast<int32_t>(v)))
  LOAD_OP(I32Load16U, uint16_t, static_cast<uint32_t>(v))
  LOAD_OP(I64Load8S, int8_t, static_cast<uint64_t>(static_cast<int64_t>(v)))
  LOAD_OP(I64Load8U, uint8_t, static_cast<uint64_t>(v))
  LOAD_OP(I64Load16S, int16_t, static_cast<uint64_t>(static_cast<int64_t>(v)))
  LOAD_OP(I64Load16U, uint16_t, static_cast<uint64_t>(v))
  LOAD_OP(I64Load32S, int32_t, static_cast<uint64_t>(static_cast<int64_t>(v)))
  LOAD_OP(I64Load32U, uint32_t, static_cast<uint64_t>(v))
#undef LOAD_OP

#define STORE_OP(name, CT)                                                      \
  L_##name : {                                                                  \
    uint64_t ea = static_cast<uint64_t>(static_cast<uint32_t>(sp[-2])) + ip->a; \
    if (ea + sizeof(CT) > mem_size) TRAP("out of bounds memory access");        \
    CT v = static_cast<CT>(sp[-1]);                                             \
    std::memcpy(mem + ea, &v, sizeof(CT));                                      \
    sp -= 2;                                                                    \
    NEXT();                                                                     \
  }
  STORE_OP(I32Store, uint32_t)
  STORE_OP(I64Store, uint64_t)
  STORE_OP(F32Store, uint32_t)
  STORE_OP(F64Store, uint64_t)
  STORE_OP(I32Store8, uint8_t)
  STORE_OP(I32Store16, uint16_t)
  STORE_OP(I64Store8, uint8_t)
  STORE_OP(I64Store16, uint16_t)
  STORE_OP(I64Store32, uint32_t)
#undef STORE_OP

L_MemorySize:
  *sp++ = mem_size / kPageSize;
  NEXT();
L_MemoryGrow : {
  uint64_t delta = static_cast<uint32_t>(sp[-1]);
  int64_t old = memory->Grow(delta);
  if (old >= 0) CHARGE(delta * (kPageSize >> 6));
  sp[-1] = static_cast<uint32_t>(static_cast<int32_t>(old));
  LOAD_MEM();
  NEXT();
}

  // --- integer arithmetic and comparison ---
#define I32A (static_cast<uint32_t>(sp[-2]))
#define I32B (static_cast<uint32_t>(sp[-1]))
#define I64A (sp[-2])
#define I64B (sp[-1])
#define BIN(name, EXPR)  \
  L_##name : {           \
    sp[-2] = (EXPR);     \
    --sp;                \
    NEXT();              \
  }
#define UN(name, EXPR) \
  L_##name : {         \
    sp[-1] = (EXPR);   \
    NEXT();            \
  }
  UN(I32Eqz, static_cast<uint32_t>(sp[-1]) == 0)
  BIN(I32Eq, I32A == I32B)
  BIN(I32Ne, I32A != I32B)
  BIN(I32LtS, static_cast<int32_t>(I32A) < static_cast<int32_t>(I32B))
  BIN(I32LtU, I32A < I32B)
  BIN(I32GtS, static_cast<int32_t>(I32A) > static_cast<int32_t>(I32B))
  BIN(I32GtU, I32A > I32B)
  BIN(I32LeS, static_cast<int32_t>(I32A) <= static_cast<int32_t>(I32B))
  BIN(I32LeU, I32A <= I32B)
  BIN(I32GeS, static_cast<int32_t>(I32A) >= static_cast<int32_t>(I32B))
  BIN(I32GeU, I32A >= I32B)
  UN(I64Eqz, sp[-1] == 0)
  BIN(I64Eq, I64A == I64B)
  BIN(I64Ne, I64A != I64B)
  BIN(I64LtS, static_cast<int64_t>(I64A) < static_cast<int64_t>(I64B))
  BIN(I64LtU, I64A < I64B)
  BIN(I64GtS, static_cast<int64_t>(I64A) > static_cast<int64_t>(I64B))
  BIN(I64GtU, I64A > I64B)
  BIN(I64LeS, static_cast<int64_t>(I64A) <= static_cast<int64_t>(I64B))
  BIN(I64LeU, I64A <= I64B)
  BIN(I64GeS, static_cast<int64_t>(I64A) >= static_cast<int64_t>(I64B))
  BIN(I64GeU, I64A >= I64B)
  BIN(F32Eq, num::F32(sp[-2]) == num::F32(sp[-1]))
  BIN(F32Ne, num::F32(sp[-2]) != num::F32(sp[-1]))
  BIN(F32Lt, num::F32(sp[-2]) < num::F32(sp[-1]))
  BIN(F32Gt, num::F32(sp[-2]) > num::F32(sp[-1]))
  BIN(F32Le, num::F32(sp[-2]) <= num::F32(sp[-1]))
  BIN(F32Ge, num::F32(sp[-2]) >= num::F32(sp[-1]))
  BIN(F64Eq, num::F64(sp[-2]) == num::F64(sp[-1]))
  BIN(F64Ne, num::F64(sp[-2]) != num::F64(sp[-1]))
  BIN(F64Lt, num::F64(sp[-2]) < num::F64(sp[-1]))
  BIN(F64Gt, num::F64(sp[-2]) > num::F64(sp[-1]))
  BIN(F64Le, num::F64(sp[-2]) <= num::F64(sp[-1]))
  BIN(F64Ge, num::F64(sp[-2]) >= num::F64(sp[-1]))

  UN(I32Clz, static_cast<uint32_t>(std::countl_zero(static_cast<uint32_t>(sp[-1]))))
  UN(I32Ctz, static_cast<uint32_t>(std::countr_zero(static_cast<uint32_t>(sp[-1]))))
  UN(I32Popcnt, static_cast<uint32_t>(std::popcount(static_cast<uint32_t>(sp[-1]))))
  BIN(I32Add, static_cast<uint32_t>(I32A + I32B))
  BIN(I32Sub, static_cast<uint32_t>(I32A - I32B))
  BIN(I32Mul, static_cast<uint32_t>(I32A * I32B))
L_I32DivS : {
  int32_t a = static_cast<int32_t>(I32A), b = static_cast<int32_t>(I32B);
  if (b == 0) TRAP("integer divide by zero");
  if (a == INT32_MIN && b == -1) TRAP("integer overflow");
  sp[-2] = static_cast<uint32_t>(a / b);
  --sp;
  NEXT();
}
L_I32DivU : {
  uint32_t a = I32A, b = I32B;
  if (b == 0) TRAP("integer divide by zero");
  sp[-2] = a / b;
  --sp;
  NEXT();
}
L_I32RemS : {
  int32_t a = static_cast<int32_t>(I32A), b = static_cast<int32_t>(I32B);
  if (b == 0) TRAP("integer divide by zero");
  sp[-2] = (b == -1) ? 0 : static_cast<uint32_t>(a % b);
  --sp;
  NEXT();
}
L_I32RemU : {
  uint32_t a = I32A, b = I32B;
  if (b == 0) TRAP("integer divide by zero");
  sp[-2] = a % b;
  --sp;
  NEXT();
}
  BIN(I32And, I32A & I32B)
  BIN(I32Or, I32A | I32B)
  BIN(I32Xor, I32A ^ I32B)
  BIN(I32Shl, static_cast<uint32_t>(I32A << (I32B & 31)))
  BIN(I32ShrS, static_cast<uint32_t>(static_cast<int32_t>(I32A) >> (I32B & 31)))
  BIN(I32ShrU, I32A >> (I32B & 31))
  BIN(I32Rotl, std::rotl(I32A, static_cast<int>(I32B & 31)))
  BIN(I32Rotr, std::rotr(I32A, static_cast<int>(I32B & 31)))

  UN(I64Clz, static_cast<uint64_t>(std::countl_zero(sp[-1])))
  UN(I64Ctz, static_cast<uint64_t>(std::countr_zero(sp[-1])))
  UN(I64Popcnt, static_cast<uint64_t>(std::popcount(sp[-1])))
  BIN(I64Add, I64A + I64B)
  BIN(I64Sub, I64A - I64B)
  BIN(I64Mul, I64A * I64B)
L_I64DivS : {
  int64_t a = static_cast<int64_t>(I64A), b = static_cast<int64_t>(I64B);
  if (b == 0) TRAP("integer divide by zero");
  if (a == INT64_MIN && b == -1) TRAP("integer overflow");
  sp[-2] = static_cast<uint64_t>(a / b);
  --sp;
  NEXT();
}
L_I64DivU : {
  uint64_t a = I64A, b = I64B;
  if (b == 0) TRAP("integer divide by zero");
  sp[-2] = a / b;
  --sp;
  NEXT();
}
L_I64RemS : {
  int64_t a = static_cast<int64_t>(I64A), b = static_cast<int64_t>(I64B);
  if (b == 0) TRAP("integer divide by zero");
  sp[-2] = (b == -1) ? 0 : static_cast<uint64_t>(a % b);
  --sp;
  NEXT();
}
L_I64RemU : {
  uint64_t a = I64A, b = I64B;
  if (b == 0) TRAP("integer divide by zero");
  sp[-2] = a % b;
  --sp;
  NEXT();
}
  BIN(I64And, I64A & I64B)
  BIN(I64Or, I64A | I64B)
  BIN(I64Xor, I64A ^ I64B)
  BIN(I64Shl, I64A << (I64B & 63))
  BIN(I64ShrS, static_cast<uint64_t>(static_cast<int64_t>(I64A) >> (I64B & 63)))
  BIN(I64ShrU, I64A >> (I64B & 63))
  BIN(I64Rotl, std::rotl(I64A, static_cast<int>(I64B & 63)))
  BIN(I64Rotr, std::rotr(I64A, static_cast<int>(I64B & 63)))

  // --- floating point ---
  UN(F32Abs, sp[-1] & 0x7FFFFFFFu)
  UN(F32Neg, (sp[-1] ^ 0x80000000u) & 0xFFFFFFFFu)
  UN(F32Ceil, num::Bits(num::Ceil(num::F32(sp[-1]))))
  UN(F32Floor, num::Bits(num::Floor(num::F32(sp[-1]))))
  UN(F32Trunc, num::Bits(num::TruncF(num::F32(sp[-1]))))
  UN(F32Nearest, num::Bits(num::Nearest(num::F32(sp[-1]))))
  UN(F32Sqrt, num::Bits(std::sqrt(num::F32(sp[-1]))))
  BIN(F32Add, num::Bits(num::F32(sp[-2]) + num::F32(sp[-1])))
  BIN(F32Sub, num::Bits(num::F32(sp[-2]) - num::F32(sp[-1])))
  BIN(F32Mul, num::Bits(num::F32(sp[-2]) * num::F32(sp[-1])))
  BIN(F32Div, num::Bits(num::F32(sp[-2]) / num::F32(sp[-1])))
  BIN(F32Min, num::Bits(num::Min(num::F32(sp[-2]), num::F32(sp[-1]))))
  BIN(F32Max, num::Bits(num::Max(num::F32(sp[-2]), num::F32(sp[-1]))))
  BIN(F32Copysign, (sp[-2] & 0x7FFFFFFFu) | (sp[-1] & 0x80000000u))
  UN(F64Abs, sp[-1] & 0x7FFFFFFFFFFFFFFFull)
  UN(F64Neg, sp[-1] ^ 0x8000000000000000ull)
  UN(F64Ceil, num::Bits(num::Ceil(num::F64(sp[-1]))))
  UN(F64Floor, num::Bits(num::Floor(num::F64(sp[-1]))))
  UN(F64Trunc, num::Bits(num::TruncF(num::F64(sp[-1]))))
  UN(F64Nearest, num::Bits(num::Nearest(num::F64(sp[-1]))))
  UN(F64Sqrt, num::Bits(std::sqrt(num::F64(sp[-1]))))
  BIN(F64Add, num::Bits(num::F64(sp[-2]) + num::F64(sp[-1])))
  BIN(F64Sub, num::Bits(num::F64(sp[-2]) - num::F64(sp[-1])))
  BIN(F64Mul, num::Bits(num::F64(sp[-2]) * num::F64(sp[-1])))
  BIN(F64Div, num::Bits(num::F64(sp[-2]) / num::F64(sp[-1])))
  BIN(F64Min, num::Bits(num::Min(num::F64(sp[-2]), num::F64(sp[-1]))))
  BIN(F64Max, num::Bits(num::Max(num::F64(sp[-2]), num::F64(sp[-1]))))
  BIN(F64Copysign, (sp[-2] & 0x7FFFFFFFFFFFFFFFull) | (sp[-1] & 0x8000000000000000ull))

  // --- conversions ---
  UN(I32WrapI64, sp[-1] & 0xFFFFFFFFu)
#define TRUNC_OP(name, I, FROM)                                  \
  L_##name : {                                                   \
    I r;                                                         \
    num::TruncError e = num::Trunc<I>(FROM(sp[-1]), &r);         \
    if (e == num::TruncError::kNaN) TRAP("invalid conversion to integer"); \
    if (e == num::TruncError::kOverflow) TRAP("integer overflow"); \
    if constexpr (sizeof(I) == 4) sp[-1] = static_cast<uint32_t>(r); \
    else sp[-1] = static_cast<uint64_t>(r);                      \
    NEXT();                                                      \
  }
  TRUNC_OP(I32TruncF32S, int32_t, num::F32)
  TRUNC_OP(I32TruncF32U, uint32_t, num::F32)
  TRUNC_OP(I32TruncF64S, int32_t, num::F64)
  TRUNC_OP(I32TruncF64U, uint32_t, num::F64)
  TRUNC_OP(I64TruncF32S, int64_t, num::F32)
  TRUNC_OP(I64TruncF32U, uint64_t, num::F32)
  TRUNC_OP(I64TruncF64S, int64_t, num::F64)
  TRUNC_OP(I64TruncF64U, uint64_t, num::F64)
#undef TRUNC_OP
  UN(I64ExtendI32S, static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(sp[-1]))))
  UN(F32ConvertI32S, num::Bits(static_cast<float>(static_cast<int32_t>(sp[-1]))))
  UN(F32ConvertI32U, num::Bits(static_cast<float>(static_cast<uint32_t>(sp[-1]))))
  UN(F32ConvertI64S, num::Bits(static_cast<float>(static_cast<int64_t>(sp[-1]))))
  UN(F32ConvertI64U, num::Bits(static_cast<float>(sp[-1])))
  UN(F32DemoteF64, num::Bits(static_cast<float>(num::F64(sp[-1]))))
  UN(F64ConvertI32S, num::Bits(static_cast<double>(static_cast<int32_t>(sp[-1]))))
  UN(F64ConvertI32U, num::Bits(static_cast<double>(static_cast<uint32_t>(sp[-1]))))
  UN(F64ConvertI64S, num::Bits(static_cast<double>(static_cast<int64_t>(sp[-1]))))
  UN(F64ConvertI64U, num::Bits(static_cast<double>(sp[-1])))
  UN(F64PromoteF32, num::Bits(static_cast<double>(num::F32(sp[-1]))))
L_Reinterpret:
  NEXT();
  UN(I32Extend8S, static_cast<uint32_t>(static_cast<int32_t>(static_cast<int8_t>(sp[-1]))))
  UN(I32Extend16S, static_cast<uint32_t>(static_cast<int32_t>(static_cast<int16_t>(sp[-1]))))
  UN(I64Extend8S, static_cast<uint64_t>(static_cast<int64_t>(static_cast<int8_t>(sp[-1]))))
  UN(I64Extend16S, static_cast<uint64_t>(static_cast<int64_t>(static_cast<int16_t>(sp[-1]))))
  UN(I64Extend32S, static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(sp[-1]))))
  UN(RefIsNull, sp[-1] == 0 ? 1u : 0u)
L_RefFunc:
  *sp++ = reinterpret_cast<uint64_t>(inst->funcs_[ip->a]);
  NEXT();
  UN(I32TruncSatF32S, static_cast<uint32_t>(num::TruncSat<int32_t>(num::F32(sp[-1]))))
  UN(I32TruncSatF32U, static_cast<uint32_t>(num::TruncSat<uint32_t>(num::F32(sp[-1]))))
  UN(I32TruncSatF64S, static_cast<uint32_t>(num::TruncSat<int32_t>(num::F64(sp[-1]))))
  UN(I32TruncSatF64U, static_cast<uint32_t>(num::TruncSat<uint32_t>(num::F64(sp[-1]))))
  UN(I64TruncSatF32S, static_cast<uint64_t>(num::TruncSat<int64_t>(num::F32(sp[-1]))))
  UN(I64TruncSatF32U, static_cast<uint64_t>(num::TruncSat<uint64_t>(num::F32(sp[-1]))))
  UN(I64TruncSatF64S, static_cast<uint64_t>(num::TruncSat<int64_t>(num::F64(sp[-1]))))
  UN(I64TruncSatF64U, static_cast<uint64_t>(num::TruncSat<uint64_t>(num::F64(sp[-1]))))

  // --- bulk memory and tables ---
L_MemoryInit : {
  uint64_t n = static_cast<uint32_t>(sp[-1]);
  uint64_t s = static_cast<uint32_t>(sp[-2]);
  uint64_t d = static_cast<uint32_t>(sp[-3]);
  sp -= 3;
  const std::vector<uint8_t>& data = inst->module_->datas[ip->a].bytes;
  uint64_t avail = inst->data_dropped_[ip->a] ? 0 : data.size();
  if (s + n > avail || d + n > mem_size) TRAP("out of bounds memory access");
  CHARGE(n >> 6);
  if (n) std::memcpy(mem + d, data.data() + s, n);
  NEXT();
}
L_DataDrop:
  inst->data_dropped_[ip->a] = true;
  NEXT();
L_MemoryCopy : {
  uint64_t n = static_cast<uint32_t>(sp[-1]);
  uint64_t s = static_cast<uint32_t>(sp[-2]);
  uint64_t d = static_cast<uint32_t>(sp[-3]);
  sp -= 3;
  if (s + n > mem_size || d + n > mem_size) TRAP("out of bounds memory access");
  CHARGE(n >> 6);
  if (n) std::memmove(mem + d, mem + s, n);
  NEXT();
}
L_MemoryFill : {
  uint64_t n = static_cast<uint32_t>(sp[-1]);
  uint8_t v = static_cast<uint8_t>(sp[-2]);
  uint64_t d = static_cast<uint32_t>(sp[-3]);
  sp -= 3;
  if (d + n > mem_size) TRAP("out of bounds memory access");
  CHARGE(n >> 6);
  if (n) std::memset(mem + d, v, n);
  NEXT();
}
L_TableInit : {
  uint64_t n = static_cast<uint32_t>(sp[-1]);
  uint64_t s = static_cast<uint32_t>(sp[-2]);
  uint64_t d = static_cast<uint32_t>(sp[-3]);
  sp -= 3;
  const std::vector<uint64_t>& seg = inst->elems_[ip->a];
  Table* t = inst->tables_[ip->b];
  if (s + n > seg.size() || d + n > t->size()) TRAP("out of bounds table access");
  CHARGE(n >> 3);
  if (n) std::memcpy(t->elems().data() + d, seg.data() + s, n * sizeof(uint64_t));
  NEXT();
}
L_ElemDrop:
  inst->elems_[ip->a].clear();
  inst->elems_[ip->a].shrink_to_fit();
  NEXT();
L_TableCopy : {
  uint64_t n = static_cast<uint32_t>(sp[-1]);
  uint64_t s = static_cast<uint32_t>(sp[-2]);
  uint64_t d = static_cast<uint32_t>(sp[-3]);
  sp -= 3;
  Table* dt = inst->tables_[ip->a];
  Table* st = inst->tables_[ip->b];
  if (s + n > st->size() || d + n > dt->size()) TRAP("out of bounds table access");
  CHARGE(n >> 3);
  if (n) std::memmove(dt->elems().data() + d, st->elems().data() + s, n * sizeof(uint64_t));
  NEXT();
}
L_TableGrow : {
  Table* t = inst->tables_[ip->a];
  uint64_t n = static_cast<uint32_t>(sp[-1]);
  uint64_t init = sp[-2];
  --sp;
  int64_t old = t->Grow(n, init);
  if (old >= 0) CHARGE(n >> 3);
  sp[-1] = static_cast<uint32_t>(static_cast<int32_t>(old));
  NEXT();
}
L_TableSize:
  *sp++ = inst->tables_[ip->a]->size();
  NEXT();
L_TableFill : {
  uint64_t n = static_cast<uint32_t>(sp[-1]);
  uint64_t v = sp[-2];
  uint64_t d = static_cast<uint32_t>(sp[-3]);
  sp -= 3;
  Table* t = inst->tables_[ip->a];
  if (d + n > t->size()) TRAP("out of bounds table access");
  CHARGE(n >> 3);
  for (uint64_t i = 0; i < n; ++i) t->elems()[d + i] = v;
  NEXT();
}

  // --- fused sequences (compiler.cc documents the packing) ---
L_LocalGetLocalGet:
  sp[0] = fp[ip->a];
  sp[1] = fp[ip->b];
  sp += 2;
  NEXT();
L_I32AddLocalConst:
  *sp++ = static_cast<uint32_t>(static_cast<uint32_t>(fp[ip->a]) + static_cast<uint32_t>(ip->b));
  NEXT();
L_LocalSetLocalGet:
  fp[ip->a] = sp[-1];
  sp[-1] = fp[ip->b];
  NEXT();
L_I32AddLL:
  *sp++ = static_cast<uint32_t>(static_cast<uint32_t>(fp[ip->a]) + static_cast<uint32_t>(fp[ip->b]));
  NEXT();
L_I32SubLL:
  *sp++ = static_cast<uint32_t>(static_cast<uint32_t>(fp[ip->a]) - static_cast<uint32_t>(fp[ip->b]));
  NEXT();
L_I32AndLL:
  *sp++ = static_cast<uint32_t>(fp[ip->a]) & static_cast<uint32_t>(fp[ip->b]);
  NEXT();
L_I32LtSLL:
  *sp++ = static_cast<int32_t>(fp[ip->a]) < static_cast<int32_t>(fp[ip->b]);
  NEXT();
L_I32LtULL:
  *sp++ = static_cast<uint32_t>(fp[ip->a]) < static_cast<uint32_t>(fp[ip->b]);
  NEXT();
L_I64AddLL:
  *sp++ = fp[ip->a] + fp[ip->b];
  NEXT();
  UN(I32AddConst, static_cast<uint32_t>(static_cast<uint32_t>(sp[-1]) + static_cast<uint32_t>(ip->b)))
  UN(I32AndConst, static_cast<uint32_t>(sp[-1]) & static_cast<uint32_t>(ip->b))
  UN(I32ShlConst, static_cast<uint32_t>(static_cast<uint32_t>(sp[-1]) << (ip->b & 31)))
  UN(I32ShrUConst, static_cast<uint32_t>(sp[-1]) >> (ip->b & 31))
L_I32LoadLocal : {
  // b = local slot holding the address; a = static offset.
  uint64_t ea = static_cast<uint64_t>(static_cast<uint32_t>(fp[ip->b])) + ip->a;
  if (ea + 4 > mem_size) TRAP("out of bounds memory access");
  uint32_t v;
  std::memcpy(&v, mem + ea, 4);
  *sp++ = v;
  NEXT();
}
L_BrIfEqz:
  if (!static_cast<uint32_t>(*--sp)) {
    ip += static_cast<int32_t>(ip->a);
    DISPATCH();
  }
  NEXT();
#define BRIF_CMP(name, T, OP)                                         \
  L_##name : {                                                        \
    T a = static_cast<T>(sp[-2]), b = static_cast<T>(sp[-1]);         \
    sp -= 2;                                                          \
    if (a OP b) {                                                     \
      ip += static_cast<int32_t>(ip->a);                              \
      DISPATCH();                                                     \
    }                                                                 \
    NEXT();                                                           \
  }
  BRIF_CMP(BrIfI32LtS, int32_t, <)
  BRIF_CMP(BrIfI32LtU, uint32_t, <)
  BRIF_CMP(BrIfI32Ne, uint32_t, !=)
  BRIF_CMP(BrIfI32Eq, uint32_t, ==)
  BRIF_CMP(BrIfI32GeU, uint32_t, >=)
  BRIF_CMP(BrIfI32GeS, int32_t, >=)
  BRIF_CMP(BrIfI32GtS, int32_t, >)
  BRIF_CMP(BrIfI32GtU, uint32_t, >)
  BRIF_CMP(BrIfI32LeS, int32_t, <=)
  BRIF_CMP(BrIfI32LeU, uint32_t, <=)
#undef BRIF_CMP
#define BRIF_CMPC(name, T, OP)                                        \
  L_##name : {                                                        \
    T a = static_cast<T>(sp[-1]), b = static_cast<T>(ip->b);          \
    --sp;                                                             \
    if (a OP b) {                                                     \
      ip += static_cast<int32_t>(ip->a);                              \
      DISPATCH();                                                     \
    }                                                                 \
    NEXT();                                                           \
  }
  BRIF_CMPC(BrIfI32LtSC, int32_t, <)
  BRIF_CMPC(BrIfI32LtUC, uint32_t, <)
  BRIF_CMPC(BrIfI32NeC, uint32_t, !=)
  BRIF_CMPC(BrIfI32EqC, uint32_t, ==)
  BRIF_CMPC(BrIfI32GeUC, uint32_t, >=)
  BRIF_CMPC(BrIfI32GeSC, int32_t, >=)
  BRIF_CMPC(BrIfI32GtSC, int32_t, >)
  BRIF_CMPC(BrIfI32GtUC, uint32_t, >)
  BRIF_CMPC(BrIfI32LeSC, int32_t, <=)
  BRIF_CMPC(BrIfI32LeUC, uint32_t, <=)
#undef BRIF_CMPC
#define BIN_L(name, EXPR)                                   \
  L_##name : {                                              \
    uint32_t x = static_cast<uint32_t>(sp[-1]);             \
    uint32_t y = static_cast<uint32_t>(fp[ip->a]);          \
    sp[-1] = static_cast<uint32_t>(EXPR);                   \
    NEXT();                                                 \
  }
  BIN_L(I32AddL, x + y)
  BIN_L(I32SubL, x - y)
  BIN_L(I32AndL, x & y)
  BIN_L(I32OrL, x | y)
  BIN_L(I32XorL, x ^ y)
  BIN_L(I32MulL, x * y)
#undef BIN_L
#define BIN_C(name, EXPR)                                   \
  L_##name : {                                              \
    uint32_t x = static_cast<uint32_t>(sp[-1]);             \
    uint32_t y = static_cast<uint32_t>(ip->b);              \
    sp[-1] = static_cast<uint32_t>(EXPR);                   \
    NEXT();                                                 \
  }
  BIN_C(I32SubConst, x - y)
  BIN_C(I32OrConst, x | y)
  BIN_C(I32XorConst, x ^ y)
  BIN_C(I32MulConst, x * y)
  BIN_C(I32ShrSConst, static_cast<int32_t>(x) >> (y & 31))
  BIN_C(I32RotlConst, std::rotl(x, static_cast<int>(y & 31)))
  BIN_C(I32RotrConst, std::rotr(x, static_cast<int>(y & 31)))
#undef BIN_C
L_I32LoadLocalConst : {
  uint32_t addr = static_cast<uint32_t>(fp[static_cast<uint32_t>(ip->b)]) + static_cast<uint32_t>(ip->b >> 32);
  uint64_t ea = static_cast<uint64_t>(addr) + ip->a;
  if (ea + 4 > mem_size) TRAP("out of bounds memory access");
  uint32_t v;
  std::memcpy(&v, mem + ea, 4);
  *sp++ = v;
  NEXT();
}
L_LocalTeeDrop:
  fp[ip->a] = *--sp;
  NEXT();
L_CopySlot:
  fp[ip->b] = fp[ip->a];
  NEXT();

do_host_trap : {
  store.depth_ = base_depth;
  store.fuel_ = fuel;
  return host_status;
}
do_trap:
  store.depth_ = base_depth;
  store.fuel_ = fuel < 0 ? 0 : fuel;
  return TrapError(trap);

#undef BIN
#undef UN
#undef I32A
#undef I32B
#undef I64A
#undef I64B
#undef LOAD_MEM
#undef DISPATCH
#undef NEXT
#undef TRAP
#undef CHARGE
}

}  // namespace sepp::wasm
