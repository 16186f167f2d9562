#include "storage/partition_key.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "common/token.h"

namespace keywise {
namespace {

using Parts = std::vector<std::string>;

TEST(PartitionKey, SingleComponentIsTheRawValue) {
  EXPECT_EQ(SerializePartitionKey({std::string("\x00\x00\x00\x01", 4)}),
            std::string("\x00\x00\x00\x01", 4));
  EXPECT_EQ(SerializePartitionKey({""}), "");
  auto parts = SplitPartitionKey("anything \x00 at all", 1);
  ASSERT_TRUE(parts.ok());
  EXPECT_EQ(*parts, Parts{"anything \x00 at all"});
}

TEST(PartitionKey, CompositeMatchesCassandraCompositeType) {
  // (int 1, text 'ab'); same bytes as the (int, text) vector in token_test.
  std::string key =
      SerializePartitionKey({std::string("\x00\x00\x00\x01", 4), "ab"});
  EXPECT_EQ(key, std::string("\x00\x04\x00\x00\x00\x01\x00\x00\x02"
                             "ab\x00",
                             12));
  EXPECT_EQ(TokenOfKey(key).value, 4996121422650625275LL);
  std::string three = SerializePartitionKey({"a", "", "c"});
  EXPECT_EQ(three, std::string("\x00\x01"
                               "a\x00\x00\x00\x00\x00\x01"
                               "c\x00",
                               11));
}

TEST(PartitionKey, RoundTripsRandomComposites) {
  std::mt19937_64 rng(3);
  for (int n = 0; n < 500; n++) {
    Parts parts(1 + rng() % 4);
    for (std::string& p : parts) {
      p.resize(rng() % (n % 50 == 0 ? 70000 : 20));
      if (p.size() > kMaxKeyComponentSize) p.resize(kMaxKeyComponentSize);
      for (char& c : p) c = static_cast<char>(rng());
    }
    std::string key = SerializePartitionKey(parts);
    auto back = SplitPartitionKey(key, parts.size());
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(*back, parts);
  }
}

TEST(PartitionKey, RejectsMalformedComposites) {
  std::string key = SerializePartitionKey({"ab", "cde"});
  for (size_t len = 0; len < key.size(); len++) {
    EXPECT_FALSE(SplitPartitionKey(key.substr(0, len), 2).ok()) << len;
  }
  EXPECT_FALSE(SplitPartitionKey(key + "x", 2).ok());  // trailing bytes
  EXPECT_FALSE(SplitPartitionKey(key, 3).ok());        // too few components
  EXPECT_TRUE(SplitPartitionKey(key, 1).ok());         // one column: raw
  std::string bad_eoc = key;
  bad_eoc[4] = '\x01';  // end-of-component byte of "ab"
  auto r = SplitPartitionKey(bad_eoc, 2);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kServerError);
}

TEST(PartitionKey, SplitIsSafeOnArbitraryBytes) {
  std::mt19937_64 rng(5);
  for (int n = 0; n < 20000; n++) {
    std::string s(rng() % 24, '\0');
    for (char& c : s) c = static_cast<char>(rng() % 4 == 0 ? 0 : rng() % 6);
    auto r = SplitPartitionKey(s, 2 + rng() % 3);
    if (r.ok()) {
      EXPECT_EQ(SerializePartitionKey(*r), s);
    }
  }
}

TEST(PartitionKey, ValidateKeyComponentSize) {
  EXPECT_TRUE(ValidateKeyComponentSize(0).ok());
  EXPECT_TRUE(ValidateKeyComponentSize(65535).ok());
  Status st = ValidateKeyComponentSize(65536);
  EXPECT_EQ(st.code(), ErrorCode::kInvalid);
  EXPECT_EQ(st.message(),
            "Key length of 65536 is longer than maximum of 65535");
}

}  // namespace
}  // namespace keywise
