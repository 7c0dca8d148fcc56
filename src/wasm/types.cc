// Names and printing of wasm types and values (types.h).
#include "wasm/types.h"

#include <cinttypes>
#include <cstdio>

namespace sepp::wasm {

const char* ValTypeName(ValType t) {
  switch (t) {
    case ValType::kI32: return "i32";
    case ValType::kI64: return "i64";
    case ValType::kF32: return "f32";
    case ValType::kF64: return "f64";
    case ValType::kFuncRef: return "funcref";
    case ValType::kExternRef: return "externref";
  }
  return "unknown";
}

const char* ExternKindName(ExternKind k) {
  switch (k) {
    case ExternKind::kFunc: return "function";
    case ExternKind::kTable: return "table";
    case ExternKind::kMemory: return "memory";
    case ExternKind::kGlobal: return "global";
  }
  return "unknown";
}

std::string FuncTypeToString(const FuncType& t) {
  std::string s = "[";
  for (size_t i = 0; i < t.params.size(); ++i) s += (i ? " " : "") + std::string(ValTypeName(t.params[i]));
  s += "] -> [";
  for (size_t i = 0; i < t.results.size(); ++i) s += (i ? " " : "") + std::string(ValTypeName(t.results[i]));
  return s + "]";
}

std::string ValueToString(const Value& v) {
  char buf[64];
  switch (v.type) {
    case ValType::kI32: std::snprintf(buf, sizeof buf, "i32:%" PRId32, v.i32()); break;
    case ValType::kI64: std::snprintf(buf, sizeof buf, "i64:%" PRId64, v.i64()); break;
    case ValType::kF32: std::snprintf(buf, sizeof buf, "f32:%.9g", static_cast<double>(v.f32())); break;
    case ValType::kF64: std::snprintf(buf, sizeof buf, "f64:%.17g", v.f64()); break;
    case ValType::kFuncRef:
      std::snprintf(buf, sizeof buf, "funcref:%s", v.bits ? "func" : "null");
      break;
    case ValType::kExternRef:
      if (v.bits) std::snprintf(buf, sizeof buf, "externref:%" PRIu64, v.bits);
      else std::snprintf(buf, sizeof buf, "externref:null");
      break;
  }
  return buf;
}

}  // namespace sepp::wasm
