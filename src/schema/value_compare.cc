// CompareValues: Cassandra's AbstractType comparators, type by type
// (Int32Type, IntegerType, DecimalType, FloatType, UUIDType, TimeUUIDType,
// ListType/SetType/MapType for frozen collections, TupleType, UserType).

#include <cmath>
#include <cstring>

#include "common/coding.h"
#include "schema/number_codec.h"
#include "schema/value_bytes.h"
#include "schema/value_codec.h"

namespace keywise {
namespace {

using value_bytes::GetCount;
using value_bytes::GetElement;
using value_bytes::ReadSigned;

template <typename T>
int Cmp(T a, T b) {
  return a < b ? -1 : (a > b ? 1 : 0);
}

int CompareBytes(std::string_view a, std::string_view b) {
  int c = std::memcmp(a.data(), b.data(), std::min(a.size(), b.size()));
  if (c != 0) return c < 0 ? -1 : 1;
  return Cmp(a.size(), b.size());
}

// Java Float.compare / Double.compare: -0.0 < 0.0, NaN above +Infinity.
template <typename T>
int CompareFloating(T a, T b) {
  if (std::isnan(a) || std::isnan(b)) {
    return std::isnan(a) ? (std::isnan(b) ? 0 : 1) : -1;
  }
  if (a != b) return a < b ? -1 : 1;
  return Cmp(std::signbit(b), std::signbit(a));
}

// TimeUUIDType.reorderTimestampBytes: time_hi, time_mid, time_low.
uint64_t ReorderTimestamp(uint64_t msb) {
  return (msb << 48) | ((msb << 16) & 0xFFFF00000000ULL) | (msb >> 32);
}

int CompareUuid(std::string_view a, std::string_view b) {
  uint64_t msb1 = DecodeFixed64BE(a.data()), msb2 = DecodeFixed64BE(b.data());
  int v1 = static_cast<int>((msb1 >> 12) & 0xf);
  int v2 = static_cast<int>((msb2 >> 12) & 0xf);
  if (v1 != v2) return Cmp(v1, v2);
  int c = v1 == 1 ? Cmp(static_cast<int64_t>(ReorderTimestamp(msb1)),
                        static_cast<int64_t>(ReorderTimestamp(msb2)))
                  : Cmp(msb1, msb2);
  if (c != 0) return c;
  return Cmp(DecodeFixed64BE(a.data() + 8), DecodeFixed64BE(b.data() + 8));
}

int CompareTimeuuid(std::string_view a, std::string_view b) {
  uint64_t msb1 = DecodeFixed64BE(a.data()), msb2 = DecodeFixed64BE(b.data());
  int c = Cmp(static_cast<int64_t>(ReorderTimestamp(msb1)),
              static_cast<int64_t>(ReorderTimestamp(msb2)));
  if (c != 0) return c;
  // Signed per-byte comparison of the clock sequence and node.
  constexpr uint64_t kFlip = 0x0080808080808080ULL;
  return Cmp(static_cast<int64_t>(DecodeFixed64BE(a.data() + 8) ^ kFlip),
             static_cast<int64_t>(DecodeFixed64BE(b.data() + 8) ^ kFlip));
}

int CompareCollections(const CqlType& type, std::string_view a,
                       std::string_view b) {
  int32_t na = 0, nb = 0;
  if (!GetCount(&a, &na) || !GetCount(&b, &nb)) return CompareBytes(a, b);
  bool map = type.kind() == TypeKind::kMap;
  for (int32_t i = 0; i < std::min(na, nb); i++) {
    for (int part = 0; part < (map ? 2 : 1); part++) {
      std::optional<std::string_view> x, y;
      if (!GetElement(&a, &x) || !GetElement(&b, &y) || !x || !y) {
        return CompareBytes(a, b);
      }
      int c = CompareValues(*type.params()[part], *x, *y);
      if (c != 0) return c;
    }
  }
  return Cmp(na, nb);
}

bool AllRemainingNull(std::string_view in) {
  while (!in.empty()) {
    std::optional<std::string_view> e;
    if (!GetElement(&in, &e)) return false;
    if (e) return false;
  }
  return true;
}

int CompareFields(const CqlType& type, std::string_view a, std::string_view b) {
  const auto& params = type.params();
  for (size_t i = 0; i < params.size() && !a.empty() && !b.empty(); i++) {
    std::optional<std::string_view> x, y;
    if (!GetElement(&a, &x) || !GetElement(&b, &y)) return CompareBytes(a, b);
    if (!x || !y) {
      if (!x && !y) continue;
      return x ? 1 : -1;  // null sorts first
    }
    int c = CompareValues(*params[i], *x, *y);
    if (c != 0) return c;
  }
  bool ra = AllRemainingNull(a), rb = AllRemainingNull(b);
  if (ra && rb) return 0;
  return ra ? -1 : 1;
}

}  // namespace

int CompareValues(const CqlType& type, std::string_view a, std::string_view b) {
  if (a.empty() || b.empty()) return a.empty() ? (b.empty() ? 0 : -1) : 1;
  switch (type.kind()) {
    case TypeKind::kInt:
    case TypeKind::kBigint:
    case TypeKind::kCounter:
    case TypeKind::kSmallint:
    case TypeKind::kTinyint:
    case TypeKind::kTimestamp:
    case TypeKind::kTime:
      return Cmp(ReadSigned(a), ReadSigned(b));
    case TypeKind::kBoolean:
      return Cmp(a[0] != 0, b[0] != 0);
    case TypeKind::kFloat: {
      auto x = DecodeFloat(a), y = DecodeFloat(b);
      if (!x.ok() || !y.ok()) return CompareBytes(a, b);
      return CompareFloating(*x, *y);
    }
    case TypeKind::kDouble: {
      auto x = DecodeDouble(a), y = DecodeDouble(b);
      if (!x.ok() || !y.ok()) return CompareBytes(a, b);
      return CompareFloating(*x, *y);
    }
    case TypeKind::kVarint:
      return CompareVarints(a, b);
    case TypeKind::kDecimal:
      if (a.size() < 4 || b.size() < 4) return CompareBytes(a, b);
      return CompareDecimals(a, b);
    case TypeKind::kUuid:
      if (a.size() != 16 || b.size() != 16) return CompareBytes(a, b);
      return CompareUuid(a, b);
    case TypeKind::kTimeuuid:
      if (a.size() != 16 || b.size() != 16) return CompareBytes(a, b);
      return CompareTimeuuid(a, b);
    case TypeKind::kList:
    case TypeKind::kSet:
    case TypeKind::kMap:
      return CompareCollections(type, a, b);
    case TypeKind::kTuple:
    case TypeKind::kUdt:
      return CompareFields(type, a, b);
    default:
      // ascii, text, blob, inet, date (unsigned, epoch at 2^31), duration.
      return CompareBytes(a, b);
  }
}

}  // namespace keywise
