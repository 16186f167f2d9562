#include "storage/ordered_codec.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "common/coding.h"

namespace keywise {
namespace {

// Component header bytes (ASC form); see ordered_codec.h. DO NOT CHANGE.
constexpr char kEmpty = 0x01;
constexpr char kNegative = 0x02;
constexpr char kValue = 0x03;
constexpr char kPositive = 0x04;
constexpr char kRaw = 0x05;
// Tuple field markers.
constexpr char kFieldEnd = 0x00;
constexpr char kFieldNull = 0x01;
constexpr char kFieldPresent = 0x02;

// Varint and decimal values longer than this take the raw form (Cassandra
// caps key components at 65535 bytes); this bounds the work and memory a
// malformed encoding can make the decoder spend.
constexpr size_t kMaxNumberBytes = 65536 + 8;
constexpr int64_t kMaxDecimalDigits = 160000;  // > digits of kMaxNumberBytes
constexpr uint64_t kSign64 = uint64_t{1} << 63;

void Invert(std::string* out, size_t from) {
  for (size_t i = from; i < out->size(); i++) (*out)[i] = ~(*out)[i];
}

void PutBE(std::string* out, uint64_t v, int width) {
  for (int i = width - 1; i >= 0; i--)
    out->push_back(static_cast<char>(v >> (8 * i)));
}

uint64_t LoadBE(std::string_view v) {
  uint64_t r = 0;
  for (char c : v) r = (r << 8) | static_cast<unsigned char>(c);
  return r;
}

// Order-preserving unsigned integer: a count byte k (0..8) then the k
// significant bytes, big-endian.
void PutOrderedUint(std::string* out, uint64_t v) {
  int k = 0;
  while (k < 8 && (v >> (8 * k)) != 0) k++;
  out->push_back(static_cast<char>(k));
  PutBE(out, v, k);
}

// Reads encodings from a byte string whose bytes are xored with a mask
// (0xff while reading a DESC component or a negative number's body).
class Reader {
 public:
  Reader(std::string_view in, uint8_t mask) : in_(in), mask_(mask) {}
  std::string_view rest() const { return in_; }
  void FlipMask() { mask_ ^= 0xff; }

  bool Peek(uint8_t* b) const {
    if (in_.empty()) return false;
    *b = static_cast<uint8_t>(in_[0]) ^ mask_;
    return true;
  }
  bool Byte(uint8_t* b) {
    if (!Peek(b)) return false;
    in_.remove_prefix(1);
    return true;
  }
  // Appends n unmasked bytes to *out.
  bool Bytes(size_t n, std::string* out) {
    if (in_.size() < n) return false;
    for (size_t i = 0; i < n; i++)
      out->push_back(static_cast<char>(in_[i] ^ mask_));
    in_.remove_prefix(n);
    return true;
  }
  bool BE(int width, uint64_t* v) {
    std::string b;
    if (!Bytes(width, &b)) return false;
    *v = LoadBE(b);
    return true;
  }
  bool OrderedUint(uint64_t* v) {
    uint8_t k;
    if (!Byte(&k) || k > 8 || !BE(k, v)) return false;
    return k == 0 || (*v >> (8 * (k - 1))) != 0;  // minimal form only
  }
  bool Escaped(std::string* out) {
    uint8_t b, next;
    while (Byte(&b)) {
      if (b != 0) {
        out->push_back(static_cast<char>(b));
        continue;
      }
      if (!Byte(&next)) return false;
      if (next == 0x01) return true;
      if (next != 0xff) return false;
      out->push_back('\0');
    }
    return false;
  }

 private:
  std::string_view in_;
  uint8_t mask_;
};

// ---- Big integers (two's complement, big-endian, as CQL varint). ----

// Number of redundant leading sign bytes (0x00 before a byte < 0x80, 0xff
// before a byte >= 0x80).
size_t RedundantSignBytes(std::string_view b) {
  size_t i = 0;
  while (i + 1 < b.size()) {
    uint8_t x = b[i], y = b[i + 1];
    if (!((x == 0x00 && y < 0x80) || (x == 0xff && y >= 0x80))) break;
    i++;
  }
  return i;
}

bool IsNegative(std::string_view b) {
  return (static_cast<uint8_t>(b[0]) & 0x80) != 0;
}

// Two's-complement negation over the same width.
std::string Negate(std::string_view b) {
  std::string r(b);
  for (char& c : r) c = ~c;
  for (size_t i = r.size(); i-- > 0;) {
    if (++r[i] != 0) break;
  }
  return r;
}

// Unsigned big-endian magnitude -> decimal digits, no leading zeros.
std::string ToDecimal(std::string_view mag) {
  std::vector<uint32_t> limbs;  // little-endian base 2^32
  for (size_t end = mag.size(); end > 0;) {
    size_t start = end >= 4 ? end - 4 : 0;
    limbs.push_back(
        static_cast<uint32_t>(LoadBE(mag.substr(start, end - start))));
    end = start;
  }
  while (!limbs.empty() && limbs.back() == 0) limbs.pop_back();
  std::vector<uint32_t> chunks;  // base 10^9, little-endian
  while (!limbs.empty()) {
    uint64_t rem = 0;
    for (size_t i = limbs.size(); i-- > 0;) {
      uint64_t cur = (rem << 32) | limbs[i];
      limbs[i] = static_cast<uint32_t>(cur / 1000000000);
      rem = cur % 1000000000;
    }
    chunks.push_back(static_cast<uint32_t>(rem));
    while (!limbs.empty() && limbs.back() == 0) limbs.pop_back();
  }
  std::string digits;
  for (size_t i = chunks.size(); i-- > 0;) {
    std::string s = std::to_string(chunks[i]);
    if (i + 1 != chunks.size()) digits.append(9 - s.size(), '0');
    digits += s;
  }
  return digits;
}

// Decimal digits -> minimal two's-complement bytes of +/- that value.
std::string FromDecimal(std::string_view digits, bool negative) {
  std::vector<uint32_t> limbs;  // little-endian base 2^32
  for (size_t i = 0; i < digits.size();) {
    size_t n = std::min<size_t>(9, digits.size() - i);
    uint64_t mul = 1, add = 0;
    for (size_t j = 0; j < n; j++, i++) {
      mul *= 10;
      add = add * 10 + (digits[i] - '0');
    }
    uint64_t carry = add;
    for (uint32_t& l : limbs) {
      uint64_t cur = uint64_t{l} * mul + carry;
      l = static_cast<uint32_t>(cur);
      carry = cur >> 32;
    }
    if (carry != 0) limbs.push_back(static_cast<uint32_t>(carry));
  }
  std::string b(1, '\0');  // leading zero: room for the sign bit
  for (size_t i = limbs.size(); i-- > 0;) PutBE(&b, limbs[i], 4);
  if (negative) b = Negate(b);
  return b.substr(RedundantSignBytes(b));
}

// ---- Encoders (ASC form; the caller inverts DESC components). ----

void Encode(const CqlType& type, std::string_view v, std::string* out);

void EncodeRaw(std::string_view v, std::string* out) {
  out->push_back(kRaw);
  AppendEscapedBytes(v, out);
}

// Fixed-width integers; signed ones get their sign bit flipped.
void EncodeFixed(std::string_view v, size_t width, bool is_signed,
                 std::string* out) {
  if (v.size() != width) return EncodeRaw(v, out);
  out->push_back(kValue);
  size_t at = out->size();
  out->append(v);
  if (is_signed) (*out)[at] ^= static_cast<char>(0x80);
}

// IEEE float/double in Java's Float.compare order: -inf < ... < -0.0 < 0.0
// < ... < +inf < NaN. Positive: set the sign bit; negative: invert all.
// NaNs (all equal in Java) sort last: 0x80|payload, then a byte with the
// original sign bit, to keep the exact bytes.
void EncodeFloating(std::string_view v, int width, std::string* out) {
  if (v.size() != static_cast<size_t>(width)) return EncodeRaw(v, out);
  const uint64_t all = width == 8 ? ~uint64_t{0} : 0xffffffffULL;
  const uint64_t sign = uint64_t{1} << (8 * width - 1);
  const uint64_t inf = width == 8 ? 0x7ff0000000000000ULL : 0x7f800000ULL;
  uint64_t u = LoadBE(v);
  out->push_back(kValue);
  if ((u & ~sign) > inf) {
    PutBE(out, u | sign, width);
    out->push_back((u & sign) ? 1 : 0);
  } else {
    PutBE(out, (u & sign) ? (~u & all) : (u | sign), width);
  }
}

uint64_t Reorder(uint64_t msb) {  // TimeUUIDType.reorderTimestampBytes
  return (msb << 48) | ((msb << 16) & 0xffff00000000ULL) | (msb >> 32);
}
uint64_t Unreorder(uint64_t r) {
  return (r << 32) | ((r >> 16) & 0xffff0000ULL) | (r >> 48);
}

void EncodeUuid(std::string_view v, bool timeuuid, std::string* out) {
  if (v.size() != 16) return EncodeRaw(v, out);
  uint64_t msb = LoadBE(v.substr(0, 8)), lsb = LoadBE(v.substr(8));
  out->push_back(kValue);
  if (timeuuid) {  // timestamp signed, then the low half as signed bytes
    PutBE(out, Reorder(msb) ^ kSign64, 8);
    PutBE(out, lsb ^ 0x8080808080808080ULL, 8);
    return;
  }
  uint8_t version = (msb >> 12) & 0xf;  // version first, v1 by timestamp
  out->push_back(static_cast<char>(version));
  PutBE(out, version == 1 ? Reorder(msb) : msb, 8);
  PutBE(out, lsb, 8);
}

// Varint: sign class header; positive: length then bytes; negative: the
// inverted length then bytes; then the count of redundant sign bytes.
void EncodeVarint(std::string_view v, std::string* out) {
  if (v.size() > kMaxNumberBytes) return EncodeRaw(v, out);
  size_t pad = RedundantSignBytes(v);
  std::string_view m = v.substr(pad);
  if (m.size() == 1 && m[0] == 0) {
    out->push_back(kValue);
  } else if (IsNegative(m)) {
    out->push_back(kNegative);
    size_t at = out->size();
    PutOrderedUint(out, m.size());
    Invert(out, at);
    out->append(m);
  } else {
    out->push_back(kPositive);
    PutOrderedUint(out, m.size());
    out->append(m);
  }
  PutOrderedUint(out, pad);
}

// Decimal: sign class header; then for non-zero values the adjusted
// exponent E (value = 0.d1d2... x 10^E) as 8 flipped-sign bytes and the
// significant digits packed two per byte (d1*10+d2+1), 0x00-terminated,
// all inverted when negative; then the scale and the redundant sign bytes
// of the unscaled varint, which only break ties between equal values.
void EncodeDecimal(std::string_view v, std::string* out) {
  if (v.size() < 5 || v.size() > kMaxNumberBytes) return EncodeRaw(v, out);
  uint32_t scale = DecodeFixed32BE(v.data());
  std::string_view u = v.substr(4);
  size_t pad = RedundantSignBytes(u);
  std::string_view m = u.substr(pad);
  if (m.size() == 1 && m[0] == 0) {
    out->push_back(kValue);
  } else {
    bool negative = IsNegative(m);
    out->push_back(negative ? kNegative : kPositive);
    std::string digits = ToDecimal(negative ? Negate(m) : std::string(m));
    int64_t exponent =
        static_cast<int64_t>(digits.size()) - static_cast<int32_t>(scale);
    while (digits.back() == '0') digits.pop_back();
    size_t at = out->size();
    PutFixed64BE(out, static_cast<uint64_t>(exponent) ^ kSign64);
    for (size_t i = 0; i < digits.size(); i += 2) {
      int d2 = i + 1 < digits.size() ? digits[i + 1] - '0' : 0;
      out->push_back(static_cast<char>((digits[i] - '0') * 10 + d2 + 1));
    }
    out->push_back('\0');
    if (negative) Invert(out, at);
  }
  PutFixed32BE(out, scale ^ 0x80000000u);
  PutOrderedUint(out, pad);
}

// Splits a collection/tuple body into int32-length-prefixed values. With
// `nulls`, length -1 is a null field (recorded there); otherwise, and for
// any other negative length, the body is malformed.
bool SplitValues(std::string_view in, std::vector<std::string_view>* vals,
                 std::vector<bool>* nulls) {
  while (!in.empty()) {
    uint32_t len;
    if (!GetFixed32BE(&in, &len)) return false;
    if (len == 0xffffffffu && nulls != nullptr) {
      vals->emplace_back();
      nulls->push_back(true);
      continue;
    }
    if (len > in.size()) return false;
    vals->push_back(in.substr(0, len));
    if (nulls != nullptr) nulls->push_back(false);
    in.remove_prefix(len);
  }
  return true;
}

// Frozen list/set/map: the element encodings in order, then 0x00 (every
// element encoding starts with a header >= 0x01, so shorter sorts first).
void EncodeCollection(const CqlType& type, std::string_view v,
                      std::string* out) {
  const size_t per_entry = type.kind() == TypeKind::kMap ? 2 : 1;
  std::vector<std::string_view> vals;
  uint32_t count;
  std::string_view in = v;
  if (type.params().size() < per_entry || !GetFixed32BE(&in, &count) ||
      count > 0x7fffffffu || !SplitValues(in, &vals, nullptr) ||
      vals.size() != uint64_t{count} * per_entry) {
    return EncodeRaw(v, out);
  }
  out->push_back(kValue);
  for (size_t i = 0; i < vals.size(); i++) {
    Encode(*type.params()[i % per_entry], vals[i], out);
  }
  out->push_back('\0');
}

// Tuple/UDT: per field 0x01 (null) or 0x02 + encoding, then 0x00; a value
// with fewer fields than the type sorts before the same value extended.
void EncodeTuple(const CqlType& type, std::string_view v, std::string* out) {
  std::vector<std::string_view> vals;
  std::vector<bool> nulls;
  if (!SplitValues(v, &vals, &nulls) || vals.size() > type.params().size()) {
    return EncodeRaw(v, out);
  }
  out->push_back(kValue);
  for (size_t i = 0; i < vals.size(); i++) {
    if (nulls[i]) {
      out->push_back(kFieldNull);
      continue;
    }
    out->push_back(kFieldPresent);
    Encode(*type.params()[i], vals[i], out);
  }
  out->push_back(kFieldEnd);
}

void Encode(const CqlType& type, std::string_view v, std::string* out) {
  if (v.empty()) {
    out->push_back(kEmpty);
    return;
  }
  switch (type.kind()) {
    case TypeKind::kTinyint:
      return EncodeFixed(v, 1, true, out);
    case TypeKind::kSmallint:
      return EncodeFixed(v, 2, true, out);
    case TypeKind::kInt:
      return EncodeFixed(v, 4, true, out);
    case TypeKind::kBigint:
    case TypeKind::kCounter:
    case TypeKind::kTimestamp:
      return EncodeFixed(v, 8, true, out);
    case TypeKind::kBoolean:
      return EncodeFixed(v, 1, false, out);
    case TypeKind::kDate:
      return EncodeFixed(v, 4, false, out);
    case TypeKind::kTime:
      return EncodeFixed(v, 8, false, out);
    case TypeKind::kFloat:
      return EncodeFloating(v, 4, out);
    case TypeKind::kDouble:
      return EncodeFloating(v, 8, out);
    case TypeKind::kUuid:
      return EncodeUuid(v, false, out);
    case TypeKind::kTimeuuid:
      return EncodeUuid(v, true, out);
    case TypeKind::kVarint:
      return EncodeVarint(v, out);
    case TypeKind::kDecimal:
      return EncodeDecimal(v, out);
    case TypeKind::kList:
    case TypeKind::kSet:
    case TypeKind::kMap:
      return EncodeCollection(type, v, out);
    case TypeKind::kTuple:
    case TypeKind::kUdt:
      return EncodeTuple(type, v, out);
    default:  // text, ascii, blob, inet, duration, custom: unsigned bytes
      out->push_back(kValue);
      return AppendEscapedBytes(v, out);
  }
}

// ---- Decoders: each mirrors its encoder and rejects what it never emits.

bool Decode(const CqlType& type, Reader* r, std::string* v);

bool DecodeFixed(Reader* r, size_t width, bool is_signed, std::string* v) {
  if (!r->Bytes(width, v)) return false;
  if (is_signed) (*v)[0] ^= static_cast<char>(0x80);
  return true;
}

bool DecodeFloating(Reader* r, int width, std::string* v) {
  const uint64_t all = width == 8 ? ~uint64_t{0} : 0xffffffffULL;
  const uint64_t sign = uint64_t{1} << (8 * width - 1);
  const uint64_t inf = width == 8 ? 0x7ff0000000000000ULL : 0x7f800000ULL;
  uint64_t e, u;
  if (!r->BE(width, &e)) return false;
  if ((e & sign) && (e & ~sign) > inf) {  // NaN
    uint8_t s;
    if (!r->Byte(&s) || s > 1) return false;
    u = (e & ~sign) | (s ? sign : 0);
  } else if (e & sign) {
    u = e & ~sign;
  } else {
    u = ~e & all;
    if ((u & ~sign) > inf) return false;
  }
  PutBE(v, u, width);
  return true;
}

bool DecodeUuid(Reader* r, bool timeuuid, std::string* v) {
  uint64_t msb, lsb;
  if (timeuuid) {
    if (!r->BE(8, &msb) || !r->BE(8, &lsb)) return false;
    PutBE(v, Unreorder(msb ^ kSign64), 8);
    PutBE(v, lsb ^ 0x8080808080808080ULL, 8);
    return true;
  }
  uint8_t version;
  if (!r->Byte(&version) || !r->BE(8, &msb) || !r->BE(8, &lsb)) return false;
  if (version == 1) msb = Unreorder(msb);
  if (((msb >> 12) & 0xf) != version) return false;
  PutBE(v, msb, 8);
  PutBE(v, lsb, 8);
  return true;
}

bool DecodePad(Reader* r, bool negative, std::string* v) {
  uint64_t pad;
  if (!r->OrderedUint(&pad) || pad > kMaxNumberBytes) return false;
  v->append(pad, negative ? '\xff' : '\0');
  return true;
}

bool DecodeVarint(Reader* r, char header, std::string* v) {
  if (header == kValue) {
    if (!DecodePad(r, false, v)) return false;
    v->push_back('\0');
    return true;
  }
  bool negative = header == kNegative;
  uint64_t len;
  if (negative) r->FlipMask();
  bool ok = r->OrderedUint(&len);
  if (negative) r->FlipMask();
  std::string m;
  if (!ok || len == 0 || len > kMaxNumberBytes || !r->Bytes(len, &m))
    return false;
  if (RedundantSignBytes(m) != 0 || IsNegative(m) != negative ||
      (m.size() == 1 && m[0] == 0)) {
    return false;
  }
  if (!DecodePad(r, negative, v)) return false;
  *v += m;
  return true;
}

bool DecodeDecimal(Reader* r, char header, std::string* v) {
  bool negative = header == kNegative;
  uint64_t exponent = 0;
  std::string digits;
  if (header != kValue) {
    if (negative) r->FlipMask();
    uint8_t b = 0;
    bool ok = r->BE(8, &exponent);
    while (ok && (ok = r->Byte(&b)) && b != 0) {
      ok = b <= 100 && digits.size() < static_cast<size_t>(kMaxDecimalDigits);
      digits.push_back(static_cast<char>('0' + (b - 1) / 10));
      digits.push_back(static_cast<char>('0' + (b - 1) % 10));
    }
    if (negative) r->FlipMask();
    if (!ok || digits.empty()) return false;
    if (digits.back() == '0') digits.pop_back();
    if (digits[0] == '0' || digits.back() == '0') return false;
  }
  uint64_t scale;
  if (!r->BE(4, &scale)) return false;
  scale ^= 0x80000000u;
  PutFixed32BE(v, static_cast<uint32_t>(scale));
  if (!DecodePad(r, negative, v)) return false;
  if (header == kValue) {
    v->push_back('\0');
    return true;
  }
  // Number of digits of the unscaled value; bounded before adding so that a
  // corrupt exponent cannot overflow.
  int64_t e = static_cast<int64_t>(exponent ^ kSign64);
  if (e < -(int64_t{1} << 40) || e > (int64_t{1} << 40)) return false;
  int64_t n = e + static_cast<int32_t>(static_cast<uint32_t>(scale));
  if (n < static_cast<int64_t>(digits.size()) || n > kMaxDecimalDigits)
    return false;
  digits.append(static_cast<size_t>(n) - digits.size(), '0');
  *v += FromDecimal(digits, negative);
  return true;
}

bool DecodeCollection(const CqlType& type, Reader* r, std::string* v) {
  const size_t per_entry = type.kind() == TypeKind::kMap ? 2 : 1;
  if (type.params().size() < per_entry) return false;
  std::string body, elem;
  uint64_t values = 0;
  uint8_t next;
  while (r->Peek(&next) && next != 0) {
    elem.clear();
    if (!Decode(*type.params()[values % per_entry], r, &elem)) return false;
    PutFixed32BE(&body, static_cast<uint32_t>(elem.size()));
    body += elem;
    values++;
  }
  if (!r->Byte(&next) || values % per_entry != 0 ||
      values / per_entry > 0x7fffffffu) {
    return false;
  }
  PutFixed32BE(v, static_cast<uint32_t>(values / per_entry));
  *v += body;
  return true;
}

bool DecodeTuple(const CqlType& type, Reader* r, std::string* v) {
  std::string field;
  for (size_t i = 0;; i++) {
    uint8_t marker;
    if (!r->Byte(&marker)) return false;
    if (marker == kFieldEnd) return true;
    if (i >= type.params().size()) return false;
    if (marker == kFieldNull) {
      PutFixed32BE(v, 0xffffffffu);
      continue;
    }
    field.clear();
    if (marker != kFieldPresent || !Decode(*type.params()[i], r, &field))
      return false;
    PutFixed32BE(v, static_cast<uint32_t>(field.size()));
    *v += field;
  }
}

bool Decode(const CqlType& type, Reader* r, std::string* v) {
  uint8_t header;
  if (!r->Byte(&header)) return false;
  if (header == kEmpty) return true;
  if (header == kRaw) return r->Escaped(v);
  switch (type.kind()) {
    case TypeKind::kVarint:
      return header >= kNegative && header <= kPositive &&
             DecodeVarint(r, header, v);
    case TypeKind::kDecimal:
      return header >= kNegative && header <= kPositive &&
             DecodeDecimal(r, header, v);
    default:
      break;
  }
  if (header != kValue) return false;
  switch (type.kind()) {
    case TypeKind::kTinyint:
      return DecodeFixed(r, 1, true, v);
    case TypeKind::kSmallint:
      return DecodeFixed(r, 2, true, v);
    case TypeKind::kInt:
      return DecodeFixed(r, 4, true, v);
    case TypeKind::kBigint:
    case TypeKind::kCounter:
    case TypeKind::kTimestamp:
      return DecodeFixed(r, 8, true, v);
    case TypeKind::kBoolean:
      return DecodeFixed(r, 1, false, v);
    case TypeKind::kDate:
      return DecodeFixed(r, 4, false, v);
    case TypeKind::kTime:
      return DecodeFixed(r, 8, false, v);
    case TypeKind::kFloat:
      return DecodeFloating(r, 4, v);
    case TypeKind::kDouble:
      return DecodeFloating(r, 8, v);
    case TypeKind::kUuid:
      return DecodeUuid(r, false, v);
    case TypeKind::kTimeuuid:
      return DecodeUuid(r, true, v);
    case TypeKind::kList:
    case TypeKind::kSet:
    case TypeKind::kMap:
      return DecodeCollection(type, r, v);
    case TypeKind::kTuple:
    case TypeKind::kUdt:
      return DecodeTuple(type, r, v);
    default:
      return r->Escaped(v) && !v->empty();
  }
}

}  // namespace

void AppendEscapedBytes(std::string_view bytes, std::string* out) {
  while (!bytes.empty()) {
    const void* z = std::memchr(bytes.data(), 0, bytes.size());
    size_t n = z ? static_cast<const char*>(z) - bytes.data() : bytes.size();
    out->append(bytes.data(), n);
    if (n == bytes.size()) break;
    out->append("\x00\xff", 2);
    bytes.remove_prefix(n + 1);
  }
  out->append("\x00\x01", 2);
}

bool ReadEscapedBytes(std::string_view* in, std::string* bytes) {
  Reader r(*in, 0);
  bytes->clear();
  if (!r.Escaped(bytes)) return false;
  *in = r.rest();
  return true;
}

void AppendOrdered(const CqlType& type, std::string_view value_bytes,
                   SortOrder order, std::string* out) {
  size_t at = out->size();
  Encode(type, value_bytes, out);
  if (order == SortOrder::kDesc) Invert(out, at);
}

bool ReadOrdered(const CqlType& type, SortOrder order, std::string_view* in,
                 std::string* value_bytes) {
  Reader r(*in, order == SortOrder::kDesc ? 0xff : 0x00);
  value_bytes->clear();
  if (!Decode(type, &r, value_bytes)) return false;
  *in = r.rest();
  return true;
}

}  // namespace keywise
