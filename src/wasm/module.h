// A decoded and validated module: the static description that instances are
// made from. Produced only by DecodeModule (decoder.h), which validates every
// part, so a Module in hand is always valid and its function bodies are
// already compiled to the internal form (ops.h). Immutable and shareable
// between instances.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "wasm/ops.h"
#include "wasm/types.h"

namespace sepp::wasm {

// A constant expression (global initialisers, segment offsets, element items).
struct ConstExpr {
  enum class Kind : uint8_t { kConst, kGlobalGet, kRefFunc, kRefNull };
  Kind kind = Kind::kConst;
  ValType type = ValType::kI32;
  uint64_t bits = 0;   // kConst
  uint32_t index = 0;  // kGlobalGet: global index; kRefFunc: function index
};

struct Import {
  std::string module;
  std::string name;
  ExternKind kind = ExternKind::kFunc;
  uint32_t type_index = 0;  // kFunc
  TableType table;          // kTable
  MemoryType memory;        // kMemory
  GlobalType global;        // kGlobal
};

struct Export {
  std::string name;
  ExternKind kind = ExternKind::kFunc;
  uint32_t index = 0;
};

struct GlobalDef {
  GlobalType type;
  ConstExpr init;
};

struct ElemSegment {
  enum class Mode : uint8_t { kActive, kPassive, kDeclarative };
  Mode mode = Mode::kActive;
  ValType type = ValType::kFuncRef;
  uint32_t table = 0;
  ConstExpr offset;
  std::vector<ConstExpr> items;
};

struct DataSegment {
  bool active = true;
  ConstExpr offset;
  std::vector<uint8_t> bytes;
};

struct CompiledFunc {
  uint32_t type_index = 0;
  uint32_t num_params = 0;
  uint32_t num_results = 0;
  uint32_t num_locals = 0;     // params + declared locals
  uint32_t max_height = 0;     // locals + deepest operand stack, in slots
  std::vector<ValType> local_types;  // declared locals; emptied after validation
  std::vector<Instr> code;
};

struct Module {
  std::vector<FuncType> types;
  std::vector<Import> imports;
  // Index spaces (imports first).
  std::vector<uint32_t> func_types;  // type index of every function
  std::vector<TableType> tables;
  std::vector<MemoryType> memories;
  std::vector<GlobalType> globals;
  uint32_t num_imported_funcs = 0;
  uint32_t num_imported_tables = 0;
  uint32_t num_imported_memories = 0;
  uint32_t num_imported_globals = 0;

  std::vector<GlobalDef> global_defs;  // defined globals only
  std::vector<Export> exports;
  bool has_start = false;
  uint32_t start = 0;
  std::vector<ElemSegment> elems;
  std::vector<DataSegment> datas;
  std::vector<CompiledFunc> funcs;  // defined functions only

  const FuncType& FuncTypeOf(uint32_t func_index) const { return types[func_types[func_index]]; }
};

}  // namespace sepp::wasm
