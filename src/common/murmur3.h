// Cassandra's variant of MurmurHash3 x64/128, the hash behind the Murmur3
// partitioner's tokens.
//
// Contract: a pure function, safe from any thread. It must agree bit for bit
// with org.apache.cassandra.utils.MurmurHash.hash3_x64_128, because tokens
// decide data placement and the order of partitions, and drivers compute the
// same tokens for routing. Cassandra deviates from the reference
// MurmurHash3: the 1..15 trailing bytes are read as SIGNED Java bytes, so a
// tail byte >= 0x80 is sign-extended to 64 bits before it is shifted and
// xored in. The 16-byte body blocks are read as unsigned little-endian
// 64-bit words (identical to the reference). Keys without a tail, or whose
// tail bytes are all < 0x80, hash exactly like the reference algorithm.
#pragma once

#include <cstdint>
#include <string_view>

namespace keywise {

// Hashes `data` with `seed` (the partitioner uses seed 0) and stores the two
// 64-bit halves in out[0] and out[1], as Java's long[2] result.
void CassandraMurmur3X64_128(std::string_view data, uint64_t seed,
                             int64_t out[2]);

}  // namespace keywise
