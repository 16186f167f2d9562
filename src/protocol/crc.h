// Checksums of CQL native protocol v5 segments (native_protocol_v5.spec
// section 2).
//
// Contract: pure functions, thread-safe.
//   Crc24: the header checksum. Init 0x875060, polynomial 0x1974F0B, MSB
//     first, no reflection and no final xor, fed the header bytes in wire
//     order. The result is stored as 3 little-endian bytes.
//   SegmentCrc32: the payload checksum. The standard CRC-32 (IEEE, reflected
//     0xEDB88320, init and final xor 0xFFFFFFFF, as java.util.zip.CRC32) of
//     the bytes FA 2D 55 CA followed by the payload, as Cassandra and the
//     drivers compute it. Stored as 4 little-endian bytes.
#pragma once

#include <cstdint>
#include <string_view>

namespace keywise::protocol {

// Returns the 24-bit header CRC of `bytes` (low 24 bits of the result).
uint32_t Crc24(std::string_view bytes);

// Returns the standard CRC-32 of `bytes` (CRC32("123456789") = 0xCBF43926).
uint32_t Crc32Ieee(std::string_view bytes);

// Returns the v5 payload CRC: CRC-32 of FA 2D 55 CA followed by `payload`.
uint32_t SegmentCrc32(std::string_view payload);

}  // namespace keywise::protocol
