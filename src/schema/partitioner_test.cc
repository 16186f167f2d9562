#include "schema/partitioner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "schema/value_codec.h"

namespace keywise {
namespace {

TableDef Table(std::string_view key_type, PlacementKind placement,
               int32_t salt = 0, int key_columns = 1) {
  TableDef t;
  t.keyspace = "ks";
  t.name = "t";
  for (int i = 0; i < key_columns; ++i) {
    ColumnDef c;
    c.name = "k" + std::to_string(i);
    c.type = *CqlType::Parse(key_type);
    c.kind = ColumnKind::kPartitionKey;
    c.position = i;
    t.columns.push_back(c);
  }
  ColumnDef v;
  v.name = "v";
  v.type = CqlType::Of(TypeKind::kVarchar);
  t.columns.push_back(v);
  t.options.placement = placement;
  t.options.salt_buckets = salt;
  return t;
}

// A key as storage orders partitions: token, then the key's bytes.
using Placed = std::tuple<Token, std::string>;

// Values of one type in ascending order, with their serialized forms.
struct Sample {
  std::string type;
  std::vector<std::string> ascending;
};

std::vector<Sample> Samples() {
  std::mt19937_64 rng(42);
  std::vector<Sample> out;
  auto ints = [&](auto lo, auto hi, auto encode, std::string type) {
    using T = decltype(lo);
    std::vector<T> values = {lo, hi, T{0}, T{-1}, T{1}, static_cast<T>(lo + 1),
                             static_cast<T>(hi - 1)};
    std::uniform_int_distribution<int64_t> d(lo, hi);
    for (int i = 0; i < 400; ++i) values.push_back(static_cast<T>(d(rng)));
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    Sample s{type, {}};
    for (T v : values) s.ascending.push_back(encode(v));
    out.push_back(std::move(s));
  };
  ints(int8_t{-128}, int8_t{127}, EncodeTinyint, "tinyint");
  ints(int16_t{-32768}, int16_t{32767}, EncodeSmallint, "smallint");
  ints(std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max(),
       EncodeInt, "int");
  ints(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(),
       EncodeBigint, "bigint");
  ints(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(),
       EncodeTimestamp, "timestamp");
  ints(std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max(),
       EncodeDate, "date");
  ints(int64_t{0}, int64_t{86399999999999}, EncodeTime, "time");
  // Text and blobs: byte order, with shared 8-byte prefixes and prefixes
  // of one another.
  std::vector<std::string> texts = {"a", "a\x01", "ab", "abcdefgh",
                                    "abcdefgh", "abcdefghi", "abcdefghz",
                                    "abcdefgi", "b", "zzzzzzzzzzzz"};
  std::uniform_int_distribution<int> len(1, 12), byte(0, 255);
  for (int i = 0; i < 300; ++i) {
    std::string s(static_cast<size_t>(len(rng)), '\0');
    for (char& c : s) c = static_cast<char>(byte(rng) % 4 + 'a');
    texts.push_back(s);
  }
  std::sort(texts.begin(), texts.end());
  texts.erase(std::unique(texts.begin(), texts.end()), texts.end());
  out.push_back(Sample{"blob", texts});
  out.push_back(Sample{"text", texts});
  return out;
}

TEST(PartitionerTest, HashPlacementIsMurmur3) {
  const TableDef t = Table("int", PlacementKind::kHash);
  const std::string key = EncodeInt(7);
  EXPECT_EQ(PartitionToken(t, key), TokenOfKey(key));
}

// Range placement: storage order (token, key bytes) is key order, and no
// key takes the minimum token (which means "unbounded").
TEST(PartitionerTest, RangePlacementKeepsKeyOrder) {
  for (const Sample& s : Samples()) {
    const TableDef t = Table(s.type, PlacementKind::kRange);
    std::vector<Placed> placed;
    for (const std::string& v : s.ascending) {
      placed.emplace_back(PartitionToken(t, v), v);
      EXPECT_NE(std::get<0>(placed.back()), kMinimumToken) << s.type;
    }
    EXPECT_TRUE(std::is_sorted(placed.begin(), placed.end())) << s.type;
  }
}

// Salting: every key lands in its bucket's slice of the ring, keys keep
// their order within a bucket, and the buckets are used about evenly.
TEST(PartitionerTest, SaltedKeysKeepTheirOrderWithinEachBucket) {
  for (int32_t buckets : {2, 16, 256}) {
    for (const Sample& s : Samples()) {
      const TableDef t = Table(s.type, PlacementKind::kRange, buckets);
      std::vector<std::vector<Placed>> by_bucket(buckets);
      for (const std::string& v : s.ascending) {
        const uint32_t b = SaltBucket(buckets, v);
        ASSERT_LT(b, static_cast<uint32_t>(buckets));
        const Token token = PartitionToken(t, v);
        EXPECT_NE(token, kMinimumToken);
        EXPECT_GE(token, PositionToken(buckets, b, 0)) << s.type;
        EXPECT_LE(token, PositionToken(buckets, b, ~uint64_t{0})) << s.type;
        by_bucket[b].emplace_back(token, v);
      }
      for (const auto& placed : by_bucket) {
        EXPECT_TRUE(std::is_sorted(placed.begin(), placed.end()))
            << s.type << " with " << buckets << " buckets";
      }
    }
  }
  // 16 buckets and 16,000 consecutive timestamps: each bucket within 20%
  // of its share.
  const TableDef t = Table("timestamp", PlacementKind::kRange, 16);
  std::vector<int> counts(16);
  for (int64_t ms = 1'800'000'000'000; ms < 1'800'000'016'000; ++ms) {
    ++counts[SaltBucket(16, EncodeTimestamp(ms))];
  }
  for (int c : counts) {
    EXPECT_GT(c, 800);
    EXPECT_LT(c, 1200);
  }
}

TEST(PartitionerTest, KeyPositionsBoundTheirKeys) {
  const CqlTypePtr text = CqlType::Of(TypeKind::kVarchar);
  // Keys sharing their first 8 bytes share a position; the row filter
  // tells them apart.
  EXPECT_EQ(KeyPosition(*text, "abcdefghX"), KeyPosition(*text, "abcdefghY"));
  EXPECT_LT(KeyPosition(*text, "abc"), KeyPosition(*text, "abd"));
  const CqlTypePtr bigint = CqlType::Of(TypeKind::kBigint);
  EXPECT_LT(KeyPosition(*bigint, EncodeBigint(-1)),
            KeyPosition(*bigint, EncodeBigint(0)));
}

TEST(PartitionerTest, CheckPlacementExplainsWhatIsWrong) {
  EXPECT_EQ(CheckPlacement(Table("uuid", PlacementKind::kHash)), "");
  EXPECT_EQ(CheckPlacement(Table("int", PlacementKind::kRange, 8)), "");
  EXPECT_EQ(CheckPlacement(Table("int", PlacementKind::kHash, 8)),
            "salt_buckets needs placement = 'range' (hash placement already "
            "spreads keys over the ring)");
  EXPECT_EQ(CheckPlacement(Table("int", PlacementKind::kRange, 0, 2)),
            "placement = 'range' needs a partition key of one column (this "
            "table's has 2)");
  EXPECT_EQ(CheckPlacement(Table("uuid", PlacementKind::kRange)),
            "placement = 'range' cannot order partition key column k0 of "
            "type uuid; use tinyint, smallint, int, bigint, timestamp, date, "
            "time, ascii, text or blob");
  for (int32_t bad : {1, 3, 12, 512, -4}) {
    EXPECT_EQ(CheckPlacement(Table("int", PlacementKind::kRange, bad)),
              "salt_buckets must be a power of two between 2 and 256 (got " +
                  std::to_string(bad) + ")");
  }
}

}  // namespace
}  // namespace keywise
