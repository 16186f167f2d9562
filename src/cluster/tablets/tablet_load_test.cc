#include "cluster/tablets/tablet_load.h"

#include <gtest/gtest.h>

#include "cluster/coordinator/load_sampler.h"
#include "cluster/metadata/metadata_json.h"

namespace keywise::cluster {
namespace {

using std::chrono::milliseconds;

TEST(LoadSampler, CountsEveryRequestAndKeepsAUniformSample) {
  LoadSampler sampler(100);
  const Uuid t = Uuid::Random();
  // 10,000 requests, a quarter of them on negative tokens.
  for (int i = 0; i < 10000; ++i) {
    sampler.Record(t, Token{i % 4 == 0 ? -1 - i : i});
  }
  std::map<Uuid, LoadSampler::Window> w = sampler.Take();
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[t].ops, 10000u);
  ASSERT_EQ(w[t].sample.size(), 100u);
  int negative = 0;
  for (Token tok : w[t].sample) negative += tok.value < 0 ? 1 : 0;
  EXPECT_GT(negative, 8);   // 25 expected; a binomial tail this far off
  EXPECT_LT(negative, 50);  // is below 1e-6
  EXPECT_TRUE(sampler.Take().empty());  // a new window
}

TabletMap TwoTablets(const Uuid& a, const Uuid& b) {
  TabletMap m;
  m.table_id = Uuid::Random();
  m.tablets = {TabletInfo{Token{-1}, {a}}, TabletInfo{Token{INT64_MAX}, {b}}};
  return m;
}

ClusterView ViewOf(const Uuid& local, const TabletMap& map) {
  ClusterView v;
  NodeStatus n;
  n.info.host_id = local;
  n.info.listen_address = "127.0.0.1";
  n.up = true;
  v.topology = std::make_shared<Topology>(local, std::vector<NodeStatus>{n});
  v.tablets[map.table_id] = std::make_shared<TabletMap>(map);
  return v;
}

TEST(TabletLoad, ReportsSizeOfReplicasAndRatesOfCoordinatedRequests) {
  const Uuid a = Uuid::Random(), b = Uuid::Random();
  const TabletMap map = TwoTablets(a, b);
  std::map<Uuid, LoadSampler::Window> window;
  // 400 requests in 2 s; the sample has 3 of 4 tokens in tablet 1.
  window[map.table_id] = {400, {Token{-5}, Token{3}, Token{4}, Token{9}}};
  const LoadReport r = BuildLoadReport(
      ViewOf(a, map), window, milliseconds(2000),
      [&](const Uuid& id, TokenInterval tokens) -> uint64_t {
        EXPECT_EQ(id, map.table_id);
        EXPECT_EQ(tokens.start, kMinimumToken);  // only tablet 0 is a's
        EXPECT_EQ(tokens.end, Token{-1});
        return 4096;
      });
  EXPECT_EQ(r.host_id, a);
  ASSERT_EQ(r.tables.at(map.table_id).size(), 2u);
  const TabletLoadEntry& t0 = r.tables.at(map.table_id)[0];
  const TabletLoadEntry& t1 = r.tables.at(map.table_id)[1];
  EXPECT_TRUE(t0.replica);
  EXPECT_EQ(t0.bytes, 4096u);
  EXPECT_DOUBLE_EQ(t0.ops, 50.0);  // 400 * 1/4 / 2 s
  EXPECT_FALSE(t1.replica);        // coordinated only
  EXPECT_EQ(t1.bytes, 0u);
  EXPECT_DOUBLE_EQ(t1.ops, 150.0);
  EXPECT_EQ(t1.sample, (std::vector<Token>{Token{3}, Token{4}, Token{9}}));

  auto decoded = DecodeLoadReport(EncodeLoadReport(r));
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(*decoded, r);
  for (const std::string& bad : std::vector<std::string>{
           "", "[]", R"({"host_id": "x"})",
        R"({"host_id": ")" + a.ToString() + R"(", "tables": {"y": []}})",
        R"({"host_id": ")" + a.ToString() + R"(", "tables": {")" +
            map.table_id.ToString() + R"(": [{"first": 5, "last": 1}]}})"}) {
    EXPECT_FALSE(DecodeLoadReport(bad).ok()) << bad;
  }
}

// Only replicas at least size_median_from big report their median.
TEST(TabletLoad, BigReplicasReportTheirSizeMedian) {
  const Uuid a = Uuid::Random(), b = Uuid::Random();
  const TabletMap map = TwoTablets(a, b);
  auto size = [](const Uuid&, TokenInterval tokens) -> uint64_t {
    // 5000 bytes on token -3, nothing else.
    return tokens.start <= Token{-3} && Token{-3} <= tokens.end ? 5000 : 0;
  };
  auto median = [](const Uuid&, TokenInterval) -> std::optional<Token> {
    return Token{-3};
  };
  LoadReport r = BuildLoadReport(ViewOf(a, map), {}, milliseconds(1000), size,
                                 median, 4096);
  ASSERT_EQ(r.tables.at(map.table_id).size(), 1u);
  EXPECT_EQ(r.tables.at(map.table_id)[0].size_median, Token{-3});
  auto decoded = DecodeLoadReport(EncodeLoadReport(r));
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(*decoded, r);
  r = BuildLoadReport(ViewOf(a, map), {}, milliseconds(1000), size, median,
                      5001);
  EXPECT_FALSE(r.tables.at(map.table_id)[0].size_median);
  // A median outside its tablet is refused.
  EXPECT_FALSE(DecodeLoadReport(
                   R"({"host_id": ")" + a.ToString() + R"(", "tables": {")" +
                   map.table_id.ToString() +
                   R"(": [{"first": 1, "last": 5, "size_median": 6}]}})")
                   .ok());
}

TEST(TabletLoad, CombinesNodesByWeightAndFindsTheTopPartition) {
  const Uuid a = Uuid::Random(), b = Uuid::Random();
  const TabletMap map = TwoTablets(a, b);
  const Token first{0}, last{INT64_MAX};
  LoadReport ra{a, 1000, {}}, rb{b, 1000, {}};
  // a coordinated 300/s on tablet 1 around tokens 10..12; b, its replica,
  // 100/s all on token 50.
  ra.tables[map.table_id] = {
      TabletLoadEntry{first, last, false, 0, 300,
                      {Token{10}, Token{11}, Token{12}}}};
  rb.tables[map.table_id] = {
      TabletLoadEntry{first, last, true, 1 << 20, 100, {Token{50}}},
      // Bounds from before a split: ignored.
      TabletLoadEntry{kMinimumToken, Token{-7}, true, 99, 1e6, {Token{-9}}}};
  const std::vector<TabletLoad> load = CombineLoad(map, {ra, rb});
  ASSERT_EQ(load.size(), 2u);
  EXPECT_FALSE(load[0].reported);
  EXPECT_DOUBLE_EQ(load[0].ops, 0);
  EXPECT_TRUE(load[1].reported);
  EXPECT_EQ(load[1].bytes, uint64_t{1} << 20);
  EXPECT_DOUBLE_EQ(load[1].ops, 400);
  // Weights 100 (10), 100 (11), 100 (12), 100 (50): half is reached at 11.
  EXPECT_EQ(load[1].median, Token{11});
  EXPECT_DOUBLE_EQ(load[1].top_share, 0.25);
  EXPECT_FALSE(load[1].size_median);
  // The size median is the largest replica's.
  ra.tables[map.table_id][0].replica = true;
  ra.tables[map.table_id][0].bytes = 2 << 20;
  ra.tables[map.table_id][0].size_median = Token{77};
  rb.tables[map.table_id][0].size_median = Token{88};
  const std::vector<TabletLoad> sized = CombineLoad(map, {rb, ra});
  EXPECT_EQ(sized[1].bytes, uint64_t{2} << 20);
  EXPECT_EQ(sized[1].size_median, Token{77});
}

TEST(TabletLoad, OnePartitionWithMostRequestsIsTheTop) {
  const Uuid a = Uuid::Random();
  const TabletMap map = TwoTablets(a, a);
  LoadReport r{a, 1000, {}};
  r.tables[map.table_id] = {TabletLoadEntry{
      Token{0}, Token{INT64_MAX}, true, 10, 1000,
      {Token{1}, Token{7}, Token{7}, Token{7}, Token{7}, Token{9}}}};
  const std::vector<TabletLoad> load = CombineLoad(map, {r});
  EXPECT_EQ(load[1].top_token, Token{7});
  EXPECT_NEAR(load[1].top_share, 4.0 / 6, 1e-9);
  EXPECT_EQ(load[1].median, Token{7});
}

}  // namespace
}  // namespace keywise::cluster
