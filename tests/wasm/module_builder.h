// Test helper: assembles small wasm binaries from hand-written function
// bodies, so unit tests need no external tools.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace sepp::wasm::testing {

using Bytes = std::vector<uint8_t>;

inline void Leb(Bytes& out, uint64_t v) {
  do {
    uint8_t b = v & 0x7F;
    v >>= 7;
    if (v) b |= 0x80;
    out.push_back(b);
  } while (v);
}
inline void SLeb(Bytes& out, int64_t v) {
  bool more = true;
  while (more) {
    uint8_t b = v & 0x7F;
    v >>= 7;
    if ((v == 0 && !(b & 0x40)) || (v == -1 && (b & 0x40))) more = false;
    else b |= 0x80;
    out.push_back(b);
  }
}
inline void Name(Bytes& out, const std::string& s) {
  Leb(out, s.size());
  out.insert(out.end(), s.begin(), s.end());
}

class ModuleBuilder {
 public:
  // Returns the type index.
  uint32_t Type(Bytes params, Bytes results) {
    Bytes t = {0x60};
    Leb(t, params.size());
    t.insert(t.end(), params.begin(), params.end());
    Leb(t, results.size());
    t.insert(t.end(), results.begin(), results.end());
    types_.push_back(t);
    return static_cast<uint32_t>(types_.size() - 1);
  }
  // Imports must be added before functions; returns the function index.
  uint32_t ImportFunc(const std::string& mod, const std::string& name, uint32_t type) {
    Bytes i;
    Name(i, mod);
    Name(i, name);
    i.push_back(0x00);
    Leb(i, type);
    imports_.push_back(i);
    return num_funcs_++;
  }
  // body: instructions only (ending with 0x0B); locals: list of (count, type).
  uint32_t Func(uint32_t type, Bytes body, std::vector<std::pair<uint32_t, uint8_t>> locals = {}) {
    func_types_.push_back(type);
    Bytes b;
    Leb(b, locals.size());
    for (auto& [n, t] : locals) {
      Leb(b, n);
      b.push_back(t);
    }
    b.insert(b.end(), body.begin(), body.end());
    bodies_.push_back(b);
    return num_funcs_++;
  }
  void Memory(uint32_t min, int64_t max = -1) {
    memory_ = {static_cast<uint8_t>(max >= 0 ? 1 : 0)};
    Leb(memory_, min);
    if (max >= 0) Leb(memory_, static_cast<uint64_t>(max));
  }
  void Export(const std::string& name, uint8_t kind, uint32_t index) {
    Bytes e;
    Name(e, name);
    e.push_back(kind);
    Leb(e, index);
    exports_.push_back(e);
  }
  void ExportFunc(const std::string& name, uint32_t index) { Export(name, 0x00, index); }

  Bytes Build() const {
    Bytes out = {0x00, 0x61, 0x73, 0x6D, 0x01, 0x00, 0x00, 0x00};
    Section(out, 1, types_);
    Section(out, 2, imports_);
    std::vector<Bytes> funcs;
    for (uint32_t t : func_types_) {
      Bytes b;
      Leb(b, t);
      funcs.push_back(b);
    }
    Section(out, 3, funcs);
    if (!memory_.empty()) Section(out, 5, {memory_});
    Section(out, 7, exports_);
    std::vector<Bytes> code;
    for (const Bytes& body : bodies_) {
      Bytes b;
      Leb(b, body.size());
      b.insert(b.end(), body.begin(), body.end());
      code.push_back(b);
    }
    Section(out, 10, code);
    return out;
  }

 private:
  static void Section(Bytes& out, uint8_t id, const std::vector<Bytes>& items) {
    if (items.empty()) return;
    Bytes content;
    Leb(content, items.size());
    for (const Bytes& i : items) content.insert(content.end(), i.begin(), i.end());
    out.push_back(id);
    Leb(out, content.size());
    out.insert(out.end(), content.begin(), content.end());
  }

  std::vector<Bytes> types_, imports_, exports_, bodies_;
  std::vector<uint32_t> func_types_;
  Bytes memory_;
  uint32_t num_funcs_ = 0;
};

constexpr uint8_t kI32 = 0x7F, kI64 = 0x7E, kF32 = 0x7D, kF64 = 0x7C;

}  // namespace sepp::wasm::testing
