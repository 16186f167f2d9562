// RawDigest: a 128-bit digest (XXH3, Debian's libxxhash) of a replica's
// raw answer for a partition (storage/raw_partition.h), compared across
// replicas instead of their data: equal digests, equal answers. The digest
// is of the answer's encoding (raw_partition_codec.h), which is a function
// of its content, so replicas holding the same writes agree.
//
// Contract: pure functions, thread-safe. A digest is 16 bytes.
#pragma once

#include <string>
#include <string_view>

#include "storage/raw_partition.h"

namespace keywise::cluster {

inline constexpr size_t kRawDigestBytes = 16;

// The digest of an encoded RawPartition.
std::string DigestOfEncoded(std::string_view encoded);
// The digest of `partition`'s encoding.
std::string RawDigest(const RawPartition& partition);

}  // namespace keywise::cluster
