#include "base/ids.h"

#include <chrono>
#include <cstdint>
#include <random>
#include <sys/random.h>

namespace sepp {
namespace {

uint64_t Random64() {
  uint64_t v;
  if (::getrandom(&v, sizeof v, 0) == sizeof v) return v;
  static thread_local std::mt19937_64 gen{std::random_device{}()};
  return gen();
}

void AppendHex(std::string& out, uint64_t v, int digits) {
  static const char* hex = "0123456789abcdef";
  for (int i = digits - 1; i >= 0; --i) out += hex[(v >> (i * 4)) & 0xF];
}

}  // namespace

std::string NewId() {
  uint64_t ms = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::system_clock::now().time_since_epoch()).count());
  uint64_t r1 = Random64(), r2 = Random64();
  std::string out;
  out.reserve(32);
  AppendHex(out, ms, 12);                               // 48 bits of time
  AppendHex(out, 0x7000 | (r1 & 0x0FFF), 4);            // version 7 + 12 random bits
  AppendHex(out, 0x8000000000000000ULL | (r2 >> 2), 16);  // variant + 62 random bits
  return out;
}

std::string ShortId() {
  std::string out;
  AppendHex(out, Random64(), 8);
  return out;
}

}  // namespace sepp
