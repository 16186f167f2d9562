// The names of the consistency levels (common/consistency.h), as drivers,
// cqlsh and Cassandra's messages spell them.
//
// Contract: pure functions, thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "common/consistency.h"

namespace keywise::protocol {

// Returns "ONE", "LOCAL_QUORUM", ...; "UNKNOWN" for any other value.
std::string_view ConsistencyName(Consistency c);

// Returns the level named `name` (case-insensitive), or nullopt.
std::optional<Consistency> ParseConsistency(std::string_view name);

}  // namespace keywise::protocol
