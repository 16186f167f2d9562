// Codes inside RESULT bodies (native_protocol_v4.spec 4.2.5, v5 4.2.5): the
// result kinds and the <flags> of rows metadata (4.2.5.2), which a
// Prepared result's result metadata uses too.
//
// Contract: the values are the protocol's; DO NOT CHANGE.
#pragma once

#include <cstdint>

namespace keywise::protocol {

enum class ResultKind : int32_t {
  kVoid = 0x0001,
  kRows = 0x0002,
  kSetKeyspace = 0x0003,
  kPrepared = 0x0004,
  kSchemaChange = 0x0005,
};

// Rows metadata flags.
inline constexpr int32_t kRowsGlobalTablesSpec = 0x0001;
inline constexpr int32_t kRowsHasMorePages = 0x0002;
inline constexpr int32_t kRowsNoMetadata = 0x0004;
inline constexpr int32_t kRowsMetadataChanged = 0x0008;  // v5

}  // namespace keywise::protocol
