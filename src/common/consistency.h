// Consistency: the consistency levels of Cassandra's native protocol
// ([consistency], spec section 3), one type from the decoded frame through
// the query layer to the coordinator and back into error bodies.
// protocol/consistency.h names and parses them.
//
// Contract: the values are the protocol's; DO NOT CHANGE.
#pragma once

#include <cstdint>

namespace keywise {

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

}  // namespace keywise
