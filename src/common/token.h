// Token: the position of a partition on Cassandra's Murmur3 ring.
//
// Contract: value type; pure functions, safe from any thread.
// TokenOfKey equals Murmur3Partitioner.getToken for the serialized partition
// key (see partition_key.h), so drivers' token-aware routing, token(pk) in
// CQL and the order of partitions in a scan all agree with Cassandra.
//
// Ordered form (stored in every storage key: DO NOT CHANGE): 8 bytes,
// big-endian, of the token's two's-complement value with the sign bit
// flipped, so that memcmp order of the bytes equals signed token order:
//   INT64_MIN -> 00 00 00 00 00 00 00 00
//   -1        -> 7f ff ff ff ff ff ff ff
//   0         -> 80 00 00 00 00 00 00 00
//   INT64_MAX -> ff ff ff ff ff ff ff ff
#pragma once

#include <compare>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace keywise {

struct Token {
  int64_t value;
  auto operator<=>(const Token&) const = default;
};

// The partitioner's minimum token. No non-empty key hashes to it: a hash of
// INT64_MIN is normalized to INT64_MAX. Only the empty key maps here.
inline constexpr Token kMinimumToken{std::numeric_limits<int64_t>::min()};

inline constexpr size_t kOrderedTokenSize = 8;

// Returns the Murmur3 token of a serialized partition key: the first half
// of CassandraMurmur3X64_128(key, seed 0), with INT64_MIN mapped to
// INT64_MAX; the empty key gets kMinimumToken (as Cassandra does).
Token TokenOfKey(std::string_view serialized_partition_key);

// Appends the 8-byte ordered form described above.
void AppendTokenOrdered(Token token, std::string* out);

// Decodes the ordered form. REQUIRES: p points at 8 readable bytes.
Token DecodeTokenOrdered(const char* p);

}  // namespace keywise
