// The <writetype> of WriteTimeout and WriteFailure errors
// (native_protocol_v4.spec 9, the [string]s Cassandra's WriteType sends).
//
// Contract: pure functions, thread-safe. The numbers are Keywise's own (the
// wire carries the names) but are shared between threads of the server as
// indexes, so keep them in this order.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace keywise::protocol {

enum class WriteType : uint8_t {
  kSimple = 0,
  kBatch = 1,
  kUnloggedBatch = 2,
  kCounter = 3,
  kBatchLog = 4,
  kCas = 5,
  kView = 6,
  kCdc = 7,
};

// Returns "SIMPLE", "BATCH", "UNLOGGED_BATCH", ...
std::string_view WriteTypeName(WriteType type);

// Returns the write type named `name` (exact, upper case), or nullopt.
std::optional<WriteType> ParseWriteType(std::string_view name);

}  // namespace keywise::protocol
