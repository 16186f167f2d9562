#include "protocol/compression.h"

#include <lz4.h>
#include <snappy.h>

#include "common/coding.h"

namespace keywise::protocol {

Result<Compression> ParseCompressionName(std::string_view name) {
  if (name == "lz4") return Compression::kLz4;
  if (name == "snappy") return Compression::kSnappy;
  return Status::ProtocolError("Unknown compression algorithm: " +
                               std::string(name));
}

Status CompressLz4Block(std::string_view in, std::string* out) {
  if (in.size() > static_cast<size_t>(LZ4_MAX_INPUT_SIZE)) {
    return Status::ProtocolError("lz4: input of " + std::to_string(in.size()) +
                                 " bytes is too large");
  }
  const int src_size = static_cast<int>(in.size());
  const int bound = LZ4_compressBound(src_size);
  const size_t start = out->size();
  out->resize(start + static_cast<size_t>(bound));
  const int n =
      LZ4_compress_default(in.data(), out->data() + start, src_size, bound);
  if (n <= 0) {
    out->resize(start);
    return Status::ServerError("lz4: compression failed");
  }
  out->resize(start + static_cast<size_t>(n));
  return Status::OK();
}

constexpr size_t kLz4MaxRatio = 255;

Result<std::string> DecompressLz4Block(std::string_view in,
                                       size_t uncompressed_size) {
  if (uncompressed_size > static_cast<size_t>(LZ4_MAX_INPUT_SIZE) ||
      in.size() > static_cast<size_t>(INT32_MAX)) {
    return Status::ProtocolError("lz4: block too large");
  }
  // An LZ4 block expands at most 255 times (a match length grows by 255
  // per input byte): refuse a larger claim before allocating for it, or a
  // 13-byte frame would make the server allocate its whole 256 MB limit.
  if (uncompressed_size / kLz4MaxRatio > in.size()) {
    return Status::ProtocolError("lz4: corrupt compressed data");
  }
  std::string result(uncompressed_size, '\0');
  const int n =
      LZ4_decompress_safe(in.data(), result.data(), static_cast<int>(in.size()),
                          static_cast<int>(uncompressed_size));
  if (n < 0 || static_cast<size_t>(n) != uncompressed_size) {
    return Status::ProtocolError("lz4: corrupt compressed data");
  }
  return result;
}

Status CompressLz4Body(std::string_view in, std::string* out) {
  if (in.size() > static_cast<size_t>(LZ4_MAX_INPUT_SIZE)) {
    return Status::ProtocolError("lz4: input too large");
  }
  PutFixed32BE(out, static_cast<uint32_t>(in.size()));
  return CompressLz4Block(in, out);
}

Result<std::string> DecompressLz4Body(std::string_view in, size_t max_size) {
  uint32_t length = 0;
  if (!GetFixed32BE(&in, &length)) {
    return Status::ProtocolError("lz4: truncated length prefix");
  }
  if (length > max_size) {
    return Status::ProtocolError("lz4: uncompressed length " +
                                 std::to_string(length) + " exceeds limit " +
                                 std::to_string(max_size));
  }
  return DecompressLz4Block(in, length);
}

Status CompressSnappyBody(std::string_view in, std::string* out) {
  std::string compressed;
  snappy::Compress(in.data(), in.size(), &compressed);
  out->append(compressed);
  return Status::OK();
}

Result<std::string> DecompressSnappyBody(std::string_view in, size_t max_size) {
  size_t length = 0;
  if (!snappy::GetUncompressedLength(in.data(), in.size(), &length)) {
    return Status::ProtocolError("snappy: corrupt length header");
  }
  if (length > max_size) {
    return Status::ProtocolError("snappy: uncompressed length " +
                                 std::to_string(length) + " exceeds limit " +
                                 std::to_string(max_size));
  }
  if (!snappy::IsValidCompressedBuffer(in.data(), in.size())) {
    return Status::ProtocolError("snappy: corrupt compressed data");
  }
  std::string result;
  if (!snappy::Uncompress(in.data(), in.size(), &result) ||
      result.size() != length) {
    return Status::ProtocolError("snappy: corrupt compressed data");
  }
  return result;
}

}  // namespace keywise::protocol
