// Module decoder: walks the sections of the binary format in their required
// order (custom sections anywhere), decodes each into Module, checks the
// module-level validation rules (index bounds, limits, export names, start
// function, constant expressions) and hands each code body to the compiler.
//
// Section order by id: type(1) import(2) function(3) table(4) memory(5)
// global(6) export(7) start(8) element(9) datacount(12) code(10) data(11).
#include "wasm/decoder.h"

#include <set>
#include <string>

#include "base/strings.h"
#include "wasm/compiler.h"
#include "wasm/reader.h"

namespace sepp::wasm {
namespace {

Error Malformed(std::string m) { return Error::Make(std::move(m), "malformed"); }
Error Invalid(std::string m) { return Error::Make(std::move(m), "invalid"); }

int SectionRank(uint8_t id) {
  switch (id) {
    case 1: return 1;
    case 2: return 2;
    case 3: return 3;
    case 4: return 4;
    case 5: return 5;
    case 6: return 6;
    case 7: return 7;
    case 8: return 8;
    case 9: return 9;
    case 12: return 10;
    case 10: return 11;
    case 11: return 12;
    default: return -1;
  }
}

class Decoder {
 public:
  explicit Decoder(std::span<const uint8_t> bytes) : r_(bytes.data(), bytes.size()) {}

  Result<std::shared_ptr<const Module>> Run();

 private:
  // Each returns false with err_ set on failure.
  bool ReadValType(Reader& r, ValType* t);
  bool ReadRefType(Reader& r, ValType* t);
  bool ReadLimits(Reader& r, Limits* l, uint64_t cap, const char* what);
  bool ReadName(Reader& r, std::string* out);
  bool ReadConstExpr(Reader& r, ValType expected, ConstExpr* out);
  bool CheckReader(Reader& r) {
    if (!r.ok()) {
      err_ = Malformed(r.error());
      return false;
    }
    return true;
  }
  bool Fail(Error e) {
    if (err_.message.empty()) err_ = std::move(e);
    return false;
  }

  bool TypeSection(Reader& r);
  bool ImportSection(Reader& r);
  bool FunctionSection(Reader& r);
  bool TableSection(Reader& r);
  bool MemorySection(Reader& r);
  bool GlobalSection(Reader& r);
  bool ExportSection(Reader& r);
  bool StartSection(Reader& r);
  bool ElementSection(Reader& r);
  bool CodeSection(Reader& r);
  bool DataSection(Reader& r);

  Reader r_;
  std::shared_ptr<Module> m_ = std::make_shared<Module>();
  Error err_;
  ModuleContext ctx_;
  uint32_t declared_func_count_ = 0;
  bool saw_code_ = false;
};

bool Decoder::ReadValType(Reader& r, ValType* t) {
  uint8_t b = r.U8();
  if (!CheckReader(r)) return false;
  switch (b) {
    case 0x7F: case 0x7E: case 0x7D: case 0x7C: case 0x70: case 0x6F:
      *t = static_cast<ValType>(b);
      return true;
    case 0x7B:
      return Fail(Malformed("v128 (SIMD) is not supported by this engine"));
    default:
      return Fail(Malformed("malformed value type"));
  }
}

bool Decoder::ReadRefType(Reader& r, ValType* t) {
  uint8_t b = r.U8();
  if (!CheckReader(r)) return false;
  if (b != 0x70 && b != 0x6F) return Fail(Malformed("malformed reference type"));
  *t = static_cast<ValType>(b);
  return true;
}

bool Decoder::ReadLimits(Reader& r, Limits* l, uint64_t cap, const char* what) {
  uint8_t flags = r.U8();
  if (!CheckReader(r)) return false;
  if (flags > 1) return Fail(Malformed("integer too large: malformed limits flags"));
  l->min = r.U32();
  l->has_max = flags == 1;
  if (l->has_max) l->max = r.U32();
  if (!CheckReader(r)) return false;
  if (l->min > cap) return Fail(Invalid(std::string(what) + " size must be at most " + std::to_string(cap)));
  if (l->has_max && l->max > cap)
    return Fail(Invalid(std::string(what) + " size must be at most " + std::to_string(cap)));
  if (l->has_max && l->max < l->min)
    return Fail(Invalid("size minimum must not be greater than maximum"));
  return true;
}

bool Decoder::ReadName(Reader& r, std::string* out) {
  uint32_t n = r.U32();
  std::string_view s = r.Bytes(n);
  if (!CheckReader(r)) return false;
  if (!IsValidUtf8(s)) return Fail(Malformed("malformed UTF-8 encoding"));
  *out = std::string(s);
  return true;
}

// Constant expressions: exactly one constant instruction followed by end.
bool Decoder::ReadConstExpr(Reader& r, ValType expected, ConstExpr* out) {
  uint8_t op = r.U8();
  if (!CheckReader(r)) return false;
  ValType got = ValType::kI32;
  switch (op) {
    case 0x41:
      out->kind = ConstExpr::Kind::kConst;
      out->bits = static_cast<uint32_t>(r.S32());
      got = ValType::kI32;
      break;
    case 0x42:
      out->kind = ConstExpr::Kind::kConst;
      out->bits = static_cast<uint64_t>(r.S64());
      got = ValType::kI64;
      break;
    case 0x43:
      out->kind = ConstExpr::Kind::kConst;
      out->bits = r.Fixed32();
      got = ValType::kF32;
      break;
    case 0x44:
      out->kind = ConstExpr::Kind::kConst;
      out->bits = r.Fixed64();
      got = ValType::kF64;
      break;
    case 0xD0: {
      out->kind = ConstExpr::Kind::kRefNull;
      if (!ReadRefType(r, &got)) return false;
      break;
    }
    case 0xD2: {
      out->kind = ConstExpr::Kind::kRefFunc;
      out->index = r.U32();
      if (!CheckReader(r)) return false;
      if (out->index >= m_->func_types.size()) return Fail(Invalid("unknown function " + std::to_string(out->index)));
      ctx_.declared_funcs.resize(m_->func_types.size());
      ctx_.declared_funcs[out->index] = true;
      got = ValType::kFuncRef;
      break;
    }
    case 0x23: {
      out->kind = ConstExpr::Kind::kGlobalGet;
      out->index = r.U32();
      if (!CheckReader(r)) return false;
      if (out->index >= m_->num_imported_globals)
        return Fail(Invalid("unknown global " + std::to_string(out->index)));
      const GlobalType& g = m_->globals[out->index];
      if (g.mutable_) return Fail(Invalid("constant expression required"));
      got = g.type;
      break;
    }
    case 0x0B:
      if (!CheckReader(r)) return false;
      return Fail(Invalid("type mismatch: constant expression is empty"));
    default: {
      // Decide between "not constant" and "not an instruction" roughly as the
      // spec does: known non-constant opcodes are invalid.
      if (!CheckReader(r)) return false;
      return Fail(Invalid("constant expression required"));
    }
  }
  if (!CheckReader(r)) return false;
  out->type = got;
  uint8_t end = r.U8();
  if (!CheckReader(r)) return false;
  if (end != 0x0B) {
    if (end == 0x41 || end == 0x42 || end == 0x43 || end == 0x44 || end == 0x23 || end == 0xD0 || end == 0xD2)
      return Fail(Invalid("type mismatch: constant expression has more than one value"));
    return Fail(Invalid("constant expression required"));
  }
  if (got != expected) return Fail(Invalid("type mismatch in constant expression"));
  return true;
}

bool Decoder::TypeSection(Reader& r) {
  uint32_t n = r.U32();
  if (!CheckReader(r)) return false;
  if (n > r.remaining()) return Fail(Malformed("unexpected end: too many types"));
  m_->types.reserve(n);
  for (uint32_t i = 0; i < n; ++i) {
    uint8_t form = r.U8();
    if (!CheckReader(r)) return false;
    if (form != 0x60) return Fail(Malformed("integer representation too long: malformed function type"));
    FuncType ft;
    uint32_t np = r.U32();
    if (!CheckReader(r)) return false;
    if (np > r.remaining()) return Fail(Malformed("unexpected end"));
    for (uint32_t j = 0; j < np; ++j) {
      ValType t;
      if (!ReadValType(r, &t)) return false;
      ft.params.push_back(t);
    }
    uint32_t nr = r.U32();
    if (!CheckReader(r)) return false;
    if (nr > r.remaining()) return Fail(Malformed("unexpected end"));
    for (uint32_t j = 0; j < nr; ++j) {
      ValType t;
      if (!ReadValType(r, &t)) return false;
      ft.results.push_back(t);
    }
    m_->types.push_back(std::move(ft));
  }
  return true;
}

bool Decoder::ImportSection(Reader& r) {
  uint32_t n = r.U32();
  if (!CheckReader(r)) return false;
  if (n > r.remaining()) return Fail(Malformed("unexpected end: too many imports"));
  for (uint32_t i = 0; i < n; ++i) {
    Import im;
    if (!ReadName(r, &im.module) || !ReadName(r, &im.name)) return false;
    uint8_t kind = r.U8();
    if (!CheckReader(r)) return false;
    switch (kind) {
      case 0:
        im.kind = ExternKind::kFunc;
        im.type_index = r.U32();
        if (!CheckReader(r)) return false;
        if (im.type_index >= m_->types.size()) return Fail(Invalid("unknown type " + std::to_string(im.type_index)));
        m_->func_types.push_back(im.type_index);
        m_->num_imported_funcs++;
        break;
      case 1:
        im.kind = ExternKind::kTable;
        if (!ReadRefType(r, &im.table.elem) || !ReadLimits(r, &im.table.limits, 0xFFFFFFFFull, "table"))
          return false;
        m_->tables.push_back(im.table);
        m_->num_imported_tables++;
        break;
      case 2:
        im.kind = ExternKind::kMemory;
        if (!ReadLimits(r, &im.memory.limits, kMaxPages, "memory")) return false;
        m_->memories.push_back(im.memory);
        m_->num_imported_memories++;
        break;
      case 3: {
        im.kind = ExternKind::kGlobal;
        if (!ReadValType(r, &im.global.type)) return false;
        uint8_t mut = r.U8();
        if (!CheckReader(r)) return false;
        if (mut > 1) return Fail(Malformed("malformed mutability"));
        im.global.mutable_ = mut == 1;
        m_->globals.push_back(im.global);
        m_->num_imported_globals++;
        break;
      }
      default:
        return Fail(Malformed("malformed import kind"));
    }
    m_->imports.push_back(std::move(im));
  }
  return true;
}

bool Decoder::FunctionSection(Reader& r) {
  uint32_t n = r.U32();
  if (!CheckReader(r)) return false;
  if (n > r.remaining()) return Fail(Malformed("unexpected end: too many functions"));
  declared_func_count_ = n;
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t t = r.U32();
    if (!CheckReader(r)) return false;
    if (t >= m_->types.size()) return Fail(Invalid("unknown type " + std::to_string(t)));
    m_->func_types.push_back(t);
  }
  return true;
}

bool Decoder::TableSection(Reader& r) {
  uint32_t n = r.U32();
  if (!CheckReader(r)) return false;
  if (n > r.remaining()) return Fail(Malformed("unexpected end: too many tables"));
  for (uint32_t i = 0; i < n; ++i) {
    TableType t;
    if (!ReadRefType(r, &t.elem) || !ReadLimits(r, &t.limits, 0xFFFFFFFFull, "table")) return false;
    m_->tables.push_back(t);
  }
  return true;
}

bool Decoder::MemorySection(Reader& r) {
  uint32_t n = r.U32();
  if (!CheckReader(r)) return false;
  if (n > r.remaining()) return Fail(Malformed("unexpected end: too many memories"));
  for (uint32_t i = 0; i < n; ++i) {
    MemoryType t;
    if (!ReadLimits(r, &t.limits, kMaxPages, "memory")) return false;
    m_->memories.push_back(t);
  }
  return true;
}

bool Decoder::GlobalSection(Reader& r) {
  uint32_t n = r.U32();
  if (!CheckReader(r)) return false;
  if (n > r.remaining()) return Fail(Malformed("unexpected end: too many globals"));
  for (uint32_t i = 0; i < n; ++i) {
    GlobalDef g;
    if (!ReadValType(r, &g.type.type)) return false;
    uint8_t mut = r.U8();
    if (!CheckReader(r)) return false;
    if (mut > 1) return Fail(Malformed("malformed mutability"));
    g.type.mutable_ = mut == 1;
    if (!ReadConstExpr(r, g.type.type, &g.init)) return false;
    m_->globals.push_back(g.type);
    m_->global_defs.push_back(g);
  }
  return true;
}

bool Decoder::ExportSection(Reader& r) {
  uint32_t n = r.U32();
  if (!CheckReader(r)) return false;
  if (n > r.remaining()) return Fail(Malformed("unexpected end: too many exports"));
  std::set<std::string> names;
  for (uint32_t i = 0; i < n; ++i) {
    Export e;
    if (!ReadName(r, &e.name)) return false;
    uint8_t kind = r.U8();
    e.index = r.U32();
    if (!CheckReader(r)) return false;
    if (kind > 3) return Fail(Malformed("malformed export kind"));
    e.kind = static_cast<ExternKind>(kind);
    size_t limit = 0;
    switch (e.kind) {
      case ExternKind::kFunc: limit = m_->func_types.size(); break;
      case ExternKind::kTable: limit = m_->tables.size(); break;
      case ExternKind::kMemory: limit = m_->memories.size(); break;
      case ExternKind::kGlobal: limit = m_->globals.size(); break;
    }
    if (e.index >= limit)
      return Fail(Invalid(std::string("unknown ") + ExternKindName(e.kind) + " " + std::to_string(e.index)));
    if (e.kind == ExternKind::kFunc) {
      ctx_.declared_funcs.resize(m_->func_types.size());
      ctx_.declared_funcs[e.index] = true;
    }
    if (!names.insert(e.name).second) return Fail(Invalid("duplicate export name"));
    m_->exports.push_back(std::move(e));
  }
  return true;
}

bool Decoder::StartSection(Reader& r) {
  uint32_t idx = r.U32();
  if (!CheckReader(r)) return false;
  if (idx >= m_->func_types.size()) return Fail(Invalid("unknown function " + std::to_string(idx)));
  const FuncType& t = m_->FuncTypeOf(idx);
  if (!t.params.empty() || !t.results.empty()) return Fail(Invalid("start function must have type [] -> []"));
  m_->has_start = true;
  m_->start = idx;
  return true;
}

bool Decoder::ElementSection(Reader& r) {
  uint32_t n = r.U32();
  if (!CheckReader(r)) return false;
  if (n > r.remaining()) return Fail(Malformed("unexpected end: too many segments"));
  for (uint32_t i = 0; i < n; ++i) {
    ElemSegment s;
    uint32_t flags = r.U32();
    if (!CheckReader(r)) return false;
    if (flags > 7) return Fail(Malformed("malformed elements segment kind"));
    bool passive_or_decl = flags & 1;
    bool explicit_table = flags & 2;
    bool uses_exprs = flags & 4;
    if (!passive_or_decl) {
      s.mode = ElemSegment::Mode::kActive;
      if (explicit_table) {
        s.table = r.U32();
        if (!CheckReader(r)) return false;
      }
      if (!ReadConstExpr(r, ValType::kI32, &s.offset)) return false;
    } else {
      s.mode = explicit_table ? ElemSegment::Mode::kDeclarative : ElemSegment::Mode::kPassive;
    }
    // Element kind / type: absent for flags 0 and 4 (funcref implied).
    if (!passive_or_decl && !explicit_table) {
      s.type = ValType::kFuncRef;
    } else if (!uses_exprs) {
      uint8_t kind = r.U8();
      if (!CheckReader(r)) return false;
      if (kind != 0x00) return Fail(Malformed("malformed element kind"));
      s.type = ValType::kFuncRef;
    } else {
      if (!ReadRefType(r, &s.type)) return false;
    }
    uint32_t count = r.U32();
    if (!CheckReader(r)) return false;
    if (count > r.remaining()) return Fail(Malformed("unexpected end: too many elements"));
    for (uint32_t j = 0; j < count; ++j) {
      ConstExpr e;
      if (uses_exprs) {
        if (!ReadConstExpr(r, s.type, &e)) return false;
      } else {
        e.kind = ConstExpr::Kind::kRefFunc;
        e.type = ValType::kFuncRef;
        e.index = r.U32();
        if (!CheckReader(r)) return false;
        if (e.index >= m_->func_types.size()) return Fail(Invalid("unknown function " + std::to_string(e.index)));
        ctx_.declared_funcs.resize(m_->func_types.size());
        ctx_.declared_funcs[e.index] = true;
      }
      s.items.push_back(e);
    }
    if (s.mode == ElemSegment::Mode::kActive) {
      if (s.table >= m_->tables.size()) return Fail(Invalid("unknown table " + std::to_string(s.table)));
      if (m_->tables[s.table].elem != s.type) return Fail(Invalid("type mismatch: element segment type"));
    }
    m_->elems.push_back(std::move(s));
  }
  return true;
}

bool Decoder::CodeSection(Reader& r) {
  uint32_t n = r.U32();
  if (!CheckReader(r)) return false;
  if (n != declared_func_count_)
    return Fail(Malformed("function and code section have inconsistent lengths"));
  saw_code_ = true;
  ctx_.module = m_.get();
  ctx_.declared_funcs.resize(m_->func_types.size());
  m_->funcs.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t size = r.U32();
    if (!CheckReader(r)) return false;
    Reader body = r.Sub(size);
    if (!CheckReader(r)) return false;
    CompiledFunc& f = m_->funcs[i];
    uint32_t func_index = m_->num_imported_funcs + i;
    f.type_index = m_->func_types[func_index];
    const FuncType& ft = m_->types[f.type_index];
    f.num_params = static_cast<uint32_t>(ft.params.size());
    f.num_results = static_cast<uint32_t>(ft.results.size());
    uint32_t groups = body.U32();
    if (!CheckReader(body)) return false;
    uint64_t total = 0;
    for (uint32_t g = 0; g < groups; ++g) {
      uint32_t count = body.U32();
      if (!CheckReader(body)) return false;
      total += count;
      if (total > kMaxLocals) return Fail(Malformed("too many locals"));
      ValType t;
      if (!ReadValType(body, &t)) return false;
      f.local_types.insert(f.local_types.end(), count, t);
    }
    f.num_locals = f.num_params + static_cast<uint32_t>(total);
    Status st = CompileFunction(ctx_, func_index, body, &f);
    if (!st.ok()) return Fail(st.error());
    // Local types are only needed while validating; dropping them keeps a
    // module of many local-heavy functions from costing memory per local.
    f.local_types.clear();
    f.local_types.shrink_to_fit();
    f.code.shrink_to_fit();
  }
  return true;
}

bool Decoder::DataSection(Reader& r) {
  uint32_t n = r.U32();
  if (!CheckReader(r)) return false;
  if (ctx_.has_data_count && n != ctx_.data_count)
    return Fail(Malformed("data count and data section have inconsistent lengths"));
  if (n > r.remaining()) return Fail(Malformed("unexpected end: too many segments"));
  for (uint32_t i = 0; i < n; ++i) {
    DataSegment d;
    uint32_t flags = r.U32();
    if (!CheckReader(r)) return false;
    if (flags > 2) return Fail(Malformed("malformed data segment kind"));
    uint32_t mem = 0;
    if (flags == 2) {
      mem = r.U32();
      if (!CheckReader(r)) return false;
    }
    d.active = flags != 1;
    if (d.active) {
      if (mem >= m_->memories.size()) return Fail(Invalid("unknown memory " + std::to_string(mem)));
      if (!ReadConstExpr(r, ValType::kI32, &d.offset)) return false;
    }
    uint32_t len = r.U32();
    std::string_view bytes = r.Bytes(len);
    if (!CheckReader(r)) return false;
    d.bytes.assign(bytes.begin(), bytes.end());
    m_->datas.push_back(std::move(d));
  }
  return true;
}

Result<std::shared_ptr<const Module>> Decoder::Run() {
  if (r_.remaining() < 4 || r_.Fixed32() != 0x6D736100) return Malformed("magic header not detected");
  if (r_.remaining() < 4) return Malformed("unexpected end");
  if (r_.Fixed32() != 1) return Malformed("unknown binary version");
  int last_rank = 0;
  bool saw_data = false;
  while (!r_.at_end()) {
    uint8_t id = r_.U8();
    uint32_t size = r_.U32();
    if (!r_.ok()) return Malformed(r_.error());
    Reader s = r_.Sub(size);
    if (!r_.ok()) return Malformed("section size mismatch: unexpected end");
    if (id == 0) {
      std::string name;
      if (!ReadName(s, &name)) return err_;
      continue;
    }
    int rank = SectionRank(id);
    if (rank < 0) return Malformed("malformed section id");
    if (rank <= last_rank) return Malformed("unexpected content after last section");
    last_rank = rank;
    bool ok = true;
    switch (id) {
      case 1: ok = TypeSection(s); break;
      case 2: ok = ImportSection(s); break;
      case 3: ok = FunctionSection(s); break;
      case 4: ok = TableSection(s); break;
      case 5: ok = MemorySection(s); break;
      case 6: ok = GlobalSection(s); break;
      case 7: ok = ExportSection(s); break;
      case 8: ok = StartSection(s); break;
      case 9: ok = ElementSection(s); break;
      case 10: ok = CodeSection(s); break;
      case 11: ok = DataSection(s); saw_data = true; break;
      case 12:
        ctx_.data_count = s.U32();
        ctx_.has_data_count = true;
        ok = CheckReader(s);
        break;
    }
    if (!ok) return err_;
    if (!s.at_end()) return Malformed("section size mismatch");
    if (id == 4 || id == 5) {
      if (m_->memories.size() > 1) return Invalid("multiple memories");
    }
  }
  if (!saw_code_ && declared_func_count_ != 0)
    return Malformed("function and code section have inconsistent lengths");
  if (ctx_.has_data_count && !saw_data && ctx_.data_count != 0)
    return Malformed("data count and data section have inconsistent lengths");
  if (m_->memories.size() > 1) return Invalid("multiple memories");
  return std::shared_ptr<const Module>(m_);
}

}  // namespace

Result<std::shared_ptr<const Module>> DecodeModule(std::span<const uint8_t> bytes) {
  Decoder d(bytes);
  return d.Run();
}

}  // namespace sepp::wasm
