// Flags and kinds inside request bodies: the <flags> of <query_parameters>
// (QUERY, EXECUTE, and BATCH's trailing options; native_protocol_v4.spec
// 4.1.4, v5 4.1.4), PREPARE's flags (v5) and BATCH's type and entry kinds
// (4.1.7).
//
// Contract: the values are the protocol's; DO NOT CHANGE. Before v5 the
// query flags are one [byte], from v5 an [int]; the v5-only bits must not be
// sent or honoured before v5.
#pragma once

#include <cstdint>

namespace keywise::protocol {

// <query_parameters> flags.
inline constexpr uint32_t kQueryValues = 0x01;
inline constexpr uint32_t kQuerySkipMetadata = 0x02;
inline constexpr uint32_t kQueryPageSize = 0x04;
inline constexpr uint32_t kQueryPagingState = 0x08;
inline constexpr uint32_t kQuerySerialConsistency = 0x10;
inline constexpr uint32_t kQueryDefaultTimestamp = 0x20;
inline constexpr uint32_t kQueryNamesForValues = 0x40;
inline constexpr uint32_t kQueryKeyspace = 0x80;       // v5
inline constexpr uint32_t kQueryNowInSeconds = 0x100;  // v5

// PREPARE flags (v5).
inline constexpr uint32_t kPrepareWithKeyspace = 0x01;

// BATCH <type>.
enum class BatchType : uint8_t { kLogged = 0, kUnlogged = 1, kCounter = 2 };

// BATCH <kind> of each entry: query text or a prepared id.
enum class BatchEntryKind : uint8_t { kQueryText = 0, kPreparedId = 1 };

}  // namespace keywise::protocol
