// Consistency levels of the native protocol ([consistency], spec section 3)
// and their names, as drivers, cqlsh and Cassandra's messages spell them.
//
// Contract: the values are the protocol's; DO NOT CHANGE. Pure functions,
// thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace keywise::protocol {

enum class Consistency : uint16_t {
  kAny = 0x0000,
  kOne = 0x0001,
  kTwo = 0x0002,
  kThree = 0x0003,
  kQuorum = 0x0004,
  kAll = 0x0005,
  kLocalQuorum = 0x0006,
  kEachQuorum = 0x0007,
  kSerial = 0x0008,
  kLocalSerial = 0x0009,
  kLocalOne = 0x000A,
};

// Returns "ONE", "LOCAL_QUORUM", ...; "UNKNOWN" for a value not above.
std::string_view ConsistencyName(Consistency c);

// Returns the level named `name` (case-insensitive), or nullopt.
std::optional<Consistency> ParseConsistency(std::string_view name);

}  // namespace keywise::protocol
