#include "storage/ordered_codec.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace keywise {
namespace {

// Reference comparators below are written from Cassandra 4's comparator
// semantics (db/marshal/*Type.compareCustom), independently of the codec:
// they decode values to integers / floating point / fields and compare those.
using Rng = std::mt19937_64;
using Gen = std::function<std::string(Rng&)>;
using Cmp = std::function<int(std::string_view, std::string_view)>;
struct Model {
  const char* name;
  CqlTypePtr type;
  Gen gen;
  Cmp cmp;  // assumes non-empty values; CheckModel puts empty values first
};

template <typename T>
int Sign(T x) {
  return (x > 0) - (x < 0);
}

int ByteCmp(std::string_view a, std::string_view b) {  // unsigned, prefix first
  size_t n = std::min(a.size(), b.size());
  int c = n ? std::memcmp(a.data(), b.data(), n) : 0;
  return c ? Sign(c) : Sign<long>(long(a.size()) - long(b.size()));
}

std::string BE(uint64_t v, int width) {
  std::string s;
  for (int i = width - 1; i >= 0; i--)
    s.push_back(static_cast<char>(v >> (8 * i)));
  return s;
}
uint64_t Load(std::string_view s) {
  uint64_t v = 0;
  for (unsigned char c : s) v = (v << 8) | c;
  return v;
}
int64_t LoadSigned(std::string_view s) {  // sign-extends s.size() bytes
  int shift = 64 - 8 * static_cast<int>(s.size());
  return static_cast<int64_t>(Load(s) << shift) >> shift;
}
std::string RandomBytes(Rng& rng, size_t n, std::string_view alphabet = "") {
  std::string s(n, '\0');
  for (char& c : s) {
    c = alphabet.empty() ? static_cast<char>(rng())
                         : alphabet[rng() % alphabet.size()];
  }
  return s;
}
std::string Serialize(const std::vector<std::optional<std::string>>& vals) {
  std::string s;
  for (const auto& v : vals) {
    s += v ? BE(v->size(), 4) + *v : BE(0xffffffff, 4);
  }
  return s;
}
std::vector<std::optional<std::string>> Fields(std::string_view s) {
  std::vector<std::optional<std::string>> out;
  while (s.size() >= 4) {
    int32_t n = static_cast<int32_t>(Load(s.substr(0, 4)));
    s.remove_prefix(4);
    if (n < 0) {
      out.push_back(std::nullopt);
    } else {
      out.push_back(std::string(s.substr(0, n)));
      s.remove_prefix(n);
    }
  }
  return out;
}

// Returned by collection/tuple references when an element compares equal
// (Cassandra would go on to the next element) but its bytes differ: the
// codec then orders by the element's tie-break, so only distinctness of the
// encodings is checked (see "Equal values" in docs/key_format.md).
constexpr int kTie = 2;

int WithEmpty(const Cmp& cmp, std::string_view a, std::string_view b) {
  if (a.empty() || b.empty()) return int(!a.empty()) - int(!b.empty());
  return cmp(a, b);
}

// ---- Scalar models ----

Model SignedFixed(const char* name, TypeKind kind, int width) {
  return {name, CqlType::Of(kind),
          [width](Rng& rng) {
            switch (rng() % 6) {
              case 0:
                return BE(uint64_t{1} << (8 * width - 1), width);  // min
              case 1:
                return BE((uint64_t{1} << (8 * width - 1)) - 1, width);
              case 2:
                return BE(static_cast<uint64_t>(int64_t(rng() % 7) - 3), width);
              default:
                return RandomBytes(rng, width);
            }
          },
          [](std::string_view a, std::string_view b) {
            return Sign(LoadSigned(a) < LoadSigned(b)
                            ? -1
                            : LoadSigned(a) > LoadSigned(b));
          }};
}

Model Unsigned(const char* name, TypeKind kind, int width) {  // BYTE_ORDER
  return {name, CqlType::Of(kind),
          [width](Rng& rng) {
            return RandomBytes(rng, width, rng() % 2 ? "\x00\x01\x80\xff" : "");
          },
          [](std::string_view a, std::string_view b) {
            return Sign<int64_t>(Load(a) < Load(b) ? -1 : Load(a) > Load(b));
          }};
}

template <typename F, typename U>
Model Floating(const char* name, TypeKind kind) {
  return {
      name, CqlType::Of(kind),
      [](Rng& rng) {
        const F specials[] = {0.0,
                              -0.0,
                              1.0,
                              -1.0,
                              INFINITY,
                              -INFINITY,
                              NAN,
                              -NAN,
                              std::numeric_limits<F>::denorm_min(),
                              -std::numeric_limits<F>::denorm_min(),
                              std::numeric_limits<F>::max(),
                              std::numeric_limits<F>::lowest()};
        U bits;
        if (rng() % 3 == 0) {
          F f = specials[rng() % std::size(specials)];
          std::memcpy(&bits, &f, sizeof f);
        } else if (rng() % 2 == 0) {
          F f = static_cast<F>((static_cast<int>(rng() % 2001) - 1000) / 8.0);
          std::memcpy(&bits, &f, sizeof f);
        } else {
          bits = static_cast<U>(rng());  // includes NaN payloads of both signs
        }
        return BE(bits, sizeof(U));
      },
      [](std::string_view a, std::string_view b) {  // Java Float/Double.compare
        U ua = static_cast<U>(Load(a)), ub = static_cast<U>(Load(b));
        F fa, fb;
        std::memcpy(&fa, &ua, sizeof fa);
        std::memcpy(&fb, &ub, sizeof fb);
        if (std::isnan(fa) || std::isnan(fb))
          return int(std::isnan(fa)) - int(std::isnan(fb));
        if (fa != fb) return fa < fb ? -1 : 1;
        return int(std::signbit(fb)) - int(std::signbit(fa));  // -0.0 < 0.0
      }};
}

Model BytesLike(const char* name, TypeKind kind, std::vector<size_t> sizes) {
  return {name, CqlType::Of(kind),
          [sizes](Rng& rng) {
            size_t n = sizes.empty() ? rng() % 6 : sizes[rng() % sizes.size()];
            return RandomBytes(rng, n,
                               std::string_view("\x00\x01"
                                                "a\x7f\x80\xff",
                                                6));
          },
          ByteCmp};
}

Model Boolean() {
  return {
      "boolean", CqlType::Of(TypeKind::kBoolean),
      [](Rng& rng) { return std::string(1, "\x00\x01\x02\xff"[rng() % 4]); },
      [](std::string_view a, std::string_view b) {
        return int(a[0] != 0) - int(b[0] != 0);
      }};
}

// Two's-complement big-endian integers of any length (IntegerType).
int VarintCmp(std::string_view a, std::string_view b) {
  size_t n = std::max(a.size(), b.size());
  auto extend = [n](std::string_view s) {
    std::string r(n - s.size(),
                  (static_cast<unsigned char>(s[0]) & 0x80) ? '\xff' : '\0');
    r += s;
    r[0] ^= static_cast<char>(0x80);  // signed first byte -> unsigned order
    return r;
  };
  return ByteCmp(extend(a), extend(b));
}
std::string MinimalVarint(int64_t v) {
  std::string s = BE(static_cast<uint64_t>(v), 8);
  while (s.size() > 1 &&
         ((s[0] == 0 && !(s[1] & 0x80)) || (s[0] == '\xff' && (s[1] & 0x80))))
    s.erase(0, 1);
  return s;
}
std::string PadVarint(Rng& rng, std::string s) {  // sometimes non-minimal
  if (rng() % 5 == 0) s.insert(0, 1 + rng() % 2, (s[0] & 0x80) ? '\xff' : '\0');
  return s;
}

Model Varint() {
  return {"varint", CqlType::Of(TypeKind::kVarint),
          [](Rng& rng) {
            std::string s = rng() % 2
                                ? MinimalVarint(int64_t(rng() % 601) - 300)
                                : RandomBytes(rng, 1 + rng() % 20);
            return PadVarint(rng, s);
          },
          VarintCmp};
}

// Decimal with |unscaled| < 2^40 and |scale| <= 8: compared exactly by
// scaling both to the larger scale in 128-bit arithmetic.
Model Decimal() {
  return {"decimal", CqlType::Of(TypeKind::kDecimal),
          [](Rng& rng) {
            int32_t scale = int32_t(rng() % 17) - 8;
            int64_t unscaled =
                rng() % 3 == 0
                    ? int64_t(rng() % 41) - 20
                    : int64_t(rng() % (uint64_t{1} << 41)) - (int64_t{1} << 40);
            if (rng() % 4 == 0)
              unscaled = (int64_t(rng() % 7) - 3) * 1000;  // ties
            return BE(static_cast<uint32_t>(scale), 4) +
                   PadVarint(rng, MinimalVarint(unscaled));
          },
          [](std::string_view a, std::string_view b) {
            int32_t sa = int32_t(Load(a.substr(0, 4))),
                    sb = int32_t(Load(b.substr(0, 4)));
            __int128 ua = LoadSigned(a.substr(4)), ub = LoadSigned(b.substr(4));
            for (int32_t s = sa; s < sb; s++) ua *= 10;
            for (int32_t s = sb; s < sa; s++) ub *= 10;
            return ua < ub ? -1 : ua > ub;
          }};
}

// UUIDType: version first; v1 by 60-bit timestamp; then msb, lsb unsigned.
uint64_t Timestamp(uint64_t msb) {
  return ((msb & 0x0fff) << 48) | (((msb >> 16) & 0xffff) << 32) | (msb >> 32);
}
std::string RandomUuid(Rng& rng, int version) {
  uint64_t msb = rng() % 3 ? rng() : (rng() % 4) * 0x0101010101010101ULL;
  msb = (msb & ~uint64_t{0xf000}) | (uint64_t(version) << 12);
  uint64_t lsb = rng() % 3 ? rng() : 0x8000000000000000ULL * (rng() % 2);
  return BE(msb, 8) + BE(lsb, 8);
}
Model UuidModel() {
  return {"uuid", CqlType::Of(TypeKind::kUuid),
          [](Rng& rng) {
            return RandomUuid(rng, "\x01\x01\x04\x00\x02\x0f"[rng() % 6]);
          },
          [](std::string_view a, std::string_view b) {
            uint64_t ma = Load(a.substr(0, 8)), mb = Load(b.substr(0, 8));
            int va = (ma >> 12) & 0xf, vb = (mb >> 12) & 0xf;
            if (va != vb) return Sign(va - vb);
            if (va == 1 && Timestamp(ma) != Timestamp(mb))
              return Timestamp(ma) < Timestamp(mb) ? -1 : 1;
            return ByteCmp(a, b);
          }};
}
Model TimeUuid() {  // timestamp, then the low 8 bytes as signed bytes
  return {"timeuuid", CqlType::Of(TypeKind::kTimeuuid),
          [](Rng& rng) { return RandomUuid(rng, 1); },
          [](std::string_view a, std::string_view b) {
            uint64_t ta = Timestamp(Load(a.substr(0, 8))),
                     tb = Timestamp(Load(b.substr(0, 8)));
            if (ta != tb) return ta < tb ? -1 : 1;
            for (int i = 8; i < 16; i++) {
              if (a[i] != b[i])
                return static_cast<signed char>(a[i]) <
                               static_cast<signed char>(b[i])
                           ? -1
                           : 1;
            }
            return 0;
          }};
}

// ---- Composite models ----

std::string GenOrEmpty(const Model& m, Rng& rng) {
  return rng() % 10 == 0 ? "" : m.gen(rng);
}

Model ListOf(const char* name, const Model& elem, TypeKind kind) {
  CqlTypePtr t = kind == TypeKind::kList ? CqlType::List(elem.type, true)
                                         : CqlType::Set(elem.type, true);
  return {name, t,
          [elem](Rng& rng) {
            std::vector<std::optional<std::string>> v(rng() % 4);
            for (auto& e : v) e = GenOrEmpty(elem, rng);
            return BE(v.size(), 4) + Serialize(v);
          },
          [elem](std::string_view a, std::string_view b) {
            auto fa = Fields(a.substr(4)), fb = Fields(b.substr(4));
            for (size_t i = 0; i < std::min(fa.size(), fb.size()); i++) {
              if (int c = WithEmpty(elem.cmp, *fa[i], *fb[i])) return c;
              if (*fa[i] != *fb[i]) return kTie;
            }
            return Sign<long>(long(fa.size()) - long(fb.size()));
          }};
}

Model MapOf(const Model& k, const Model& v) {
  return {"map", CqlType::Map(k.type, v.type, true),
          [k, v](Rng& rng) {
            std::vector<std::optional<std::string>> f;
            size_t n = rng() % 3;
            for (size_t i = 0; i < n; i++) {
              f.push_back(GenOrEmpty(k, rng));
              f.push_back(GenOrEmpty(v, rng));
            }
            return BE(n, 4) + Serialize(f);
          },
          [k, v](std::string_view a, std::string_view b) {
            auto fa = Fields(a.substr(4)), fb = Fields(b.substr(4));
            for (size_t i = 0; i < std::min(fa.size(), fb.size()); i++) {
              if (int c = WithEmpty(i % 2 ? v.cmp : k.cmp, *fa[i], *fb[i]))
                return c;
              if (*fa[i] != *fb[i]) return kTie;
            }
            return Sign<long>(long(fa.size()) - long(fb.size()));
          }};
}

Model TupleOf(const char* name, std::vector<Model> fields, bool udt) {
  std::vector<CqlTypePtr> types;
  std::vector<std::pair<std::string, CqlTypePtr>> named;
  for (const Model& f : fields) {
    types.push_back(f.type);
    named.emplace_back(std::string("f") + std::to_string(named.size()), f.type);
  }
  CqlTypePtr t =
      udt ? CqlType::Udt("ks", "u", named, true) : CqlType::Tuple(types);
  return {name, t,
          [fields](Rng& rng) {
            std::vector<std::optional<std::string>> v(
                rng() % 5 == 0 ? rng() % fields.size() : fields.size());
            for (size_t i = 0; i < v.size(); i++) {
              if (rng() % 6) v[i] = GenOrEmpty(fields[i], rng);
            }
            return Serialize(v);
          },
          [fields](std::string_view a,
                   std::string_view b) {  // TupleType.compareCustom
            auto fa = Fields(a), fb = Fields(b);
            size_t n = std::min(fa.size(), fb.size());
            for (size_t i = 0; i < n; i++) {
              if (!fa[i] || !fb[i]) {
                if (int c = int(bool(fa[i])) - int(bool(fb[i]))) return c;
                continue;
              }
              if (int c = WithEmpty(fields[i].cmp, *fa[i], *fb[i])) return c;
              if (*fa[i] != *fb[i]) return kTie;
            }
            auto all_null = [n](const auto& f) {
              for (size_t i = n; i < f.size(); i++)
                if (f[i]) return false;
              return true;
            };
            if (all_null(fa) && all_null(fb)) return 0;
            return fa.size() < fb.size() ? -1 : 1;
          }};
}

std::vector<Model> AllModels() {
  Model i32 = SignedFixed("int", TypeKind::kInt, 4);
  Model text = BytesLike("text", TypeKind::kVarchar, {});
  Model dbl = Floating<double, uint64_t>("double", TypeKind::kDouble);
  Model tup = TupleOf("tuple<varint,text>", {Varint(), text}, false);
  return {SignedFixed("tinyint", TypeKind::kTinyint, 1),
          SignedFixed("smallint", TypeKind::kSmallint, 2),
          i32,
          SignedFixed("bigint", TypeKind::kBigint, 8),
          SignedFixed("timestamp", TypeKind::kTimestamp, 8),
          SignedFixed("counter", TypeKind::kCounter, 8),
          Unsigned("date", TypeKind::kDate, 4),
          Unsigned("time", TypeKind::kTime, 8),
          Boolean(),
          Floating<float, uint32_t>("float", TypeKind::kFloat),
          dbl,
          text,
          BytesLike("ascii", TypeKind::kAscii, {}),
          BytesLike("blob", TypeKind::kBlob, {}),
          BytesLike("inet", TypeKind::kInet, {4, 16}),
          BytesLike("duration", TypeKind::kDuration, {3, 4, 5}),
          Varint(),
          Decimal(),
          UuidModel(),
          TimeUuid(),
          ListOf("list<int>", i32, TypeKind::kList),
          ListOf("set<text>", text, TypeKind::kSet),
          MapOf(i32, text),
          TupleOf("tuple<int,text,double>", {i32, text, dbl}, false),
          TupleOf("udt", {text, Decimal()}, true),
          ListOf("list<tuple<varint,text>>", tup, TypeKind::kList)};
}

std::string Enc(const CqlType& t, std::string_view v, SortOrder o) {
  std::string s;
  AppendOrdered(t, v, o, &s);
  return s;
}

// Round trip, prefix-freeness and order against the reference comparator.
void CheckModel(const Model& m, Rng& rng, int n) {
  std::vector<std::string> vals = {""};
  while (vals.size() < static_cast<size_t>(n)) vals.push_back(m.gen(rng));
  for (SortOrder order : {SortOrder::kAsc, SortOrder::kDesc}) {
    std::vector<std::string> enc;
    for (const std::string& v : vals) {
      enc.push_back(Enc(*m.type, v, order));
      std::string buf = enc.back() + "\x01tail";
      std::string_view in = buf;
      std::string back;
      ASSERT_TRUE(ReadOrdered(*m.type, order, &in, &back)) << m.name;
      ASSERT_EQ(back, v) << m.name;
      ASSERT_EQ(in, "\x01tail") << m.name;
      for (size_t len = 0; len < enc.back().size(); len++) {
        std::string_view cut = std::string_view(enc.back()).substr(0, len);
        ASSERT_FALSE(ReadOrdered(*m.type, order, &cut, &back))
            << m.name << " len " << len;
      }
    }
    for (size_t i = 0; i < vals.size(); i++) {
      for (size_t j = i + 1; j < vals.size(); j++) {
        int want = WithEmpty(m.cmp, vals[i], vals[j]);
        if (order == SortOrder::kDesc) want = -want;
        int got = ByteCmp(enc[i], enc[j]);
        if (want == kTie || want == -kTie) {
          ASSERT_NE(got, 0) << m.name << " #" << i << " vs #" << j;
        } else if (want != 0) {
          ASSERT_EQ(got, want) << m.name << " #" << i << " vs #" << j;
        } else {
          ASSERT_EQ(got == 0, vals[i] == vals[j])
              << m.name << " #" << i << " vs #" << j;
        }
      }
    }
  }
}

TEST(OrderedCodec, EveryTypeRoundTripsAndSortsLikeCassandra) {
  Rng rng(20240229);
  for (const Model& m : AllModels()) {
    SCOPED_TRACE(m.name);
    CheckModel(m, rng, 250);
  }
}

TEST(OrderedCodec, CompositePrefixesAreContiguousByteRanges) {
  Rng rng(11);
  std::vector<Model> all = AllModels();
  std::vector<Model> cols = {all[2], all[11], all[16]};  // int, text, varint
  std::vector<SortOrder> orders = {SortOrder::kAsc, SortOrder::kDesc,
                                   SortOrder::kAsc};
  std::vector<std::vector<std::string>> keys(400);
  for (auto& k : keys) {
    for (const Model& c : cols)
      k.push_back(rng() % 4 ? c.gen(rng) : std::string());
  }
  auto encode = [&](const std::vector<std::string>& k, size_t n) {
    std::string s;
    for (size_t i = 0; i < n; i++)
      AppendOrdered(*cols[i].type, k[i], orders[i], &s);
    return s;
  };
  for (size_t a = 0; a < keys.size(); a++) {
    std::string ea = encode(keys[a], 3);
    std::string_view in = ea;
    std::string v;
    for (size_t c = 0; c < 3; c++) {
      ASSERT_TRUE(ReadOrdered(*cols[c].type, orders[c], &in, &v));
      EXPECT_EQ(v, keys[a][c]);
    }
    EXPECT_TRUE(in.empty());
    for (size_t b = 0; b < keys.size(); b++) {
      int want = 0;
      for (size_t c = 0; c < 3 && want == 0; c++) {
        want = WithEmpty(cols[c].cmp, keys[a][c], keys[b][c]);
        if (orders[c] == SortOrder::kDesc) want = -want;
      }
      std::string eb = encode(keys[b], 3);
      if (want != 0) {
        ASSERT_EQ(ByteCmp(ea, eb), want);
      }
      for (size_t k = 1; k <= 3; k++) {  // prefix k of a: byte prefix iff equal
        std::string pa = encode(keys[a], k);
        bool same =
            std::equal(keys[a].begin(), keys[a].begin() + k, keys[b].begin());
        EXPECT_EQ(eb.compare(0, pa.size(), pa) == 0, same);
      }
    }
  }
}

std::string H(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2)
    out.push_back(static_cast<char>(
        std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  return out;
}

TEST(OrderedCodec, WorkedExamplesFromKeyFormatDoc) {
  auto T = [](TypeKind k) { return CqlType::Of(k); };
  EXPECT_EQ(Enc(*T(TypeKind::kInt), H("00000001"), SortOrder::kAsc),
            H("0380000001"));
  EXPECT_EQ(Enc(*T(TypeKind::kInt), H("00000001"), SortOrder::kDesc),
            H("fc7ffffffe"));
  EXPECT_EQ(Enc(*T(TypeKind::kVarchar), "", SortOrder::kAsc), H("01"));
  EXPECT_EQ(Enc(*T(TypeKind::kVarchar), "", SortOrder::kDesc), H("fe"));
  EXPECT_EQ(
      Enc(*T(TypeKind::kVarchar), std::string("a\0b", 3), SortOrder::kAsc),
      H("036100ff620001"));
  EXPECT_EQ(Enc(*T(TypeKind::kVarint), H("0080"), SortOrder::kAsc),
            H("0401020080"
              "00"));
  EXPECT_EQ(Enc(*T(TypeKind::kVarint), H("ff"), SortOrder::kAsc), H("02fefeff"
                                                                    "00"));
  EXPECT_EQ(Enc(*T(TypeKind::kVarint), H("00ff"), SortOrder::kAsc),
            H("04010200ff"
              "00"));
  EXPECT_EQ(Enc(*T(TypeKind::kVarint), H("0001"), SortOrder::kAsc), H("04010101"
                                                                      "0101"));
  // decimal 1.0 and 1.00: equal value, ordered by scale.
  EXPECT_EQ(Enc(*T(TypeKind::kDecimal), H("000000010a"), SortOrder::kAsc),
            H("04"
              "8000000000000001"
              "0b00"
              "80000001"
              "00"));
  EXPECT_EQ(Enc(*T(TypeKind::kDecimal), H("0000000264"), SortOrder::kAsc),
            H("04"
              "8000000000000001"
              "0b00"
              "80000002"
              "00"));
  // decimal -12.5 = unscaled -125 (0x83), scale 1: digits 1,2,5 -> 0d 33 00.
  EXPECT_EQ(Enc(*T(TypeKind::kDecimal), H("0000000183"), SortOrder::kAsc),
            H("02"
              "7ffffffffffffffd"
              "f2ccff"
              "80000001"
              "00"));
  EXPECT_EQ(Enc(*T(TypeKind::kDouble), H("8000000000000000"), SortOrder::kAsc),
            H("037fffffffffffffff"));
  EXPECT_EQ(Enc(*T(TypeKind::kDouble), H("0000000000000000"), SortOrder::kAsc),
            H("038000000000000000"));
  EXPECT_EQ(Enc(*T(TypeKind::kFloat), H("7fc00000"), SortOrder::kAsc),
            H("03ffc0000000"));
  EXPECT_EQ(Enc(*T(TypeKind::kTimeuuid), H("d2177dd0eaa211dea572001b779c76e3"),
                SortOrder::kAsc),
            H("03"
              "91deeaa2d2177dd0"
              "25f2809bf71cf663"));
  auto list = CqlType::List(T(TypeKind::kInt), true);
  EXPECT_EQ(Enc(*list,
                H("00000002"
                  "0000000400000001"
                  "0000000400000002"),
                SortOrder::kAsc),
            H("03"
              "0380000001"
              "0380000002"
              "00"));
  auto tup = CqlType::Tuple({T(TypeKind::kInt), T(TypeKind::kVarchar)});
  EXPECT_EQ(Enc(*tup,
                H("0000000400000001"
                  "ffffffff"),
                SortOrder::kAsc),
            H("03"
              "020380000001"
              "01"
              "00"));
}

TEST(OrderedCodec, InvalidValuesTakeTheRawFormAndRoundTrip) {
  struct Case {
    CqlTypePtr type;
    std::string value;
  };
  auto T = [](TypeKind k) { return CqlType::Of(k); };
  std::vector<Case> cases = {
      {T(TypeKind::kInt), H("000001")},
      {T(TypeKind::kBoolean), H("0001")},
      {T(TypeKind::kUuid), H("0102")},
      {T(TypeKind::kDouble), H("00")},
      {T(TypeKind::kDecimal), H("00000001")},
      {T(TypeKind::kDecimal), H("00")},
      {CqlType::List(T(TypeKind::kInt), true), H("00000001")},
      {CqlType::List(T(TypeKind::kInt), true), H("00000000ff")},
      {CqlType::List(T(TypeKind::kInt), true), H("00000001ffffffff")},
      {CqlType::Tuple({T(TypeKind::kInt)}), H("0000000400000001"
                                              "00000000")},
      {CqlType::Tuple({T(TypeKind::kInt)}), H("fffffffe")}};
  for (const Case& c : cases) {
    for (SortOrder o : {SortOrder::kAsc, SortOrder::kDesc}) {
      std::string e = Enc(*c.type, c.value, o);
      EXPECT_EQ(static_cast<uint8_t>(e[0]) ^ (o == SortOrder::kDesc ? 0xff : 0),
                0x05);
      std::string_view in = e;
      std::string back;
      ASSERT_TRUE(ReadOrdered(*c.type, o, &in, &back));
      EXPECT_EQ(back, c.value);
      EXPECT_TRUE(in.empty());
    }
  }
}

TEST(OrderedCodec, LargeNumbersRoundTrip) {
  Rng rng(99);
  auto dec = CqlType::Of(TypeKind::kDecimal),
       vi = CqlType::Of(TypeKind::kVarint);
  for (int n = 0; n < 300; n++) {
    std::string unscaled = RandomBytes(rng, 1 + rng() % 120);
    std::string v =
        BE(static_cast<uint32_t>(int32_t(rng() % 4001) - 2000), 4) + unscaled;
    if (n < 4)
      v = BE(n % 2 ? 0x80000000u : 0x7fffffffu, 4) +
          unscaled;  // extreme scales
    for (auto [type, value] : {std::pair{dec, v}, std::pair{vi, unscaled}}) {
      for (SortOrder o : {SortOrder::kAsc, SortOrder::kDesc}) {
        std::string e = Enc(*type, value, o);
        std::string_view in = e;
        std::string back;
        ASSERT_TRUE(ReadOrdered(*type, o, &in, &back));
        ASSERT_EQ(back, value);
      }
    }
  }
  // 10^40 (scale 0) == 10^41 (scale 1) < 10^40 + 1: equal values tie-break
  // by scale.
  std::string e40 =
      H("00000000"
        "1d6329f1c35ca4bfabb9f5610000000000");
  std::string e41 =
      H("00000001"
        "0125dfa371a19e6f7cb54395ca0000000000");
  std::string e40p1 =
      H("00000000"
        "1d6329f1c35ca4bfabb9f5610000000001");
  std::string a = Enc(*dec, e40, SortOrder::kAsc),
              b = Enc(*dec, e41, SortOrder::kAsc),
              c = Enc(*dec, e40p1, SortOrder::kAsc);
  EXPECT_LT(a, b);
  EXPECT_LT(b, c);
  EXPECT_EQ(a.substr(0, a.size() - 5),
            b.substr(0, b.size() - 5));  // same value part
}

TEST(OrderedCodec, MalformedInputIsRejectedWithoutOverreading) {
  auto T = [](TypeKind k) { return CqlType::Of(k); };
  std::string back;
  auto bad = [&](const CqlTypePtr& t, std::string bytes) {
    std::string_view in = bytes;
    return !ReadOrdered(*t, SortOrder::kAsc, &in, &back);
  };
  EXPECT_TRUE(bad(T(TypeKind::kInt), H("00")));            // header 0x00
  EXPECT_TRUE(bad(T(TypeKind::kInt), H("0680000001")));    // header 0x06
  EXPECT_TRUE(bad(T(TypeKind::kInt), H("0480000001")));    // sign header
  EXPECT_TRUE(bad(T(TypeKind::kVarchar), H("03610002")));  // bad escape
  EXPECT_TRUE(bad(T(TypeKind::kVarchar), H("030001")));    // empty as value
  EXPECT_TRUE(bad(T(TypeKind::kVarint), H("0401020001"
                                          "00")));  // non-minimal
  EXPECT_TRUE(bad(T(TypeKind::kVarint), H("040101ff"
                                          "00")));  // sign mismatch
  EXPECT_TRUE(bad(T(TypeKind::kVarint), H("04010101"
                                          "020001")));     // pad not minimal
  EXPECT_TRUE(bad(T(TypeKind::kFloat), H("0300000000")));  // negative-NaN slot
  EXPECT_TRUE(bad(T(TypeKind::kDecimal), H("04"
                                           "ffffffffffffffff"
                                           "0b00"
                                           "80000000"
                                           "00")));
  EXPECT_TRUE(bad(T(TypeKind::kDecimal), H("04"
                                           "8000000000000001"
                                           "0100"
                                           "80000000"
                                           "00")));
  EXPECT_TRUE(bad(T(TypeKind::kUuid), H("0301"
                                        "00000000000000000000000000000000")));
  Rng rng(1);
  for (const Model& m : AllModels()) {
    for (int n = 0; n < 3000; n++) {
      std::string s = RandomBytes(
          rng, rng() % 24,
          std::string_view("\x00\x01\x02\x03\x04\x05\x80\xfe\xff", 9));
      std::string_view in = s;
      SortOrder o = n % 2 ? SortOrder::kDesc : SortOrder::kAsc;
      if (!ReadOrdered(*m.type, o, &in, &back)) continue;
      std::string again = Enc(*m.type, back, o),
                  back2;  // decoded value is stable
      std::string_view in2 = again;
      ASSERT_TRUE(ReadOrdered(*m.type, o, &in2, &back2)) << m.name;
      ASSERT_EQ(back2, back) << m.name;
    }
  }
}

TEST(EscapedBytes, OrderPreservingAndPrefixFree) {
  Rng rng(8);
  std::vector<std::string> v;
  for (int i = 0; i < 300; i++)
    v.push_back(
        RandomBytes(rng, rng() % 5, std::string_view("\x00\x01\xff", 3)));
  for (const std::string& a : v) {
    std::string ea;
    AppendEscapedBytes(a, &ea);
    std::string_view in = ea;
    std::string back;
    ASSERT_TRUE(ReadEscapedBytes(&in, &back));
    EXPECT_EQ(back, a);
    EXPECT_TRUE(in.empty());
    for (const std::string& b : v) {
      std::string eb;
      AppendEscapedBytes(b, &eb);
      ASSERT_EQ(ByteCmp(ea, eb), ByteCmp(a, b));
    }
  }
  std::string e;
  AppendEscapedBytes(std::string("\x00", 1), &e);
  EXPECT_EQ(e, H("00ff0001"));
}

}  // namespace
}  // namespace keywise
