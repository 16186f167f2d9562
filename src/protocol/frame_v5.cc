#include "protocol/frame_v5.h"

#include "protocol/compression.h"
#include "protocol/crc.h"

namespace keywise::protocol {
namespace {

constexpr uint64_t kLengthMask = (1u << 17) - 1;

void PutLittleEndian(std::string* out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; i++)
    out->push_back(static_cast<char>(v >> (8 * i)));
}

uint64_t GetLittleEndian(std::string_view in, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; i++) {
    v |= uint64_t{static_cast<uint8_t>(in[i])} << (8 * i);
  }
  return v;
}

int HeaderBytes(SegmentFormat format) {
  return format == SegmentFormat::kLz4 ? 5 : 3;
}

}  // namespace

size_t SegmentHeaderSize(SegmentFormat format) {
  return static_cast<size_t>(HeaderBytes(format)) + 3;
}

Status EncodeSegment(std::string_view payload, SelfContained self_contained,
                     SegmentFormat format, std::string* out) {
  if (payload.size() > kMaxSegmentPayload) {
    return Status::ProtocolError(
        "Segment payload of " + std::to_string(payload.size()) +
        " bytes exceeds " + std::to_string(kMaxSegmentPayload));
  }
  const uint64_t flag = self_contained == SelfContained::kYes ? 1 : 0;
  std::string body;  // bytes that follow the header, before the CRC32
  uint64_t header = 0;
  if (format == SegmentFormat::kLz4) {
    std::string compressed;
    KW_RETURN_IF_ERROR(CompressLz4Block(payload, &compressed));
    uint64_t uncompressed_length = payload.size();
    if (compressed.size() >= payload.size()) {
      body.assign(payload);
      uncompressed_length = 0;  // sent as is
    } else {
      body = std::move(compressed);
    }
    header = body.size() | (uncompressed_length << 17) | (flag << 34);
  } else {
    body.assign(payload);
    header = body.size() | (flag << 17);
  }
  const int header_bytes = HeaderBytes(format);
  const size_t start = out->size();
  PutLittleEndian(out, header, header_bytes);
  const uint32_t crc24 = Crc24(std::string_view(*out).substr(start));
  PutLittleEndian(out, crc24, 3);
  out->append(body);
  PutLittleEndian(out, SegmentCrc32(body), 4);
  return Status::OK();
}

Result<std::optional<Segment>> DecodeSegment(std::string_view in,
                                             SegmentFormat format,
                                             size_t* consumed) {
  *consumed = 0;
  const size_t header_size = SegmentHeaderSize(format);
  if (in.size() < header_size) return std::optional<Segment>();
  const int header_bytes = HeaderBytes(format);
  const uint64_t header = GetLittleEndian(in, header_bytes);
  const uint32_t expected_crc24 =
      static_cast<uint32_t>(GetLittleEndian(in.substr(header_bytes), 3));
  const uint32_t actual_crc24 = Crc24(in.substr(0, header_bytes));
  if (expected_crc24 != actual_crc24) {
    return Status::ProtocolError("Segment header CRC24 mismatch");
  }
  const size_t body_length = header & kLengthMask;
  size_t uncompressed_length = 0;
  uint64_t flag;
  if (format == SegmentFormat::kLz4) {
    uncompressed_length = (header >> 17) & kLengthMask;
    flag = (header >> 34) & 1;
  } else {
    flag = (header >> 17) & 1;
  }
  const size_t total = header_size + body_length + kSegmentCrc32Size;
  if (in.size() < total) return std::optional<Segment>();
  const std::string_view body = in.substr(header_size, body_length);
  const uint32_t expected_crc32 = static_cast<uint32_t>(
      GetLittleEndian(in.substr(header_size + body_length), 4));
  if (expected_crc32 != SegmentCrc32(body)) {
    return Status::ProtocolError("Segment payload CRC32 mismatch");
  }
  Segment segment;
  segment.self_contained = flag ? SelfContained::kYes : SelfContained::kNo;
  if (format == SegmentFormat::kLz4 && uncompressed_length != 0) {
    KW_ASSIGN_OR_RETURN(segment.payload,
                        DecompressLz4Block(body, uncompressed_length));
  } else {
    segment.payload.assign(body);
  }
  *consumed = total;
  return std::optional<Segment>(std::move(segment));
}

}  // namespace keywise::protocol
