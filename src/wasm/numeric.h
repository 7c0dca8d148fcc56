// Exact WebAssembly numeric semantics that C++ operators do not give directly:
// float min/max (NaN propagation and signed zeros), bitwise abs/neg/copysign
// (which must not touch NaN payloads), checked and saturating float-to-int
// truncation. Inline because the interpreter's hot loop calls them.
#pragma once
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace sepp::wasm::num {

inline float F32(uint64_t slot) {
  uint32_t b = static_cast<uint32_t>(slot);
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
inline double F64(uint64_t slot) {
  double d;
  std::memcpy(&d, &slot, 8);
  return d;
}
inline uint64_t Bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
inline uint64_t Bits(double d) {
  uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}

template <class F>
inline F Min(F a, F b) {
  if (std::isnan(a) || std::isnan(b)) return a + b;  // quiet NaN, payload kept
  if (a == 0 && b == 0) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}
template <class F>
inline F Max(F a, F b) {
  if (std::isnan(a) || std::isnan(b)) return a + b;
  if (a == 0 && b == 0) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

// Rounding functions may return a signalling NaN unchanged; wasm requires
// the result to be a quiet (arithmetic) NaN.
template <class F> inline F Ceil(F x) { return std::isnan(x) ? x + x : std::ceil(x); }
template <class F> inline F Floor(F x) { return std::isnan(x) ? x + x : std::floor(x); }
template <class F> inline F TruncF(F x) { return std::isnan(x) ? x + x : std::trunc(x); }
template <class F> inline F Nearest(F x) { return std::isnan(x) ? x + x : std::nearbyint(x); }

// Result of a checked truncation: ok, or which trap.
enum class TruncError { kNone, kNaN, kOverflow };

// Truncates toward zero into integer type I; `lo` and `hi` are the exclusive
// float bounds (-2^N-1 and 2^N, exactly representable) of the valid range.
template <class I, class F>
inline TruncError Trunc(F x, I* out) {
  if (std::isnan(x)) return TruncError::kNaN;
  F t = std::trunc(x);
  constexpr bool kSigned = std::numeric_limits<I>::is_signed;
  constexpr int kBits = sizeof(I) * 8;
  // 2^(bits-1) for signed, 2^bits for unsigned; both exact in float/double.
  const F hi = kSigned ? std::ldexp(F(1), kBits - 1) : std::ldexp(F(1), kBits);
  const F lo = kSigned ? -hi : F(0);
  if (kSigned ? (t < lo || t >= hi) : (t < lo || t >= hi)) {
    if (!kSigned && t > F(-1) && t <= F(0)) {  // (-1, 0] truncates to 0
      *out = 0;
      return TruncError::kNone;
    }
    return TruncError::kOverflow;
  }
  *out = static_cast<I>(t);
  return TruncError::kNone;
}

template <class I, class F>
inline I TruncSat(F x) {
  if (std::isnan(x)) return 0;
  constexpr bool kSigned = std::numeric_limits<I>::is_signed;
  constexpr int kBits = sizeof(I) * 8;
  const F hi = kSigned ? std::ldexp(F(1), kBits - 1) : std::ldexp(F(1), kBits);
  F t = std::trunc(x);
  if (t >= hi) return std::numeric_limits<I>::max();
  if (kSigned ? t < -hi : t < F(0)) return std::numeric_limits<I>::min();
  return static_cast<I>(t);
}

}  // namespace sepp::wasm::num
