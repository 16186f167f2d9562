#include "console/key_labels.h"

#include <bit>
#include <cstdio>

#include "schema/partitioner.h"
#include "schema/value_codec.h"

namespace keywise::console {
namespace {

constexpr uint64_t kSignBit = uint64_t{1} << 63;
// Years 1 to 9999 in milliseconds: what a timestamp's text can show.
constexpr int64_t kMinPrintableMs = -62135596800000;
constexpr int64_t kMaxPrintableMs = 253402300799999;

// Text and blob keys: their first bytes, printable ASCII as is.
std::string BytesLabel(uint64_t position) {
  std::string out = "'";
  for (int shift = 56; shift >= 0; shift -= 8) {
    const unsigned char c = static_cast<unsigned char>(position >> shift);
    const uint64_t rest = shift == 0 ? 0 : position << (64 - shift);
    if (c == 0 && rest == 0) break;
    if (c >= 0x20 && c < 0x7f && c != '\'') {
      out += static_cast<char>(c);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    }
  }
  return out + "'…";
}

// The key at `position` (KeyPosition's inverse, up to the bytes kept).
std::string KeyAtPosition(const CqlType& type, uint64_t position) {
  switch (type.kind()) {
    case TypeKind::kTinyint:
      return std::to_string(static_cast<int8_t>((position >> 56) ^ 0x80u));
    case TypeKind::kSmallint:
      return std::to_string(static_cast<int16_t>((position >> 48) ^ 0x8000u));
    case TypeKind::kInt:
      return std::to_string(
          static_cast<int32_t>((position >> 32) ^ 0x80000000u));
    case TypeKind::kDate: {
      const int64_t days =
          static_cast<int64_t>(position >> 32) - (int64_t{1} << 31);
      return FormatValue(type, EncodeDate(static_cast<int32_t>(days)));
    }
    case TypeKind::kBigint:
      return std::to_string(static_cast<int64_t>(position ^ kSignBit));
    case TypeKind::kTimestamp: {
      const int64_t ms = static_cast<int64_t>(position ^ kSignBit);
      if (ms < kMinPrintableMs || ms > kMaxPrintableMs)
        return std::to_string(ms);
      return FormatValue(type, EncodeTimestamp(ms));
    }
    case TypeKind::kTime: {
      const int64_t nanos = static_cast<int64_t>(position ^ kSignBit);
      if (nanos < 0) return "00:00:00";
      if (nanos >= int64_t{86400} * 1000000000) return "24:00:00";
      return FormatValue(type, EncodeTime(nanos));
    }
    default:
      return BytesLabel(position);
  }
}

}  // namespace

std::string PlacementText(const TableDef& table) {
  if (!IsRangePlaced(table)) return "hash";
  if (table.options.salt_buckets <= 0) return "range";
  return "range, " + std::to_string(table.options.salt_buckets) +
         " salt buckets";
}

std::string KeyLabelAt(const TableDef& table, Token token) {
  if (!IsRangePlaced(table) || table.columns.empty()) return "";
  const uint64_t unbiased = static_cast<uint64_t>(token.value) ^ kSignBit;
  const CqlType& type = *table.columns[0].type;
  const int32_t buckets = table.options.salt_buckets;
  if (buckets <= 0) return KeyAtPosition(type, unbiased);
  const int bits = std::countr_zero(static_cast<uint32_t>(buckets));
  const uint64_t bucket = bits == 0 ? 0 : unbiased >> (64 - bits);
  const uint64_t position = unbiased << bits;
  return "bucket " + std::to_string(bucket) + ": " +
         KeyAtPosition(type, position);
}

}  // namespace keywise::console
