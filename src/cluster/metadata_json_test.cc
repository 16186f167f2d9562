#include "cluster/metadata_json.h"

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
  map.log2_count = 1;
  map.tablets = {TabletInfo{{Uuid::Random(), Uuid::Random()}},
                 TabletInfo{{Uuid::Random()}}};
  auto decoded = DecodeTabletMap(EncodeTabletMap(map));
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(*decoded, map);
  map.log2_count = 2;  // 4 tablets claimed, 2 listed
  EXPECT_FALSE(DecodeTabletMap(EncodeTabletMap(map)).ok());
}

}  // namespace
}  // namespace keywise::cluster
