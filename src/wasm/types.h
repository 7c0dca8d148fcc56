// Core WebAssembly types shared by the decoder, validator, interpreter and the
// embedding API: value types, function types, limits and tagged values.
//
// Runtime values are stored untagged as 64-bit slots (i32 zero-extended, f32 as
// its bit pattern in the low half, references as pointers or host handles with
// 0 meaning null). Value is the tagged form used at the embedding boundary.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace sepp::wasm {

enum class ValType : uint8_t {
  kI32 = 0x7F,
  kI64 = 0x7E,
  kF32 = 0x7D,
  kF64 = 0x7C,
  kFuncRef = 0x70,
  kExternRef = 0x6F,
};

inline bool IsRefType(ValType t) { return t == ValType::kFuncRef || t == ValType::kExternRef; }
const char* ValTypeName(ValType t);

struct FuncType {
  std::vector<ValType> params;
  std::vector<ValType> results;
  bool operator==(const FuncType&) const = default;
};
std::string FuncTypeToString(const FuncType& t);

struct Limits {
  uint64_t min = 0;
  bool has_max = false;
  uint64_t max = 0;
};

struct TableType {
  ValType elem = ValType::kFuncRef;
  Limits limits;
};

struct MemoryType {
  Limits limits;  // in 64 KiB pages
};

struct GlobalType {
  ValType type = ValType::kI32;
  bool mutable_ = false;
};

enum class ExternKind : uint8_t { kFunc = 0, kTable = 1, kMemory = 2, kGlobal = 3 };
const char* ExternKindName(ExternKind k);

constexpr uint64_t kPageSize = 65536;
constexpr uint64_t kMaxPages = 65536;  // 4 GiB, the wasm32 ceiling

// A tagged value. For references, bits is 0 for null; a funcref holds a
// Function* (opaque to hosts) and an externref holds whatever non-zero handle
// the host chose.
struct Value {
  ValType type = ValType::kI32;
  uint64_t bits = 0;

  static Value I32(int32_t v) { return {ValType::kI32, static_cast<uint32_t>(v)}; }
  static Value I64(int64_t v) { return {ValType::kI64, static_cast<uint64_t>(v)}; }
  static Value F32(float v) {
    uint32_t b;
    std::memcpy(&b, &v, 4);
    return {ValType::kF32, b};
  }
  static Value F64(double v) {
    uint64_t b;
    std::memcpy(&b, &v, 8);
    return {ValType::kF64, b};
  }
  static Value Extern(uint64_t handle) { return {ValType::kExternRef, handle}; }
  static Value NullRef(ValType t) { return {t, 0}; }

  int32_t i32() const { return static_cast<int32_t>(static_cast<uint32_t>(bits)); }
  int64_t i64() const { return static_cast<int64_t>(bits); }
  float f32() const {
    uint32_t b = static_cast<uint32_t>(bits);
    float f;
    std::memcpy(&f, &b, 4);
    return f;
  }
  double f64() const {
    double d;
    std::memcpy(&d, &bits, 8);
    return d;
  }
  bool is_null() const { return bits == 0; }
};

// Human-readable "i32:42", "f64:1.5", "externref:null".
std::string ValueToString(const Value& v);

}  // namespace sepp::wasm
