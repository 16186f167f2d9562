#include "cluster/messaging/handshake.h"

#include <gtest/gtest.h>

namespace keywise::cluster {
namespace {

Uuid FixedId() {
  return *Uuid::Parse("00112233-4455-6677-8899-aabbccddeeff");
}

TEST(Handshake, EncodesTheDocumentedBytes) {
  const std::string bytes = EncodeHello(Hello{1, 2, FixedId()});
  const std::string expected(
      "KWMS\x01\x02"
      "\x00\x11\x22\x33\x44\x55\x66\x77\x88\x99\xaa\xbb\xcc\xdd\xee\xff",
      22);
  EXPECT_EQ(bytes, expected);
  EXPECT_EQ(bytes.size(), kHelloSize);
}

TEST(Handshake, RoundTrips) {
  Result<Hello> hello = DecodeHello(EncodeHello(Hello{3, 7, FixedId()}));
  ASSERT_TRUE(hello.ok()) << hello.status().ToString();
  EXPECT_EQ(hello->min_version, 3);
  EXPECT_EQ(hello->max_version, 7);
  EXPECT_EQ(hello->node_id, FixedId());
}

TEST(Handshake, RejectsWrongSizeMagicAndRange) {
  const std::string good = EncodeHello(Hello{1, 1, FixedId()});
  EXPECT_FALSE(DecodeHello(good.substr(0, 21)).ok());
  EXPECT_FALSE(DecodeHello(good + "x").ok());
  std::string bad_magic = good;
  bad_magic[0] = 'X';
  Result<Hello> r = DecodeHello(bad_magic);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("not a Keywise messaging peer"),
            std::string::npos);
  // A CQL client's first bytes (an OPTIONS frame) are not a hello either.
  EXPECT_FALSE(DecodeHello(std::string("\x04\x00\x00\x00\x05\x00\x00\x00\x00"
                                       "0123456789abc",
                                       22))
                   .ok());
  EXPECT_FALSE(DecodeHello(EncodeHello(Hello{0, 1, FixedId()})).ok());
  EXPECT_FALSE(DecodeHello(EncodeHello(Hello{3, 2, FixedId()})).ok());
}

TEST(Handshake, NegotiatesTheHighestCommonVersion) {
  auto v = [](uint8_t a_min, uint8_t a_max, uint8_t b_min, uint8_t b_max) {
    return NegotiateVersion(Hello{a_min, a_max, {}}, Hello{b_min, b_max, {}});
  };
  EXPECT_EQ(v(1, 1, 1, 1), 1);
  EXPECT_EQ(v(1, 2, 1, 1), 1);  // old node, new node
  EXPECT_EQ(v(1, 2, 2, 3), 2);  // adjacent releases
  EXPECT_EQ(v(2, 3, 1, 2), 2);  // symmetric
  EXPECT_EQ(v(1, 5, 2, 9), 5);
  EXPECT_EQ(v(1, 1, 2, 3), std::nullopt);
  EXPECT_EQ(v(4, 4, 1, 3), std::nullopt);
  EXPECT_EQ(VersionRange(Hello{1, 2, {}}), "1..2");
}

}  // namespace
}  // namespace keywise::cluster
