// The internal instruction set the validator compiles function bodies into and
// the interpreter executes.
//
// It is a stack-slot machine: each frame is [params | locals | operands] of
// 64-bit slots addressed from the frame pointer. Compared with raw wasm bytes:
// immediates are decoded once, branch targets are absolute instruction
// indices, every branch carries how many slots to drop and keep (so block
// structure disappears), and a few common sequences are fused into one op
// (local.get + const/op, compare + br_if, ...). Fuel is charged by kFuel ops
// placed at function entry and loop headers, each carrying the number of wasm
// instructions of the region it guards.
#pragma once
#include <cstdint>

namespace sepp::wasm {

// X(name) for every internal op. Numeric ops keep their wasm names.
#define SEPP_WASM_OPS(X)                                                        \
  X(Unreachable) X(Nop) X(Fuel)                                                 \
  X(Br) X(BrMove) X(BrIf) X(BrIfMove) X(BrUnless) X(BrTable) X(Return)          \
  X(Call) X(CallIndirect) X(Drop) X(Select)                                     \
  X(LocalGet) X(LocalSet) X(LocalTee) X(GlobalGet) X(GlobalSet)                 \
  X(TableGet) X(TableSet) X(Const)                                              \
  X(I32Load) X(I64Load) X(F32Load) X(F64Load) X(I32Load8S) X(I32Load8U)         \
  X(I32Load16S) X(I32Load16U) X(I64Load8S) X(I64Load8U) X(I64Load16S)           \
  X(I64Load16U) X(I64Load32S) X(I64Load32U) X(I32Store) X(I64Store) X(F32Store) \
  X(F64Store) X(I32Store8) X(I32Store16) X(I64Store8) X(I64Store16)             \
  X(I64Store32) X(MemorySize) X(MemoryGrow)                                     \
  X(I32Eqz) X(I32Eq) X(I32Ne) X(I32LtS) X(I32LtU) X(I32GtS) X(I32GtU)           \
  X(I32LeS) X(I32LeU) X(I32GeS) X(I32GeU)                                       \
  X(I64Eqz) X(I64Eq) X(I64Ne) X(I64LtS) X(I64LtU) X(I64GtS) X(I64GtU)           \
  X(I64LeS) X(I64LeU) X(I64GeS) X(I64GeU)                                       \
  X(F32Eq) X(F32Ne) X(F32Lt) X(F32Gt) X(F32Le) X(F32Ge)                         \
  X(F64Eq) X(F64Ne) X(F64Lt) X(F64Gt) X(F64Le) X(F64Ge)                         \
  X(I32Clz) X(I32Ctz) X(I32Popcnt) X(I32Add) X(I32Sub) X(I32Mul) X(I32DivS)     \
  X(I32DivU) X(I32RemS) X(I32RemU) X(I32And) X(I32Or) X(I32Xor) X(I32Shl)       \
  X(I32ShrS) X(I32ShrU) X(I32Rotl) X(I32Rotr)                                   \
  X(I64Clz) X(I64Ctz) X(I64Popcnt) X(I64Add) X(I64Sub) X(I64Mul) X(I64DivS)     \
  X(I64DivU) X(I64RemS) X(I64RemU) X(I64And) X(I64Or) X(I64Xor) X(I64Shl)       \
  X(I64ShrS) X(I64ShrU) X(I64Rotl) X(I64Rotr)                                   \
  X(F32Abs) X(F32Neg) X(F32Ceil) X(F32Floor) X(F32Trunc) X(F32Nearest)          \
  X(F32Sqrt) X(F32Add) X(F32Sub) X(F32Mul) X(F32Div) X(F32Min) X(F32Max)        \
  X(F32Copysign)                                                                \
  X(F64Abs) X(F64Neg) X(F64Ceil) X(F64Floor) X(F64Trunc) X(F64Nearest)          \
  X(F64Sqrt) X(F64Add) X(F64Sub) X(F64Mul) X(F64Div) X(F64Min) X(F64Max)        \
  X(F64Copysign)                                                                \
  X(I32WrapI64) X(I32TruncF32S) X(I32TruncF32U) X(I32TruncF64S)                 \
  X(I32TruncF64U) X(I64ExtendI32S) X(I64TruncF32S)             \
  X(I64TruncF32U) X(I64TruncF64S) X(I64TruncF64U) X(F32ConvertI32S)             \
  X(F32ConvertI32U) X(F32ConvertI64S) X(F32ConvertI64U) X(F32DemoteF64)         \
  X(F64ConvertI32S) X(F64ConvertI32U) X(F64ConvertI64S) X(F64ConvertI64U)       \
  X(F64PromoteF32) X(Reinterpret)                                               \
  X(I32Extend8S) X(I32Extend16S) X(I64Extend8S) X(I64Extend16S)                 \
  X(I64Extend32S)                                                               \
  X(RefIsNull) X(RefFunc)                                                       \
  X(I32TruncSatF32S) X(I32TruncSatF32U) X(I32TruncSatF64S)                      \
  X(I32TruncSatF64U) X(I64TruncSatF32S) X(I64TruncSatF32U)                      \
  X(I64TruncSatF64S) X(I64TruncSatF64U)                                         \
  X(MemoryInit) X(DataDrop) X(MemoryCopy) X(MemoryFill) X(TableInit)            \
  X(ElemDrop) X(TableCopy) X(TableGrow) X(TableSize) X(TableFill)               \
  /* fused sequences */                                                         \
  X(LocalGetLocalGet) X(I32AddLocalConst) X(LocalSetLocalGet)                   \
  X(I32AddLL) X(I32SubLL) X(I32AndLL) X(I32LtSLL) X(I32LtULL)                   \
  X(I32AddConst) X(I32AndConst) X(I32ShlConst) X(I32ShrUConst)                  \
  X(I32LoadLocal) X(BrIfEqz) X(BrIfI32LtS) X(BrIfI32LtU) X(BrIfI32Ne)           \
  X(BrIfI32Eq) X(BrIfI32GeU) X(BrIfI32GeS) X(BrIfI32GtS) X(BrIfI32GtU)          \
  X(BrIfI32LeS) X(BrIfI32LeU) X(LocalTeeDrop) X(I64AddLL) X(CopySlot)                   \
  X(I32AddL) X(I32SubL) X(I32AndL) X(I32OrL) X(I32XorL) X(I32MulL)              \
  X(I32SubConst) X(I32OrConst) X(I32XorConst) X(I32MulConst) X(I32ShrSConst)    \
  X(I32RotlConst) X(I32RotrConst) X(I32LoadLocalConst)                          \
  X(BrIfI32LtSC) X(BrIfI32LtUC) X(BrIfI32NeC) X(BrIfI32EqC) X(BrIfI32GeUC)      \
  X(BrIfI32GeSC) X(BrIfI32GtSC) X(BrIfI32GtUC) X(BrIfI32LeSC) X(BrIfI32LeUC)

enum class Op : uint16_t {
#define SEPP_WASM_ENUM(name) k##name,
  SEPP_WASM_OPS(SEPP_WASM_ENUM)
#undef SEPP_WASM_ENUM
      kCount
};

// One internal instruction. Meaning of a and b per op:
//   Br*/BrIf*: a = target index; b = drop count (low 32) | keep count (high 32)
//   BrTable: a = n; the next n+1 instructions hold {a = target, b = drop|keep}
//   LocalGet/Set/Tee: a = slot index from the frame pointer
//   Const: b = bits; loads/stores: a = static offset
//   Call: a = function index; CallIndirect: a = type index, b = table index
//   Fuel: b = instruction count to charge
//   Fused ops document their own packing in compiler.cc.
struct Instr {
  Op op;
  uint16_t pad = 0;
  uint32_t a = 0;
  uint64_t b = 0;
};

}  // namespace sepp::wasm
