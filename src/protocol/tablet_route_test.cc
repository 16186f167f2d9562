#include "protocol/tablet_route.h"

#include <gtest/gtest.h>

#include "protocol/body_reader.h"
#include "protocol/body_writer.h"

namespace keywise::protocol {
namespace {

// ScyllaDB's tablets-routing-v1 payload: a [bytes map] with one entry, a
// tuple (bigint, bigint, list<tuple<uuid, int>>) in CQL value encoding.
TEST(TabletRoute, PayloadIsTheTupleTabletAwareDriversRead) {
  TabletRoute route;
  route.first_token = -100;
  route.last_token = 4611686018427387903LL;
  const Uuid a = Uuid::Random(), b = Uuid::Random();
  route.replicas = {a, b};
  const std::string payload = EncodeTabletRoutePayload(route);
  BodyReader r(payload);
  uint16_t entries = 0;
  std::string_view key;
  std::optional<std::string_view> tuple;
  ASSERT_TRUE(r.ReadShort(&entries).ok());
  EXPECT_EQ(entries, 1u);
  ASSERT_TRUE(r.ReadString(&key).ok());
  EXPECT_EQ(key, "tablets-routing-v1");
  ASSERT_TRUE(r.ReadBytes(&tuple).ok());
  ASSERT_TRUE(tuple.has_value());
  EXPECT_TRUE(r.empty());

  BodyReader t(*tuple);
  std::optional<std::string_view> first, last, list;
  ASSERT_TRUE(t.ReadBytes(&first).ok() && t.ReadBytes(&last).ok() &&
              t.ReadBytes(&list).ok());
  EXPECT_TRUE(t.empty());
  int64_t value = 0;
  ASSERT_TRUE(BodyReader(*first).ReadLong(&value).ok());
  EXPECT_EQ(value, -100);
  ASSERT_TRUE(BodyReader(*last).ReadLong(&value).ok());
  EXPECT_EQ(value, 4611686018427387903LL);
  BodyReader l(*list);
  int32_t count = 0;
  ASSERT_TRUE(l.ReadInt(&count).ok());
  ASSERT_EQ(count, 2);
  for (const Uuid& expected : {a, b}) {
    std::optional<std::string_view> replica, host, shard;
    ASSERT_TRUE(l.ReadBytes(&replica).ok());
    BodyReader rr(*replica);
    ASSERT_TRUE(rr.ReadBytes(&host).ok() && rr.ReadBytes(&shard).ok());
    EXPECT_EQ(*host, expected.bytes_view());
    int32_t shard_id = -1;
    ASSERT_TRUE(BodyReader(*shard).ReadInt(&shard_id).ok());
    EXPECT_EQ(shard_id, 0);
  }
  EXPECT_TRUE(l.empty());
}

TEST(TabletRoute, DecodesWhatItEncodes) {
  TabletRoute route;
  route.first_token = INT64_MIN;
  route.last_token = -1;
  route.replicas = {Uuid::Random(), Uuid::Random(), Uuid::Random()};
  const std::string encoded = EncodeTabletRoutePayload(route);
  BodyReader in(encoded);
  BytesMap payload;
  ASSERT_TRUE(in.ReadBytesMap(&payload).ok());
  Result<std::optional<TabletRoute>> decoded = DecodeTabletRoutePayload(payload);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  ASSERT_TRUE(decoded->has_value());
  EXPECT_EQ(**decoded, route);
}

TEST(TabletRoute, APayloadWithoutTheEntryHasNoRoute) {
  Result<std::optional<TabletRoute>> decoded =
      DecodeTabletRoutePayload({{"other", "x"}});
  ASSERT_TRUE(decoded.ok());
  EXPECT_FALSE(decoded->has_value());
}

// Every cut of a good payload, and a few wrong shapes, give an error and
// never a route.
TEST(TabletRoute, MalformedPayloadsAreErrors) {
  TabletRoute route;
  route.first_token = 10;
  route.last_token = 20;
  route.replicas = {Uuid::Random(), Uuid::Random()};
  const std::string encoded = EncodeTabletRoutePayload(route);
  BodyReader in(encoded);
  BytesMap payload;
  ASSERT_TRUE(in.ReadBytesMap(&payload).ok());
  const std::string good = *payload[kTabletsRoutingV1Payload];
  for (size_t cut = 0; cut < good.size(); ++cut) {
    EXPECT_FALSE(DecodeTabletRoutePayload(
                     {{kTabletsRoutingV1Payload, good.substr(0, cut)}})
                     .ok())
        << cut;
  }
  EXPECT_FALSE(DecodeTabletRoutePayload({{kTabletsRoutingV1Payload, good + "x"}})
                   .ok());
  EXPECT_FALSE(
      DecodeTabletRoutePayload({{kTabletsRoutingV1Payload, std::nullopt}}).ok());
  route.last_token = route.first_token;  // an empty range
  const std::string empty_range = EncodeTabletRoutePayload(route);
  BodyReader empty(empty_range);
  ASSERT_TRUE(empty.ReadBytesMap(&payload).ok());
  EXPECT_FALSE(DecodeTabletRoutePayload(payload).ok());
  // A replica count far beyond the bytes.
  std::string list;
  BodyWriter(&list).WriteInt(1 << 30);
  std::string tuple;
  BodyWriter w(&tuple);
  std::string first, last;
  BodyWriter(&first).WriteLong(1);
  BodyWriter(&last).WriteLong(2);
  ASSERT_TRUE(w.WriteBytes(first).ok() && w.WriteBytes(last).ok() &&
              w.WriteBytes(list).ok());
  EXPECT_FALSE(
      DecodeTabletRoutePayload({{kTabletsRoutingV1Payload, tuple}}).ok());
}

}  // namespace
}  // namespace keywise::protocol
