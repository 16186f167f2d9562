#include "common/murmur3.h"

namespace keywise {
namespace {

constexpr uint64_t kC1 = 0x87c37b91114253d5ULL;
constexpr uint64_t kC2 = 0x4cf5ad432745937fULL;

inline uint64_t Rotl64(uint64_t v, int n) {
  return (v << n) | (v >> (64 - n));
}

inline uint64_t Fmix(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  k ^= k >> 33;
  return k;
}

// Little-endian unsigned 64-bit word (the body blocks are NOT sign-extended).
inline uint64_t LoadBlock(const unsigned char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
  return v;
}

// A tail byte as Java's (long) of a signed byte: sign-extended to 64 bits.
inline uint64_t TailByte(const unsigned char* p, int i) {
  return static_cast<uint64_t>(
      static_cast<int64_t>(static_cast<signed char>(p[i])));
}

}  // namespace

void CassandraMurmur3X64_128(std::string_view data, uint64_t seed,
                             int64_t out[2]) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(data.data());
  const size_t length = data.size();
  const size_t nblocks = length / 16;
  uint64_t h1 = seed;
  uint64_t h2 = seed;

  for (size_t i = 0; i < nblocks; i++) {
    uint64_t k1 = LoadBlock(bytes + 16 * i);
    uint64_t k2 = LoadBlock(bytes + 16 * i + 8);
    k1 *= kC1;
    k1 = Rotl64(k1, 31);
    k1 *= kC2;
    h1 ^= k1;
    h1 = Rotl64(h1, 27);
    h1 += h2;
    h1 = h1 * 5 + 0x52dce729;
    k2 *= kC2;
    k2 = Rotl64(k2, 33);
    k2 *= kC1;
    h2 ^= k2;
    h2 = Rotl64(h2, 31);
    h2 += h1;
    h2 = h2 * 5 + 0x38495ab5;
  }

  const unsigned char* tail = bytes + 16 * nblocks;
  const int rem = static_cast<int>(length & 15);
  uint64_t k1 = 0;
  uint64_t k2 = 0;
  for (int i = rem - 1; i >= 8; i--) k2 ^= TailByte(tail, i) << (8 * (i - 8));
  if (rem > 8) {
    k2 *= kC2;
    k2 = Rotl64(k2, 33);
    k2 *= kC1;
    h2 ^= k2;
  }
  for (int i = (rem > 8 ? 8 : rem) - 1; i >= 0; i--) {
    k1 ^= TailByte(tail, i) << (8 * i);
  }
  if (rem > 0) {
    k1 *= kC1;
    k1 = Rotl64(k1, 31);
    k1 *= kC2;
    h1 ^= k1;
  }

  // Java xors the int length into the long (sign-extended; lengths are
  // non-negative ints, so this is the plain value).
  h1 ^= static_cast<uint64_t>(length);
  h2 ^= static_cast<uint64_t>(length);
  h1 += h2;
  h2 += h1;
  h1 = Fmix(h1);
  h2 = Fmix(h2);
  h1 += h2;
  h2 += h1;
  out[0] = static_cast<int64_t>(h1);
  out[1] = static_cast<int64_t>(h2);
}

}  // namespace keywise
