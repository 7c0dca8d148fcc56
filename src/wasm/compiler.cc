// Function body validation and compilation, in one pass.
//
// Validation follows the algorithm of the spec's appendix: an operand stack of
// types (with "unknown" for the polymorphic stack after an unconditional
// branch) and a control stack of frames (block, loop, if, else). While
// checking, the pass emits internal instructions (ops.h): because the operand
// height is static, every branch is resolved to "jump to index T, dropping D
// slots below the K kept ones", and block/loop/end disappear. Forward branch
// targets are patched when their block ends. Code in unreachable positions is
// validated but not emitted.
#include "wasm/compiler.h"

#include <string>

namespace sepp::wasm {
namespace {

constexpr uint8_t kUnknown = 0;  // polymorphic stack entry
constexpr uint32_t kNoFixup = 0xFFFFFFFF;

Error Invalid(std::string m) { return Error::Make(std::move(m), "invalid"); }
Error Malformed(std::string m) { return Error::Make(std::move(m), "malformed"); }

struct Ctrl {
  uint8_t opcode = 0;  // 0x02 block, 0x03 loop, 0x04 if, 0x05 else, 0 function
  std::vector<ValType> params;
  std::vector<ValType> results;
  uint32_t height = 0;  // operand stack size at entry (after params popped)
  bool unreachable = false;
  uint32_t loop_pc = 0;              // loop: branch target
  uint32_t if_fixup = kNoFixup;      // if: the BrUnless to patch at else/end
  std::vector<uint32_t> fixups;      // forward branches to patch at end
  uint32_t outer_fuel_pc = 0;        // loop: the fuel op to resume charging after it
  const std::vector<ValType>& labels() const { return opcode == 0x03 ? params : results; }
};

class Compiler {
 public:
  Compiler(const ModuleContext& ctx, uint32_t func_index, Reader body, CompiledFunc* out)
      : ctx_(ctx), m_(*ctx.module), r_(body), f_(*out), func_index_(func_index) {}

  bool Run();
  const Error& error() const { return err_; }

 private:
  // --- operand stack ---
  void Push(ValType t) { vals_.push_back(static_cast<uint8_t>(t)); TrackHeight(); }
  void PushU(uint8_t t) { vals_.push_back(t); TrackHeight(); }
  void TrackHeight() {
    uint32_t h = f_.num_locals + static_cast<uint32_t>(vals_.size());
    if (h > f_.max_height) f_.max_height = h;
  }
  bool PopAny(uint8_t* out) {
    Ctrl& c = ctrls_.back();
    if (vals_.size() == c.height) {
      if (c.unreachable) {
        *out = kUnknown;
        return true;
      }
      return Fail(Invalid("type mismatch: operand stack underflow"));
    }
    *out = vals_.back();
    vals_.pop_back();
    return true;
  }
  bool Pop(ValType expect) {
    uint8_t got;
    if (!PopAny(&got)) return false;
    if (got != kUnknown && got != static_cast<uint8_t>(expect))
      return Fail(Invalid(std::string("type mismatch: expected ") + ValTypeName(expect) + ", got " +
                          ValTypeName(static_cast<ValType>(got))));
    return true;
  }
  bool PopVals(const std::vector<ValType>& types) {
    for (size_t i = types.size(); i-- > 0;)
      if (!Pop(types[i])) return false;
    return true;
  }
  // Checks that the top of the stack matches `types` without popping (for
  // br_table, whose many targets must not each copy the stack).
  bool CheckTop(const std::vector<ValType>& types) {
    const Ctrl& c = ctrls_.back();
    size_t avail = vals_.size() - c.height;
    for (size_t k = 0; k < types.size(); ++k) {
      ValType want = types[types.size() - 1 - k];
      if (k >= avail) {
        if (c.unreachable) continue;
        return Fail(Invalid("type mismatch: operand stack underflow"));
      }
      uint8_t got = vals_[vals_.size() - 1 - k];
      if (got != kUnknown && got != static_cast<uint8_t>(want))
        return Fail(Invalid(std::string("type mismatch: expected ") + ValTypeName(want) + ", got " +
                            ValTypeName(static_cast<ValType>(got))));
    }
    return true;
  }
  void PushVals(const std::vector<ValType>& types) {
    for (ValType t : types) Push(t);
  }
  void SetUnreachable() {
    Ctrl& c = ctrls_.back();
    vals_.resize(c.height);
    c.unreachable = true;
  }

  // --- emission ---
  bool Live() const { return !ctrls_.back().unreachable; }
  uint32_t Emit(Op op, uint32_t a = 0, uint64_t b = 0) {
    uint32_t fused;
    if (TryFuse(op, a, b, &fused)) return fused;
    Instr in;
    in.op = op;
    in.a = a;
    in.b = b;
    f_.code.push_back(in);
    return static_cast<uint32_t>(f_.code.size() - 1);
  }
  // Peephole fusion of the instruction about to be emitted with the ones
  // just before it. Only when no label points between them (label_barrier_
  // is the latest index a branch may target). Returns the index of the fused
  // instruction, which takes over any fixup meant for the new one.
  //   LocalGetLocalGet  a = first local, b = second local
  //   LocalSetLocalGet  a = local set, b = local then read
  //   I32{Add,Sub,And,LtS,LtU}LL, I64AddLL  a, b = operand locals
  //   I32{Add,And,Shl,ShrU}Const  b = constant operand
  //   I32AddLocalConst  a = local, b = constant
  //   I32LoadLocal  a = offset, b = address local
  //   I32LoadLocalConst  a = offset, b = address local | constant << 32
  //   I32<op>L  a = local holding the right operand
  //   BrIfI32<cmp>, BrIfEqz  compare (or eqz) fused into br_if/if
  //   BrIfI32<cmp>C  the same with an i32.const right operand, b = constant
  bool TryFuse(Op op, uint32_t a, uint64_t b, uint32_t* at) {
    uint32_t n = Here();
    if (n == 0 || label_barrier_ >= n) return false;
    Instr& p = f_.code.back();
    bool two_back = n >= 2 && label_barrier_ < n - 1;
    switch (op) {
      case Op::kLocalGet:
        if (p.op == Op::kLocalGet && p.b == 0 && a < (1u << 31)) {
          p.op = Op::kLocalGetLocalGet;
          p.b = a;
          *at = n - 1;
          return true;
        }
        if (p.op == Op::kLocalSet) {
          p.op = Op::kLocalSetLocalGet;
          p.b = a;
          *at = n - 1;
          return true;
        }
        return false;
      case Op::kI32Add: case Op::kI32Sub: case Op::kI32And: case Op::kI32LtS: case Op::kI32LtU:
      case Op::kI64Add:
        if (p.op == Op::kLocalGetLocalGet) {
          switch (op) {
            case Op::kI32Add: p.op = Op::kI32AddLL; break;
            case Op::kI32Sub: p.op = Op::kI32SubLL; break;
            case Op::kI32And: p.op = Op::kI32AndLL; break;
            case Op::kI32LtS: p.op = Op::kI32LtSLL; break;
            case Op::kI32LtU: p.op = Op::kI32LtULL; break;
            default: p.op = Op::kI64AddLL; break;
          }
          *at = n - 1;
          return true;
        }
        if (p.op == Op::kLocalGet && (op == Op::kI32Add || op == Op::kI32Sub || op == Op::kI32And)) {
          p.op = op == Op::kI32Add ? Op::kI32AddL : op == Op::kI32Sub ? Op::kI32SubL : Op::kI32AndL;
          *at = n - 1;
          return true;
        }
        if (p.op == Op::kConst && op == Op::kI32Sub) {
          p.op = Op::kI32SubConst;
          *at = n - 1;
          return true;
        }
        if (p.op == Op::kConst && (op == Op::kI32Add || op == Op::kI32And)) {
          p.op = op == Op::kI32Add ? Op::kI32AddConst : Op::kI32AndConst;
          if (op == Op::kI32Add && two_back && f_.code[n - 2].op == Op::kLocalGet) {
            Instr& g = f_.code[n - 2];
            g.op = Op::kI32AddLocalConst;
            g.b = p.b;
            f_.code.pop_back();
            *at = n - 2;
            return true;
          }
          *at = n - 1;
          return true;
        }
        return false;
      case Op::kI32Shl: case Op::kI32ShrU: case Op::kI32ShrS: case Op::kI32Rotl: case Op::kI32Rotr:
      case Op::kI32Or: case Op::kI32Xor: case Op::kI32Mul:
        if (p.op == Op::kConst) {
          switch (op) {
            case Op::kI32Shl: p.op = Op::kI32ShlConst; break;
            case Op::kI32ShrU: p.op = Op::kI32ShrUConst; break;
            case Op::kI32ShrS: p.op = Op::kI32ShrSConst; break;
            case Op::kI32Rotl: p.op = Op::kI32RotlConst; break;
            case Op::kI32Rotr: p.op = Op::kI32RotrConst; break;
            case Op::kI32Or: p.op = Op::kI32OrConst; break;
            case Op::kI32Xor: p.op = Op::kI32XorConst; break;
            default: p.op = Op::kI32MulConst; break;
          }
          *at = n - 1;
          return true;
        }
        if (p.op == Op::kLocalGet && (op == Op::kI32Or || op == Op::kI32Xor || op == Op::kI32Mul)) {
          p.op = op == Op::kI32Or ? Op::kI32OrL : op == Op::kI32Xor ? Op::kI32XorL : Op::kI32MulL;
          *at = n - 1;
          return true;
        }
        return false;
      case Op::kI32Load:
        if (p.op == Op::kI32AddLocalConst) {
          p.op = Op::kI32LoadLocalConst;
          p.b = static_cast<uint64_t>(p.a) | (static_cast<uint64_t>(static_cast<uint32_t>(p.b)) << 32);
          p.a = a;
          *at = n - 1;
          return true;
        }
        if (p.op == Op::kLocalGet) {
          p.op = Op::kI32LoadLocal;
          p.b = p.a;
          p.a = a;
          *at = n - 1;
          return true;
        }
        return false;
      case Op::kBrIf:
      case Op::kBrUnless: {
        bool unless = op == Op::kBrUnless;
        Op fused;
        switch (p.op) {
          case Op::kI32Eqz: fused = unless ? Op::kBrIf : Op::kBrIfEqz; break;
          case Op::kI32Eq: fused = unless ? Op::kBrIfI32Ne : Op::kBrIfI32Eq; break;
          case Op::kI32Ne: fused = unless ? Op::kBrIfI32Eq : Op::kBrIfI32Ne; break;
          case Op::kI32LtS: fused = unless ? Op::kBrIfI32GeS : Op::kBrIfI32LtS; break;
          case Op::kI32LtU: fused = unless ? Op::kBrIfI32GeU : Op::kBrIfI32LtU; break;
          case Op::kI32GtS: fused = unless ? Op::kBrIfI32LeS : Op::kBrIfI32GtS; break;
          case Op::kI32GtU: fused = unless ? Op::kBrIfI32LeU : Op::kBrIfI32GtU; break;
          case Op::kI32LeS: fused = unless ? Op::kBrIfI32GtS : Op::kBrIfI32LeS; break;
          case Op::kI32LeU: fused = unless ? Op::kBrIfI32GtU : Op::kBrIfI32LeU; break;
          case Op::kI32GeS: fused = unless ? Op::kBrIfI32LtS : Op::kBrIfI32GeS; break;
          case Op::kI32GeU: fused = unless ? Op::kBrIfI32LtU : Op::kBrIfI32GeU; break;
          default: return false;
        }
        if (fused != Op::kBrIf && fused != Op::kBrIfEqz && two_back && f_.code[n - 2].op == Op::kConst) {
          // const; compare; br_if -> compare the top with an immediate. The
          // fused branch never moves values, so b is free for the constant.
          Instr& c = f_.code[n - 2];
          c.op = WithConst(fused);
          c.a = a;
          f_.code.pop_back();
          *at = n - 2;
          return true;
        }
        p.op = fused;
        p.a = a;
        p.b = b;
        *at = n - 1;
        return true;
      }
      default:
        return false;
    }
  }
  static Op WithConst(Op br) {
    switch (br) {
      case Op::kBrIfI32LtS: return Op::kBrIfI32LtSC;
      case Op::kBrIfI32LtU: return Op::kBrIfI32LtUC;
      case Op::kBrIfI32Ne: return Op::kBrIfI32NeC;
      case Op::kBrIfI32Eq: return Op::kBrIfI32EqC;
      case Op::kBrIfI32GeU: return Op::kBrIfI32GeUC;
      case Op::kBrIfI32GeS: return Op::kBrIfI32GeSC;
      case Op::kBrIfI32GtS: return Op::kBrIfI32GtSC;
      case Op::kBrIfI32GtU: return Op::kBrIfI32GtUC;
      case Op::kBrIfI32LeS: return Op::kBrIfI32LeSC;
      default: return Op::kBrIfI32LeUC;
    }
  }
  uint32_t Here() const { return static_cast<uint32_t>(f_.code.size()); }
  void MarkLabel() { label_barrier_ = Here(); }
  // Drop/keep packing for a branch to ctrl frame `c` from the current height.
  uint64_t DropKeep(const Ctrl& c) const {
    uint64_t keep = c.labels().size();
    uint64_t drop = vals_.size() - keep - c.height;
    return drop | (keep << 32);
  }
  // Emits a branch (op Br/BrIf) to the frame at `depth` with the stack as now.
  void EmitBranch(uint32_t depth, bool conditional);

  bool Fail(Error e) {
    if (err_.message.empty()) err_ = std::move(e);
    return false;
  }
  bool CheckReader() {
    if (!r_.ok()) return Fail(Malformed(r_.error()));
    return true;
  }

  // Turns absolute branch targets into offsets relative to the branching
  // instruction (for br_table: relative to the BrTable op), so the
  // interpreter needs no code base pointer.
  void ResolveBranches() {
    std::vector<Instr>& code = f_.code;
    for (size_t i = 0; i < code.size(); ++i) {
      switch (code[i].op) {
        case Op::kBr: case Op::kBrMove: case Op::kBrIf: case Op::kBrIfMove: case Op::kBrUnless:
        case Op::kBrIfEqz: case Op::kBrIfI32LtS: case Op::kBrIfI32LtU: case Op::kBrIfI32Ne:
        case Op::kBrIfI32Eq: case Op::kBrIfI32GeU: case Op::kBrIfI32GeS: case Op::kBrIfI32GtS:
        case Op::kBrIfI32GtU: case Op::kBrIfI32LeS: case Op::kBrIfI32LeU:
        case Op::kBrIfI32LtSC: case Op::kBrIfI32LtUC: case Op::kBrIfI32NeC: case Op::kBrIfI32EqC:
        case Op::kBrIfI32GeUC: case Op::kBrIfI32GeSC: case Op::kBrIfI32GtSC: case Op::kBrIfI32GtUC:
        case Op::kBrIfI32LeSC: case Op::kBrIfI32LeUC:
          code[i].a = static_cast<uint32_t>(static_cast<int32_t>(code[i].a) - static_cast<int32_t>(i));
          break;
        case Op::kBrTable: {
          uint32_t n = code[i].a;
          for (size_t k = 0; k <= n; ++k) {
            Instr& e = code[i + 1 + k];
            e.a = static_cast<uint32_t>(static_cast<int32_t>(e.a) - static_cast<int32_t>(i));
          }
          i += n + 1;
          break;
        }
        default:
          break;
      }
    }
  }
  bool ReadBlockType(std::vector<ValType>* params, std::vector<ValType>* results);
  bool ReadMemArg(uint32_t natural_log2, uint32_t* offset);
  bool LocalType(uint32_t idx, ValType* t);
  bool Instruction(uint8_t opcode);
  bool PrefixedFC();
  bool Unary(Op op, ValType in, ValType out) {
    if (!Pop(in)) return false;
    Push(out);
    if (Live()) Emit(op);
    return true;
  }
  bool Binary(Op op, ValType in, ValType out) {
    if (!Pop(in) || !Pop(in)) return false;
    Push(out);
    if (Live()) Emit(op);
    return true;
  }
  bool Load(Op op, uint32_t natural, ValType out) {
    uint32_t off;
    if (!ReadMemArg(natural, &off)) return false;
    if (!Pop(ValType::kI32)) return false;
    Push(out);
    if (Live()) Emit(op, off);
    return true;
  }
  bool Store(Op op, uint32_t natural, ValType in) {
    uint32_t off;
    if (!ReadMemArg(natural, &off)) return false;
    if (!Pop(in) || !Pop(ValType::kI32)) return false;
    if (Live()) Emit(op, off);
    return true;
  }

  const ModuleContext& ctx_;
  const Module& m_;
  Reader r_;
  CompiledFunc& f_;
  uint32_t func_index_;
  std::vector<uint8_t> vals_;
  std::vector<Ctrl> ctrls_;
  uint32_t fuel_pc_ = 0;
  uint32_t label_barrier_ = 0;
  Error err_;
};

bool Compiler::ReadBlockType(std::vector<ValType>* params, std::vector<ValType>* results) {
  uint8_t b = r_.Peek();
  if (b == 0x40) {
    r_.U8();
    return CheckReader();
  }
  if (b == 0x7F || b == 0x7E || b == 0x7D || b == 0x7C || b == 0x70 || b == 0x6F) {
    r_.U8();
    results->push_back(static_cast<ValType>(b));
    return CheckReader();
  }
  int64_t idx = r_.S33();
  if (!CheckReader()) return false;
  if (idx < 0) return Fail(Malformed("malformed block type"));
  if (static_cast<uint64_t>(idx) >= m_.types.size()) return Fail(Invalid("unknown type " + std::to_string(idx)));
  *params = m_.types[idx].params;
  *results = m_.types[idx].results;
  return true;
}

bool Compiler::ReadMemArg(uint32_t natural_log2, uint32_t* offset) {
  uint32_t align = r_.U32();
  *offset = r_.U32();
  if (!CheckReader()) return false;
  if (m_.memories.empty()) return Fail(Invalid("unknown memory 0"));
  if (align > natural_log2) return Fail(Invalid("alignment must not be larger than natural"));
  return true;
}

bool Compiler::LocalType(uint32_t idx, ValType* t) {
  const FuncType& ft = m_.types[f_.type_index];
  if (idx < ft.params.size()) {
    *t = ft.params[idx];
    return true;
  }
  idx -= static_cast<uint32_t>(ft.params.size());
  if (idx < f_.local_types.size()) {
    *t = f_.local_types[idx];
    return true;
  }
  return Fail(Invalid("unknown local " + std::to_string(idx)));
}

void Compiler::EmitBranch(uint32_t depth, bool conditional) {
  Ctrl& target = ctrls_[ctrls_.size() - 1 - depth];
  if (target.opcode == 0 && !conditional) {
    Emit(Op::kReturn, f_.num_results);
    return;
  }
  uint64_t dk = DropKeep(target);
  bool move = (dk & 0xFFFFFFFF) != 0;
  Op op = conditional ? (move ? Op::kBrIfMove : Op::kBrIf) : (move ? Op::kBrMove : Op::kBr);
  if (target.opcode == 0) {
    // Conditional return: branch to the function's final Return.
    uint32_t at = Emit(op, 0, dk);
    target.fixups.push_back(at);
    return;
  }
  if (target.opcode == 0x03) {
    Emit(op, target.loop_pc, dk);
  } else {
    uint32_t at = Emit(op, 0, dk);
    target.fixups.push_back(at);
  }
}

bool Compiler::Run() {
  const FuncType& ft = m_.types[f_.type_index];
  Ctrl fn;
  fn.opcode = 0;
  fn.results = ft.results;
  fn.height = 0;
  ctrls_.push_back(std::move(fn));
  f_.max_height = f_.num_locals;
  // Entry also pays for zeroing the locals (one unit per 8).
  fuel_pc_ = Emit(Op::kFuel, 0, f_.num_locals / 8);
  while (!ctrls_.empty()) {
    if (r_.at_end()) return Fail(Malformed("unexpected end of section or function: END opcode expected"));
    uint8_t op = r_.U8();
    if (!CheckReader()) return false;
    f_.code[fuel_pc_].b++;
    if (!Instruction(op)) return false;
    if (vals_.size() > kMaxOperandDepth) return Fail(Invalid("operand stack too deep"));
  }
  if (!r_.at_end()) return Fail(Malformed("section size mismatch: junk after END opcode"));
  ResolveBranches();
  return true;
}

bool Compiler::Instruction(uint8_t opcode) {
  using V = ValType;
  switch (opcode) {
    case 0x00:  // unreachable
      if (Live()) Emit(Op::kUnreachable);
      SetUnreachable();
      return true;
    case 0x01:
      return true;
    case 0x02:
    case 0x03:
    case 0x04: {
      Ctrl c;
      c.opcode = opcode;
      if (!ReadBlockType(&c.params, &c.results)) return false;
      if (opcode == 0x04 && !Pop(V::kI32)) return false;
      if (!PopVals(c.params)) return false;
      c.height = static_cast<uint32_t>(vals_.size());
      c.unreachable = false;
      bool live = Live();
      if (opcode == 0x03) {
        MarkLabel();
        c.loop_pc = Here();
        c.outer_fuel_pc = fuel_pc_;
        fuel_pc_ = Emit(Op::kFuel, 0, 0);
      } else if (opcode == 0x04) {
        c.if_fixup = Emit(Op::kBrUnless, 0, 0);
      }
      (void)live;
      ctrls_.push_back(std::move(c));
      PushVals(ctrls_.back().params);
      return true;
    }
    case 0x05: {  // else
      Ctrl& c = ctrls_.back();
      if (c.opcode != 0x04) return Fail(Malformed("else without matching if"));
      if (!PopVals(c.results)) return false;
      if (vals_.size() != c.height) return Fail(Invalid("type mismatch: values remaining at end of block"));
      uint32_t br = Emit(Op::kBr, 0, 0);
      c.fixups.push_back(br);
      MarkLabel();
      f_.code[c.if_fixup].a = Here();
      c.if_fixup = kNoFixup;
      c.opcode = 0x05;
      c.unreachable = false;
      PushVals(c.params);
      return true;
    }
    case 0x0B: {  // end
      Ctrl& c = ctrls_.back();
      if (!PopVals(c.results)) return false;
      if (vals_.size() != c.height) return Fail(Invalid("type mismatch: values remaining at end of block"));
      if (c.opcode == 0x04 && c.params != c.results)
        return Fail(Invalid("type mismatch: if without else must leave its parameters"));
      Ctrl done = std::move(ctrls_.back());
      ctrls_.pop_back();
      MarkLabel();
      uint32_t here = Here();
      if (done.if_fixup != kNoFixup) f_.code[done.if_fixup].a = here;
      for (uint32_t at : done.fixups) f_.code[at].a = here;
      if (done.opcode == 0) {
        Emit(Op::kReturn, f_.num_results);
        return true;
      }
      if (done.opcode == 0x03) fuel_pc_ = done.outer_fuel_pc;
      PushVals(done.results);
      return true;
    }
    case 0x0C: {  // br
      uint32_t depth = r_.U32();
      if (!CheckReader()) return false;
      if (depth >= ctrls_.size()) return Fail(Invalid("unknown label"));
      const Ctrl& t = ctrls_[ctrls_.size() - 1 - depth];
      std::vector<ValType> labels = t.labels();
      // Check the label values are present (pop, then restore for DropKeep).
      size_t before = vals_.size();
      if (!PopVals(labels)) return false;
      bool live = Live();
      if (live && before == vals_.size() + labels.size()) {
        vals_.resize(before);
        EmitBranch(depth, false);
      }
      SetUnreachable();
      return true;
    }
    case 0x0D: {  // br_if
      uint32_t depth = r_.U32();
      if (!CheckReader()) return false;
      if (depth >= ctrls_.size()) return Fail(Invalid("unknown label"));
      if (!Pop(V::kI32)) return false;
      std::vector<ValType> labels = ctrls_[ctrls_.size() - 1 - depth].labels();
      size_t before = vals_.size();
      if (!PopVals(labels)) return false;
      // Restore with the label's types (refines unknowns as the spec does).
      vals_.resize(std::min(vals_.size(), before));
      PushVals(labels);
      if (Live()) EmitBranch(depth, true);
      return true;
    }
    case 0x0E: {  // br_table
      uint32_t n = r_.U32();
      if (!CheckReader()) return false;
      if (n > r_.remaining()) return Fail(Malformed("unexpected end"));
      std::vector<uint32_t> depths(n + 1);
      for (uint32_t i = 0; i <= n; ++i) {
        depths[i] = r_.U32();
        if (!CheckReader()) return false;
        if (depths[i] >= ctrls_.size()) return Fail(Invalid("unknown label"));
      }
      if (!Pop(V::kI32)) return false;
      size_t arity = ctrls_[ctrls_.size() - 1 - depths[n]].labels().size();
      for (uint32_t i = 0; i <= n; ++i) {
        const std::vector<ValType>& l = ctrls_[ctrls_.size() - 1 - depths[i]].labels();
        if (l.size() != arity) return Fail(Invalid("type mismatch: br_table targets differ in arity"));
        if (!CheckTop(l)) return false;
      }
      if (Live()) {
        Emit(Op::kBrTable, n);
        for (uint32_t i = 0; i <= n; ++i) {
          uint32_t depth = depths[i];
          Ctrl& t = ctrls_[ctrls_.size() - 1 - depth];
          uint64_t dk = DropKeep(t);
          if (t.opcode == 0x03) {
            Emit(Op::kNop, t.loop_pc, dk);
          } else {
            uint32_t at = Emit(Op::kNop, 0, dk);
            t.fixups.push_back(at);
          }
        }
      }
      SetUnreachable();
      return true;
    }
    case 0x0F: {  // return
      if (!PopVals(ctrls_[0].results)) return false;
      if (Live()) Emit(Op::kReturn, f_.num_results);
      SetUnreachable();
      return true;
    }
    case 0x10: {  // call
      uint32_t idx = r_.U32();
      if (!CheckReader()) return false;
      if (idx >= m_.func_types.size()) return Fail(Invalid("unknown function " + std::to_string(idx)));
      const FuncType& t = m_.FuncTypeOf(idx);
      if (!PopVals(t.params)) return false;
      if (Live()) Emit(Op::kCall, idx);
      PushVals(t.results);
      return true;
    }
    case 0x11: {  // call_indirect
      uint32_t type_idx = r_.U32();
      uint32_t table = r_.U32();
      if (!CheckReader()) return false;
      if (table >= m_.tables.size()) return Fail(Invalid("unknown table " + std::to_string(table)));
      if (type_idx >= m_.types.size()) return Fail(Invalid("unknown type " + std::to_string(type_idx)));
      if (m_.tables[table].elem != V::kFuncRef) return Fail(Invalid("type mismatch: call_indirect needs a funcref table"));
      if (!Pop(V::kI32)) return false;
      const FuncType& t = m_.types[type_idx];
      if (!PopVals(t.params)) return false;
      if (Live()) Emit(Op::kCallIndirect, type_idx, table);
      PushVals(t.results);
      return true;
    }
    case 0x1A: {  // drop
      uint8_t t;
      if (!PopAny(&t)) return false;
      if (Live()) Emit(Op::kDrop);
      return true;
    }
    case 0x1B: {  // select
      if (!Pop(V::kI32)) return false;
      uint8_t t1, t2;
      if (!PopAny(&t1) || !PopAny(&t2)) return false;
      auto is_num = [](uint8_t t) {
        return t == kUnknown || t == 0x7F || t == 0x7E || t == 0x7D || t == 0x7C;
      };
      if (!is_num(t1) || !is_num(t2)) return Fail(Invalid("type mismatch: select needs numeric operands"));
      if (t1 != t2 && t1 != kUnknown && t2 != kUnknown) return Fail(Invalid("type mismatch in select"));
      PushU(t1 == kUnknown ? t2 : t1);
      if (Live()) Emit(Op::kSelect);
      return true;
    }
    case 0x1C: {  // select t*
      uint32_t n = r_.U32();
      if (!CheckReader()) return false;
      if (n != 1) return Fail(Invalid("invalid result arity"));
      uint8_t b = r_.U8();
      if (!CheckReader()) return false;
      if (!(b == 0x7F || b == 0x7E || b == 0x7D || b == 0x7C || b == 0x70 || b == 0x6F))
        return Fail(Malformed("malformed value type"));
      V t = static_cast<V>(b);
      if (!Pop(V::kI32) || !Pop(t) || !Pop(t)) return false;
      Push(t);
      if (Live()) Emit(Op::kSelect);
      return true;
    }
    case 0x20: case 0x21: case 0x22: {
      uint32_t idx = r_.U32();
      if (!CheckReader()) return false;
      V t;
      if (!LocalType(idx, &t)) return false;
      if (opcode == 0x20) {
        Push(t);
        if (Live()) Emit(Op::kLocalGet, idx);
      } else if (opcode == 0x21) {
        if (!Pop(t)) return false;
        if (Live()) Emit(Op::kLocalSet, idx);
      } else {
        if (!Pop(t)) return false;
        Push(t);
        if (Live()) Emit(Op::kLocalTee, idx);
      }
      return true;
    }
    case 0x23: case 0x24: {
      uint32_t idx = r_.U32();
      if (!CheckReader()) return false;
      if (idx >= m_.globals.size()) return Fail(Invalid("unknown global " + std::to_string(idx)));
      const GlobalType& g = m_.globals[idx];
      if (opcode == 0x23) {
        Push(g.type);
        if (Live()) Emit(Op::kGlobalGet, idx);
      } else {
        if (!g.mutable_) return Fail(Invalid("global is immutable"));
        if (!Pop(g.type)) return false;
        if (Live()) Emit(Op::kGlobalSet, idx);
      }
      return true;
    }
    case 0x25: case 0x26: {
      uint32_t idx = r_.U32();
      if (!CheckReader()) return false;
      if (idx >= m_.tables.size()) return Fail(Invalid("unknown table " + std::to_string(idx)));
      V t = m_.tables[idx].elem;
      if (opcode == 0x25) {
        if (!Pop(V::kI32)) return false;
        Push(t);
        if (Live()) Emit(Op::kTableGet, idx);
      } else {
        if (!Pop(t) || !Pop(V::kI32)) return false;
        if (Live()) Emit(Op::kTableSet, idx);
      }
      return true;
    }
    case 0x28: return Load(Op::kI32Load, 2, V::kI32);
    case 0x29: return Load(Op::kI64Load, 3, V::kI64);
    case 0x2A: return Load(Op::kF32Load, 2, V::kF32);
    case 0x2B: return Load(Op::kF64Load, 3, V::kF64);
    case 0x2C: return Load(Op::kI32Load8S, 0, V::kI32);
    case 0x2D: return Load(Op::kI32Load8U, 0, V::kI32);
    case 0x2E: return Load(Op::kI32Load16S, 1, V::kI32);
    case 0x2F: return Load(Op::kI32Load16U, 1, V::kI32);
    case 0x30: return Load(Op::kI64Load8S, 0, V::kI64);
    case 0x31: return Load(Op::kI64Load8U, 0, V::kI64);
    case 0x32: return Load(Op::kI64Load16S, 1, V::kI64);
    case 0x33: return Load(Op::kI64Load16U, 1, V::kI64);
    case 0x34: return Load(Op::kI64Load32S, 2, V::kI64);
    case 0x35: return Load(Op::kI64Load32U, 2, V::kI64);
    case 0x36: return Store(Op::kI32Store, 2, V::kI32);
    case 0x37: return Store(Op::kI64Store, 3, V::kI64);
    case 0x38: return Store(Op::kF32Store, 2, V::kF32);
    case 0x39: return Store(Op::kF64Store, 3, V::kF64);
    case 0x3A: return Store(Op::kI32Store8, 0, V::kI32);
    case 0x3B: return Store(Op::kI32Store16, 1, V::kI32);
    case 0x3C: return Store(Op::kI64Store8, 0, V::kI64);
    case 0x3D: return Store(Op::kI64Store16, 1, V::kI64);
    case 0x3E: return Store(Op::kI64Store32, 2, V::kI64);
    case 0x3F: case 0x40: {
      uint8_t zero = r_.U8();
      if (!CheckReader()) return false;
      if (zero != 0) return Fail(Malformed("zero byte expected"));
      if (m_.memories.empty()) return Fail(Invalid("unknown memory 0"));
      if (opcode == 0x3F) {
        Push(V::kI32);
        if (Live()) Emit(Op::kMemorySize);
      } else {
        if (!Pop(V::kI32)) return false;
        Push(V::kI32);
        if (Live()) Emit(Op::kMemoryGrow);
      }
      return true;
    }
    case 0x41: {
      int32_t v = r_.S32();
      if (!CheckReader()) return false;
      Push(V::kI32);
      if (Live()) Emit(Op::kConst, 0, static_cast<uint32_t>(v));
      return true;
    }
    case 0x42: {
      int64_t v = r_.S64();
      if (!CheckReader()) return false;
      Push(V::kI64);
      if (Live()) Emit(Op::kConst, 0, static_cast<uint64_t>(v));
      return true;
    }
    case 0x43: {
      uint32_t v = r_.Fixed32();
      if (!CheckReader()) return false;
      Push(V::kF32);
      if (Live()) Emit(Op::kConst, 0, v);
      return true;
    }
    case 0x44: {
      uint64_t v = r_.Fixed64();
      if (!CheckReader()) return false;
      Push(V::kF64);
      if (Live()) Emit(Op::kConst, 0, v);
      return true;
    }
    case 0x45: return Unary(Op::kI32Eqz, V::kI32, V::kI32);
    case 0x50: return Unary(Op::kI64Eqz, V::kI64, V::kI32);
    case 0xD0: {  // ref.null
      uint8_t b = r_.U8();
      if (!CheckReader()) return false;
      if (b != 0x70 && b != 0x6F) return Fail(Malformed("malformed reference type"));
      Push(static_cast<V>(b));
      if (Live()) Emit(Op::kConst, 0, 0);
      return true;
    }
    case 0xD1: {  // ref.is_null
      uint8_t t;
      if (!PopAny(&t)) return false;
      if (t != kUnknown && t != 0x70 && t != 0x6F) return Fail(Invalid("type mismatch: ref.is_null needs a reference"));
      Push(V::kI32);
      if (Live()) Emit(Op::kRefIsNull);
      return true;
    }
    case 0xD2: {  // ref.func
      uint32_t idx = r_.U32();
      if (!CheckReader()) return false;
      if (idx >= m_.func_types.size()) return Fail(Invalid("unknown function " + std::to_string(idx)));
      if (idx >= ctx_.declared_funcs.size() || !ctx_.declared_funcs[idx])
        return Fail(Invalid("undeclared function reference"));
      Push(V::kFuncRef);
      if (Live()) Emit(Op::kRefFunc, idx);
      return true;
    }
    case 0xFC:
      return PrefixedFC();
    default:
      break;
  }
  // Comparisons and arithmetic by opcode range.
  if (opcode >= 0x46 && opcode <= 0x4F)
    return Binary(static_cast<Op>(static_cast<int>(Op::kI32Eq) + (opcode - 0x46)), V::kI32, V::kI32) ;
  if (opcode >= 0x51 && opcode <= 0x5A) {
    if (!Pop(V::kI64) || !Pop(V::kI64)) return false;
    Push(V::kI32);
    if (Live()) Emit(static_cast<Op>(static_cast<int>(Op::kI64Eq) + (opcode - 0x51)));
    return true;
  }
  if (opcode >= 0x5B && opcode <= 0x60) {
    if (!Pop(V::kF32) || !Pop(V::kF32)) return false;
    Push(V::kI32);
    if (Live()) Emit(static_cast<Op>(static_cast<int>(Op::kF32Eq) + (opcode - 0x5B)));
    return true;
  }
  if (opcode >= 0x61 && opcode <= 0x66) {
    if (!Pop(V::kF64) || !Pop(V::kF64)) return false;
    Push(V::kI32);
    if (Live()) Emit(static_cast<Op>(static_cast<int>(Op::kF64Eq) + (opcode - 0x61)));
    return true;
  }
  if (opcode >= 0x67 && opcode <= 0x69)
    return Unary(static_cast<Op>(static_cast<int>(Op::kI32Clz) + (opcode - 0x67)), V::kI32, V::kI32);
  if (opcode >= 0x6A && opcode <= 0x78)
    return Binary(static_cast<Op>(static_cast<int>(Op::kI32Add) + (opcode - 0x6A)), V::kI32, V::kI32);
  if (opcode >= 0x79 && opcode <= 0x7B)
    return Unary(static_cast<Op>(static_cast<int>(Op::kI64Clz) + (opcode - 0x79)), V::kI64, V::kI64);
  if (opcode >= 0x7C && opcode <= 0x8A)
    return Binary(static_cast<Op>(static_cast<int>(Op::kI64Add) + (opcode - 0x7C)), V::kI64, V::kI64);
  if (opcode >= 0x8B && opcode <= 0x91)
    return Unary(static_cast<Op>(static_cast<int>(Op::kF32Abs) + (opcode - 0x8B)), V::kF32, V::kF32);
  if (opcode >= 0x92 && opcode <= 0x98)
    return Binary(static_cast<Op>(static_cast<int>(Op::kF32Add) + (opcode - 0x92)), V::kF32, V::kF32);
  if (opcode >= 0x99 && opcode <= 0x9F)
    return Unary(static_cast<Op>(static_cast<int>(Op::kF64Abs) + (opcode - 0x99)), V::kF64, V::kF64);
  if (opcode >= 0xA0 && opcode <= 0xA6)
    return Binary(static_cast<Op>(static_cast<int>(Op::kF64Add) + (opcode - 0xA0)), V::kF64, V::kF64);
  switch (opcode) {
    case 0xA7: return Unary(Op::kI32WrapI64, V::kI64, V::kI32);
    case 0xA8: return Unary(Op::kI32TruncF32S, V::kF32, V::kI32);
    case 0xA9: return Unary(Op::kI32TruncF32U, V::kF32, V::kI32);
    case 0xAA: return Unary(Op::kI32TruncF64S, V::kF64, V::kI32);
    case 0xAB: return Unary(Op::kI32TruncF64U, V::kF64, V::kI32);
    case 0xAC: return Unary(Op::kI64ExtendI32S, V::kI32, V::kI64);
    case 0xAD: {  // i64.extend_i32_u: i32 slots are already zero-extended
      if (!Pop(V::kI32)) return false;
      Push(V::kI64);
      return true;
    }
    case 0xAE: return Unary(Op::kI64TruncF32S, V::kF32, V::kI64);
    case 0xAF: return Unary(Op::kI64TruncF32U, V::kF32, V::kI64);
    case 0xB0: return Unary(Op::kI64TruncF64S, V::kF64, V::kI64);
    case 0xB1: return Unary(Op::kI64TruncF64U, V::kF64, V::kI64);
    case 0xB2: return Unary(Op::kF32ConvertI32S, V::kI32, V::kF32);
    case 0xB3: return Unary(Op::kF32ConvertI32U, V::kI32, V::kF32);
    case 0xB4: return Unary(Op::kF32ConvertI64S, V::kI64, V::kF32);
    case 0xB5: return Unary(Op::kF32ConvertI64U, V::kI64, V::kF32);
    case 0xB6: return Unary(Op::kF32DemoteF64, V::kF64, V::kF32);
    case 0xB7: return Unary(Op::kF64ConvertI32S, V::kI32, V::kF64);
    case 0xB8: return Unary(Op::kF64ConvertI32U, V::kI32, V::kF64);
    case 0xB9: return Unary(Op::kF64ConvertI64S, V::kI64, V::kF64);
    case 0xBA: return Unary(Op::kF64ConvertI64U, V::kI64, V::kF64);
    case 0xBB: return Unary(Op::kF64PromoteF32, V::kF32, V::kF64);
    // Reinterpretations keep the bits; slots of 32-bit types are zero-extended.
    case 0xBC: if (!Pop(V::kF32)) return false; Push(V::kI32); return true;
    case 0xBD: if (!Pop(V::kF64)) return false; Push(V::kI64); return true;
    case 0xBE: if (!Pop(V::kI32)) return false; Push(V::kF32); return true;
    case 0xBF: if (!Pop(V::kI64)) return false; Push(V::kF64); return true;
    case 0xC0: return Unary(Op::kI32Extend8S, V::kI32, V::kI32);
    case 0xC1: return Unary(Op::kI32Extend16S, V::kI32, V::kI32);
    case 0xC2: return Unary(Op::kI64Extend8S, V::kI64, V::kI64);
    case 0xC3: return Unary(Op::kI64Extend16S, V::kI64, V::kI64);
    case 0xC4: return Unary(Op::kI64Extend32S, V::kI64, V::kI64);
    default:
      return Fail(Malformed("illegal opcode " + std::to_string(opcode)));
  }
}

bool Compiler::PrefixedFC() {
  using V = ValType;
  uint32_t sub = r_.U32();
  if (!CheckReader()) return false;
  switch (sub) {
    case 0: return Unary(Op::kI32TruncSatF32S, V::kF32, V::kI32);
    case 1: return Unary(Op::kI32TruncSatF32U, V::kF32, V::kI32);
    case 2: return Unary(Op::kI32TruncSatF64S, V::kF64, V::kI32);
    case 3: return Unary(Op::kI32TruncSatF64U, V::kF64, V::kI32);
    case 4: return Unary(Op::kI64TruncSatF32S, V::kF32, V::kI64);
    case 5: return Unary(Op::kI64TruncSatF32U, V::kF32, V::kI64);
    case 6: return Unary(Op::kI64TruncSatF64S, V::kF64, V::kI64);
    case 7: return Unary(Op::kI64TruncSatF64U, V::kF64, V::kI64);
    case 8: {  // memory.init
      uint32_t seg = r_.U32();
      uint8_t zero = r_.U8();
      if (!CheckReader()) return false;
      if (zero != 0) return Fail(Malformed("zero byte expected"));
      if (!ctx_.has_data_count) return Fail(Malformed("data count section required"));
      if (m_.memories.empty()) return Fail(Invalid("unknown memory 0"));
      if (seg >= ctx_.data_count) return Fail(Invalid("unknown data segment " + std::to_string(seg)));
      if (!Pop(V::kI32) || !Pop(V::kI32) || !Pop(V::kI32)) return false;
      if (Live()) Emit(Op::kMemoryInit, seg);
      return true;
    }
    case 9: {  // data.drop
      uint32_t seg = r_.U32();
      if (!CheckReader()) return false;
      if (!ctx_.has_data_count) return Fail(Malformed("data count section required"));
      if (seg >= ctx_.data_count) return Fail(Invalid("unknown data segment " + std::to_string(seg)));
      if (Live()) Emit(Op::kDataDrop, seg);
      return true;
    }
    case 10: case 11: {  // memory.copy, memory.fill
      uint8_t z1 = r_.U8();
      uint8_t z2 = sub == 10 ? r_.U8() : 0;
      if (!CheckReader()) return false;
      if (z1 != 0 || z2 != 0) return Fail(Malformed("zero byte expected"));
      if (m_.memories.empty()) return Fail(Invalid("unknown memory 0"));
      if (!Pop(V::kI32) || !Pop(sub == 10 ? V::kI32 : V::kI32) || !Pop(V::kI32)) return false;
      if (Live()) Emit(sub == 10 ? Op::kMemoryCopy : Op::kMemoryFill);
      return true;
    }
    case 12: {  // table.init elem table
      uint32_t seg = r_.U32();
      uint32_t table = r_.U32();
      if (!CheckReader()) return false;
      if (table >= m_.tables.size()) return Fail(Invalid("unknown table " + std::to_string(table)));
      if (seg >= m_.elems.size()) return Fail(Invalid("unknown elem segment " + std::to_string(seg)));
      if (m_.elems[seg].type != m_.tables[table].elem) return Fail(Invalid("type mismatch: table.init"));
      if (!Pop(V::kI32) || !Pop(V::kI32) || !Pop(V::kI32)) return false;
      if (Live()) Emit(Op::kTableInit, seg, table);
      return true;
    }
    case 13: {
      uint32_t seg = r_.U32();
      if (!CheckReader()) return false;
      if (seg >= m_.elems.size()) return Fail(Invalid("unknown elem segment " + std::to_string(seg)));
      if (Live()) Emit(Op::kElemDrop, seg);
      return true;
    }
    case 14: {  // table.copy dst src
      uint32_t dst = r_.U32();
      uint32_t src = r_.U32();
      if (!CheckReader()) return false;
      if (dst >= m_.tables.size()) return Fail(Invalid("unknown table " + std::to_string(dst)));
      if (src >= m_.tables.size()) return Fail(Invalid("unknown table " + std::to_string(src)));
      if (m_.tables[dst].elem != m_.tables[src].elem) return Fail(Invalid("type mismatch: table.copy"));
      if (!Pop(V::kI32) || !Pop(V::kI32) || !Pop(V::kI32)) return false;
      if (Live()) Emit(Op::kTableCopy, dst, src);
      return true;
    }
    case 15: case 16: case 17: {
      uint32_t table = r_.U32();
      if (!CheckReader()) return false;
      if (table >= m_.tables.size()) return Fail(Invalid("unknown table " + std::to_string(table)));
      V t = m_.tables[table].elem;
      if (sub == 15) {  // table.grow: ref n -> i32
        if (!Pop(V::kI32) || !Pop(t)) return false;
        Push(V::kI32);
        if (Live()) Emit(Op::kTableGrow, table);
      } else if (sub == 16) {
        Push(V::kI32);
        if (Live()) Emit(Op::kTableSize, table);
      } else {  // table.fill: i ref n
        if (!Pop(V::kI32) || !Pop(t) || !Pop(V::kI32)) return false;
        if (Live()) Emit(Op::kTableFill, table);
      }
      return true;
    }
    default:
      return Fail(Malformed("illegal opcode 0xfc " + std::to_string(sub)));
  }
}

}  // namespace

Status CompileFunction(const ModuleContext& ctx, uint32_t func_index, Reader body, CompiledFunc* out) {
  Compiler c(ctx, func_index, body, out);
  if (!c.Run()) return c.error();
  return Ok();
}

}  // namespace sepp::wasm
