// Bounds-checked cursor over module bytes with LEB128 decoding, as the binary
// format defines it: an N-bit integer takes at most ceil(N/7) bytes and the
// unused bits of the last byte must be zero (unsigned) or a sign extension
// (signed). Every read checks the end first; errors are sticky so callers can
// read a run of fields and check once.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace sepp::wasm {

class Reader {
 public:
  Reader() = default;
  Reader(const uint8_t* data, size_t size) : p_(data), end_(data + size) {}

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  void Fail(std::string message) {
    if (error_.empty()) error_ = std::move(message);
    p_ = end_;
  }
  size_t remaining() const { return static_cast<size_t>(end_ - p_); }
  bool at_end() const { return p_ == end_; }
  const uint8_t* pos() const { return p_; }

  uint8_t U8() {
    if (p_ >= end_) {
      Fail("unexpected end of section or function");
      return 0;
    }
    return *p_++;
  }
  uint8_t Peek() const { return p_ < end_ ? *p_ : 0; }
  uint32_t U32() { return static_cast<uint32_t>(Unsigned(32)); }
  uint64_t U64() { return Unsigned(64); }
  int32_t S32() { return static_cast<int32_t>(Signed(32)); }
  int64_t S64() { return Signed(64); }
  int64_t S33() { return Signed(33); }

  uint32_t Fixed32() {
    uint32_t v = 0;
    if (remaining() < 4) {
      Fail("unexpected end of section or function");
      return 0;
    }
    std::memcpy(&v, p_, 4);
    p_ += 4;
    return v;
  }
  uint64_t Fixed64() {
    uint64_t v = 0;
    if (remaining() < 8) {
      Fail("unexpected end of section or function");
      return 0;
    }
    std::memcpy(&v, p_, 8);
    p_ += 8;
    return v;
  }

  // Returns a sub-reader over the next n bytes and skips them.
  Reader Sub(size_t n) {
    if (n > remaining()) {
      Fail("unexpected end: length out of bounds");
      return Reader();
    }
    Reader r(p_, n);
    p_ += n;
    return r;
  }
  std::string_view Bytes(size_t n) {
    if (n > remaining()) {
      Fail("unexpected end: length out of bounds");
      return {};
    }
    std::string_view s(reinterpret_cast<const char*>(p_), n);
    p_ += n;
    return s;
  }

 private:
  uint64_t Unsigned(int bits) {
    uint64_t result = 0;
    int shift = 0;
    for (;;) {
      if (p_ >= end_) {
        Fail("unexpected end of LEB128 integer");
        return 0;
      }
      uint8_t b = *p_++;
      int room = bits - shift;  // bits still to fill
      if (room < 7) {
        // Last permitted byte: no continuation, unused bits zero.
        if (b & 0x80) {
          Fail("integer representation too long");
          return 0;
        }
        if ((b >> room) != 0) {
          Fail("integer too large");
          return 0;
        }
      }
      result |= static_cast<uint64_t>(b & 0x7F) << shift;
      shift += 7;
      if (!(b & 0x80)) return result;
      if (shift >= bits && room <= 7) {
        Fail("integer representation too long");
        return 0;
      }
    }
  }
  int64_t Signed(int bits) {
    uint64_t result = 0;
    int shift = 0;
    for (;;) {
      if (p_ >= end_) {
        Fail("unexpected end of LEB128 integer");
        return 0;
      }
      uint8_t b = *p_++;
      int room = bits - shift;
      if (room < 7) {
        if (b & 0x80) {
          Fail("integer representation too long");
          return 0;
        }
        // The bits from room-1 up to 6 must all equal the sign bit.
        int sign_and_unused = static_cast<int8_t>(b << 1) >> (room);
        if (sign_and_unused != 0 && sign_and_unused != -1) {
          Fail("integer too large");
          return 0;
        }
      }
      result |= static_cast<uint64_t>(b & 0x7F) << shift;
      shift += 7;
      if (!(b & 0x80)) {
        if (shift < 64 && (b & 0x40)) result |= ~uint64_t{0} << shift;
        return static_cast<int64_t>(result);
      }
      if (room <= 7) {
        Fail("integer representation too long");
        return 0;
      }
    }
  }

  const uint8_t* p_ = nullptr;
  const uint8_t* end_ = nullptr;
  std::string error_;
};

}  // namespace sepp::wasm
