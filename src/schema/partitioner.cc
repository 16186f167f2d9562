#include "schema/partitioner.h"

#include <bit>
#include <limits>

#include "common/coding.h"

namespace keywise {
namespace {

constexpr uint64_t kSignBit = uint64_t{1} << 63;

// The first `n` bytes of `value` as a big-endian number; short values are
// padded with zero bytes on the right.
uint64_t LeadingBytes(std::string_view value, size_t n) {
  uint64_t out = 0;
  for (size_t i = 0; i < n; ++i) {
    out = (out << 8) |
          (i < value.size() ? static_cast<unsigned char>(value[i]) : 0u);
  }
  return out;
}

// log2 of a power-of-two bucket count.
int BucketBits(int32_t buckets) {
  return std::countr_zero(static_cast<uint32_t>(buckets));
}

}  // namespace

bool RangePlaceable(const CqlType& type) {
  switch (type.kind()) {
    case TypeKind::kTinyint:
    case TypeKind::kSmallint:
    case TypeKind::kInt:
    case TypeKind::kBigint:
    case TypeKind::kTimestamp:
    case TypeKind::kDate:
    case TypeKind::kTime:
    case TypeKind::kAscii:
    case TypeKind::kVarchar:
    case TypeKind::kBlob:
      return true;
    default:
      return false;
  }
}

std::string CheckPlacement(const TableDef& table) {
  const TableOptions& o = table.options;
  if (o.placement == PlacementKind::kHash) {
    if (o.salt_buckets != 0) {
      return "salt_buckets needs placement = 'range' (hash placement already "
             "spreads keys over the ring)";
    }
    return "";
  }
  std::vector<const ColumnDef*> pk = table.PartitionKeyColumns();
  if (pk.size() != 1) {
    return "placement = 'range' needs a partition key of one column (this "
           "table's has " +
           std::to_string(pk.size()) + ")";
  }
  if (!RangePlaceable(*pk[0]->type)) {
    return "placement = 'range' cannot order partition key column " +
           pk[0]->name + " of type " + pk[0]->type->ToCql() +
           "; use tinyint, smallint, int, bigint, timestamp, date, time, "
           "ascii, text or blob";
  }
  if (o.salt_buckets != 0 &&
      (o.salt_buckets < 2 || o.salt_buckets > kMaxSaltBuckets ||
       !std::has_single_bit(static_cast<uint32_t>(o.salt_buckets)))) {
    return "salt_buckets must be a power of two between 2 and " +
           std::to_string(kMaxSaltBuckets) + " (got " +
           std::to_string(o.salt_buckets) + ")";
  }
  return "";
}

uint64_t KeyPosition(const CqlType& type, std::string_view value) {
  switch (type.kind()) {
    case TypeKind::kTinyint:
      return (LeadingBytes(value, 1) ^ 0x80u) << 56;
    case TypeKind::kSmallint:
      return (LeadingBytes(value, 2) ^ 0x8000u) << 48;
    case TypeKind::kInt:
      return (LeadingBytes(value, 4) ^ 0x80000000u) << 32;
    case TypeKind::kDate:  // unsigned days, 2^31 = the epoch
      return LeadingBytes(value, 4) << 32;
    case TypeKind::kBigint:
    case TypeKind::kTimestamp:
    case TypeKind::kTime:
      return LeadingBytes(value, 8) ^ kSignBit;
    default:  // ascii, text, blob: their first 8 bytes
      return LeadingBytes(value, 8);
  }
}

Token PositionToken(int32_t buckets, uint32_t bucket, uint64_t position) {
  uint64_t unbiased = position;
  if (buckets > 0) {
    const int bits = BucketBits(buckets);
    unbiased = (uint64_t{bucket} << (64 - bits)) | (position >> bits);
  }
  int64_t value = static_cast<int64_t>(unbiased ^ kSignBit);
  // The minimum token stands for "unbounded"; no key may have it.
  if (value == std::numeric_limits<int64_t>::min()) ++value;
  return Token{value};
}

uint32_t SaltBucket(int32_t buckets, std::string_view serialized_pk) {
  const uint64_t hash =
      static_cast<uint64_t>(TokenOfKey(serialized_pk).value) ^ kSignBit;
  return static_cast<uint32_t>(hash >> (64 - BucketBits(buckets)));
}

Token PartitionToken(const TableDef& table, std::string_view serialized_pk) {
  if (table.options.placement == PlacementKind::kHash) {
    return TokenOfKey(serialized_pk);
  }
  return PlacedToken(table.options, *table.columns[0].type, serialized_pk);
}

Token PlacedToken(const TableOptions& o, const CqlType& first_key_type,
                  std::string_view serialized_pk) {
  if (o.placement == PlacementKind::kHash) return TokenOfKey(serialized_pk);
  const uint64_t position = KeyPosition(first_key_type, serialized_pk);
  const uint32_t bucket =
      o.salt_buckets > 0 ? SaltBucket(o.salt_buckets, serialized_pk) : 0;
  return PositionToken(o.salt_buckets, bucket, position);
}

}  // namespace keywise
