// Body compression for CQL native protocol frames.
//
// Contract: pure functions, thread-safe, safe on untrusted input.
// v3/v4 frames with kFlagCompression carry a compressed body:
//   lz4:    4-byte big-endian uncompressed length, then one raw LZ4 block
//           (as Cassandra's transport LZ4 compressor writes it).
//   snappy: one raw snappy block (snappy carries its own length).
// v5 segments use raw LZ4 blocks whose lengths live in the segment header
// (see frame_v5.h); those use the *Lz4Block functions.
// Decompressors never produce more than the caller's max_size bytes.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "common/status.h"

namespace keywise::protocol {

enum class Compression : uint8_t { kNone = 0, kLz4 = 1, kSnappy = 2 };

// Maps the STARTUP COMPRESSION option ("lz4", "snappy"; case-sensitive as in
// Cassandra) to Compression. Returns ProtocolError for anything else.
Result<Compression> ParseCompressionName(std::string_view name);

// Appends the length-prefixed lz4 body to *out. Returns ProtocolError if the
// input is too large for LZ4 (> LZ4_MAX_INPUT_SIZE).
Status CompressLz4Body(std::string_view in, std::string* out);
// Returns the decompressed body. ProtocolError if `in` is truncated, the
// declared length exceeds max_size, or the block is corrupt or does not
// decompress to exactly the declared length.
Result<std::string> DecompressLz4Body(std::string_view in, size_t max_size);

// Appends a raw snappy block to *out.
Status CompressSnappyBody(std::string_view in, std::string* out);
// ProtocolError if the block is corrupt or longer than max_size.
Result<std::string> DecompressSnappyBody(std::string_view in, size_t max_size);

// Appends one raw LZ4 block (no length prefix) to *out.
Status CompressLz4Block(std::string_view in, std::string* out);
// Decompresses a raw LZ4 block that must expand to exactly
// `uncompressed_size` bytes; ProtocolError otherwise.
Result<std::string> DecompressLz4Block(std::string_view in,
                                       size_t uncompressed_size);

}  // namespace keywise::protocol
