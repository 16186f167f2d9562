// Partition key serialization: the bytes that are hashed into a token and
// stored (escaped) in every storage key of the partition.
//
// Contract: pure functions, safe from any thread. The format is Cassandra's
// (and the drivers' routing key), so tokens match Cassandra's:
//
//   one key column:   the column's serialized CQL value, unchanged.
//   several columns:  CompositeType: for each component
//                       u16 BE length | value bytes | 0x00 (end-of-component)
//
//   e.g. (int 1, text 'ab') ->
//     00 04 | 00 00 00 01 | 00 | 00 02 | 61 62 | 00
//
// Each component must be at most 65535 bytes (the u16 length), which
// Cassandra enforces for every key column: callers check
// ValidateKeyComponentSize before serializing.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace keywise {

inline constexpr size_t kMaxKeyComponentSize = 65535;

// Returns OK, or Invalid("Key length of N is longer than maximum of 65535")
// (Cassandra's message) when bytes > kMaxKeyComponentSize.
Status ValidateKeyComponentSize(size_t bytes);

// Serializes partition key values in key-column order.
// REQUIRES: !components.empty(); with 2+ components each is at most
// kMaxKeyComponentSize bytes (checked by ValidateKeyComponentSize).
std::string SerializePartitionKey(const std::vector<std::string>& components);

// Splits a serialized key back into `num_components` values. With one
// component the whole input is the value. Returns ServerError when the bytes
// are not exactly num_components well-formed composite components (short
// input, an end-of-component byte other than 0x00, trailing bytes). Safe on
// arbitrary input. REQUIRES: num_components >= 1.
Result<std::vector<std::string>> SplitPartitionKey(std::string_view serialized,
                                                   size_t num_components);

}  // namespace keywise
