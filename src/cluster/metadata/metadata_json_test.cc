#include "cluster/metadata/metadata_json.h"

#include <gtest/gtest.h>

namespace keywise::cluster {
namespace {

TEST(MetadataJson, NodeRoundTrip) {
  NodeInfo node;
  node.host_id = Uuid::Random();
  node.listen_address = "127.0.0.2";
  node.rpc_address = "127.0.0.2";
  node.storage_port = 7001;
  node.dc = "dc2";
  node.rack = "r3";
  node.state = NodeState::kNormal;
  node.release_version = "4.0.11";
  auto decoded = DecodeNodeInfo(EncodeNodeInfo(node));
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(*decoded, node);
}

TEST(MetadataJson, NodeUnknownFieldsAreIgnoredAndGarbageRefused) {
  std::string json = R"({"host_id": ")" + Uuid::Random().ToString() +
                     R"(", "listen_address": "127.0.0.3", "state": "joining",
      "from_the_future": [1, 2]})";
  auto node = DecodeNodeInfo(json);
  ASSERT_TRUE(node.ok()) << node.status().ToString();
  EXPECT_EQ(node->state, NodeState::kJoining);
  EXPECT_EQ(node->native_port, 9042);  // the default
  for (std::string bad : {"", "[]", "{", R"({"host_id": 7})",
                          R"({"host_id": "x", "listen_address": "a"})"}) {
    EXPECT_FALSE(DecodeNodeInfo(bad).ok()) << bad;
  }
}

TEST(MetadataJson, TabletMapRoundTrip) {
  TabletMap map;
  map.table_id = Uuid::Random();
  map.keyspace = "ks";
  map.table = "t";
  map.tablets = {TabletInfo{Token{-7}, {Uuid::Random(), Uuid::Random()}},
                 TabletInfo{Token{INT64_MAX}, {Uuid::Random()}}};
  auto decoded = DecodeTabletMap(EncodeTabletMap(map));
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(*decoded, map);
  map.tablets[0].last_token = Token{INT64_MAX};  // not ascending
  EXPECT_FALSE(DecodeTabletMap(EncodeTabletMap(map)).ok());
  map.tablets[0].last_token = Token{5};
  map.tablets[1].last_token = Token{6};  // does not reach the maximum
  EXPECT_FALSE(DecodeTabletMap(EncodeTabletMap(map)).ok());
}

// Maps written before splits existed name 2^log2_count even tablets.
TEST(MetadataJson, TabletMapsWithALog2CountStillDecode) {
  const std::string id = Uuid::Random().ToString();
  const std::string r = Uuid::Random().ToString();
  auto decoded = DecodeTabletMap(
      R"({"table_id": ")" + id + R"(", "log2_count": 1, "replicas": [[")" +
      r + R"("], [")" + r + R"("]]})");
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  ASSERT_EQ(decoded->count(), 2u);
  EXPECT_EQ(decoded->LastToken(0), Token{-1});
  EXPECT_EQ(decoded->LastToken(1), Token{INT64_MAX});
  EXPECT_FALSE(DecodeTabletMap(R"({"table_id": ")" + id +
                               R"(", "log2_count": 2, "replicas": [[")" + r +
                               R"("]]})")
                   .ok());  // 4 tablets claimed, 1 listed
}


TEST(MetadataJson, TabletTransitionsRoundTripAndMustFitTheReplicas) {
  TabletMap map;
  map.table_id = Uuid::Random();
  const Uuid a = Uuid::Random(), b = Uuid::Random(), c = Uuid::Random();
  map.tablets = {TabletInfo{Token{0}, {a, b}}, TabletInfo{Token{INT64_MAX}, {c}}};
  map.tablets[0].Begin(a, c);
  map.tablets[0].transition->stage = TransitionStage::kReadNew;
  const std::string json = EncodeTabletMap(map);
  auto decoded = DecodeTabletMap(json);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(*decoded, map);
  EXPECT_EQ(decoded->tablets[0].ReadReplicas(), (std::vector<Uuid>{c, b}));
  EXPECT_EQ(decoded->tablets[0].PendingReplica(), c);
  EXPECT_FALSE(decoded->tablets[1].transition);
  EXPECT_EQ(decoded->tablets[1].ReadReplicas(), std::vector<Uuid>{c});
  decoded->tablets[0].Finish();
  EXPECT_EQ(decoded->tablets[0].replicas, (std::vector<Uuid>{c, b}));
  EXPECT_FALSE(decoded->tablets[0].transition);

  // A transition whose leaving node is no replica, or whose pending node
  // already is one, or an unknown stage, is corrupt metadata.
  auto with = [&](const std::string& transitions) {
    std::string bad = EncodeTabletMap(TabletMap{
        map.table_id, "", "",
        {TabletInfo{Token{0}, {a, b}}, TabletInfo{Token{INT64_MAX}, {c}}}});
    bad.pop_back();  // the closing brace
    return bad + R"(,"transitions":)" + transitions + "}";
  };
  auto entry = [](int tablet, const std::string& stage, const Uuid& leaving,
                  const Uuid& pending) {
    return R"([{"tablet":)" + std::to_string(tablet) + R"(,"stage":")" +
           stage + R"(","leaving":")" + leaving.ToString() +
           R"(","pending":")" + pending.ToString() + R"("}])";
  };
  EXPECT_TRUE(DecodeTabletMap(with(entry(0, "write_both", a, c))).ok());
  EXPECT_FALSE(DecodeTabletMap(with(entry(0, "write_both", c, a))).ok());
  EXPECT_FALSE(DecodeTabletMap(with(entry(0, "write_both", a, b))).ok());
  EXPECT_FALSE(DecodeTabletMap(with(entry(2, "write_both", a, c))).ok());
  EXPECT_FALSE(DecodeTabletMap(with(entry(0, "sideways", a, c))).ok());
  EXPECT_FALSE(DecodeTabletMap(with("7")).ok());
}

// A transition's id travels with it; maps written before ids decode with a
// nil one; a malformed id is corrupt.
TEST(MetadataJson, TransitionIdsRoundTrip) {
  const Uuid a = Uuid::Random(), b = Uuid::Random(), id = Uuid::Random();
  TabletMap map;
  map.table_id = Uuid::Random();
  map.tablets = {TabletInfo{Token{INT64_MAX}, {a}}};
  map.tablets[0].Begin(a, b, id);
  const std::string json = EncodeTabletMap(map);
  EXPECT_NE(json.find(id.ToString()), std::string::npos);
  auto decoded = DecodeTabletMap(json);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->tablets[0].transition->id, id);

  map.tablets[0].Begin(a, b);  // no id: none written, nil read
  const std::string old = EncodeTabletMap(map);
  EXPECT_EQ(old.find("\"id\""), std::string::npos);
  decoded = DecodeTabletMap(old);
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(decoded->tablets[0].transition->id, Uuid());

  std::string bad = json;
  bad.replace(bad.find(id.ToString()), 36, std::string(36, 'x'));
  EXPECT_FALSE(DecodeTabletMap(bad).ok());
}

}  // namespace
}  // namespace keywise::cluster
