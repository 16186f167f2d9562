#include "advisor/workload_advice.h"

#include <gtest/gtest.h>

namespace keywise::advisor {
namespace {

TableKey Orders() {
  return TableKey{"shop", "orders", {"seller"}, {{"id", false}}};
}

ShapeEvidence Shape(std::string shape, std::string access, uint64_t n,
                    uint64_t read, uint64_t returned) {
  return ShapeEvidence{std::move(shape), std::move(access), n, read,
                       returned, 41, 80};
}

TEST(WorkloadAdvice, AFilteringScanGetsItsEvidenceAndFixes) {
  auto found = WorkloadFindings(
      Orders(),
      {Shape("WHERE buyer = ? ALLOW FILTERING", "FULL SCAN", 92, 92000, 184),
       Shape("WHERE seller = ? AND id = ?", "GET", 8, 8, 8)},
      {});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].rule, "filtering-scan");
  EXPECT_EQ(found[0].text,
            "filtering-scan: 92% of the SELECTs on shop.orders (92 of 100) "
            "are `WHERE buyer = ? ALLOW FILTERING`, run as a FULL SCAN: they "
            "read 500 rows per row returned (median 41 ms, p99 80 ms). The "
            "primary key cannot find these rows, so each query reads the "
            "whole table and drops what does not match. Serve them from data "
            "keyed for them:\n"
            "  CREATE INDEX ON shop.orders (buyer);\n"
            "  CREATE MATERIALIZED VIEW shop.orders_by_buyer AS SELECT * FROM "
            "shop.orders WHERE buyer IS NOT NULL AND seller IS NOT NULL AND "
            "id IS NOT NULL PRIMARY KEY ((buyer), seller, id);");
}

TEST(WorkloadAdvice, KeyColumnsOnlyAlsoSuggestTheKeyChange) {
  auto found = WorkloadFindings(
      Orders(), {Shape("WHERE id = ? ALLOW FILTERING", "FULL SCAN", 100, 5000, 100)},
      {});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].text.find(
                "\n  ALTER TABLE shop.orders WITH PRIMARY KEY ((id), seller);"),
            std::string::npos)
      << found[0].text;
  // Inside a named partition: a local index.
  found = WorkloadFindings(
      Orders(),
      {Shape("WHERE seller = ? AND status = ? ALLOW FILTERING", "SCAN", 100,
             5000, 10)},
      {});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].text.find("reads whole partitions"), std::string::npos);
  EXPECT_NE(
      found[0].text.find("\n  CREATE INDEX ON shop.orders ((seller), status);"),
      std::string::npos)
      << found[0].text;
}

TEST(WorkloadAdvice, CheapOrRareShapesAreNotFindings) {
  // Few rows read per row returned, a small share, or too few SELECTs.
  EXPECT_TRUE(WorkloadFindings(Orders(),
                               {Shape("WHERE buyer = ? ALLOW FILTERING",
                                      "FULL SCAN", 100, 500, 100)},
                               {})
                  .empty());
  EXPECT_TRUE(WorkloadFindings(
                  Orders(),
                  {Shape("WHERE buyer = ? ALLOW FILTERING", "FULL SCAN", 5,
                         5000, 1),
                   Shape("WHERE seller = ? AND id = ?", "GET", 95, 95, 95)},
                  {})
                  .empty());
  EXPECT_TRUE(WorkloadFindings(Orders(),
                               {Shape("WHERE buyer = ? ALLOW FILTERING",
                                      "FULL SCAN", 50, 50000, 1)},
                               {})
                  .empty());
}

TEST(WorkloadAdvice, ShapesItCannotParseGetEvidenceOnly) {
  auto found = WorkloadFindings(
      Orders(),
      {Shape("WHERE tags CONTAINS ? ALLOW FILTERING", "FULL SCAN", 100, 5000, 1)},
      {});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].text.find("No statement is suggested"), std::string::npos);
}

TEST(WorkloadAdvice, MostReadsBackwardsSuggestTheOrderTheyUse) {
  TableKey key{"m", "events", {"host"}, {{"ts", false}, {"seq", false}}};
  auto found = WorkloadFindings(
      key,
      {Shape("WHERE host = ? ORDER BY ts DESC", "SCAN", 80, 800, 800),
       Shape("WHERE host = ?", "SCAN", 20, 200, 200)},
      {});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].text,
            "reversed-reads: 80% of the SELECTs on m.events (80 of 100) read "
            "partitions against their clustering order (ORDER BY ts DESC, "
            "declared ts ASC): each one reads storage backwards, which is "
            "slower than forwards. Declare the order the reads use, online:\n"
            "  ALTER TABLE m.events WITH PRIMARY KEY ((host), ts, seq) AND "
            "CLUSTERING ORDER BY (ts DESC, seq DESC);");
}

TEST(WorkloadAdvice, APartitionWithAFifthOfTheWritesIsHot) {
  auto found = WorkloadFindings(
      Orders(), {},
      {PartitionEvidence{"write", "seller = 7", 210, 10, 400},
       PartitionEvidence{"write", "seller = 8", 60, 0, 400},
       PartitionEvidence{"read", "seller = 9", 50, 0, 60}});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].text,
            "hot-partition: the partition `seller = 7` took at least 50% of "
            "the writes of shop.orders (200 of 400). They all go to one "
            "replica set, and a tablet cannot split below a partition, so "
            "more nodes do not help. Spread it over buckets: PRIMARY KEY "
            "((seller, bucket), id), the writer choosing bucket = hash(row) "
            "% N and readers reading every bucket. Compare the keys on the "
            "table's rows first:\n"
            "  keywise advise --keyspace shop --table orders --key "
            "'((seller, bucket%8), id)'");
}

TEST(WorkloadAdvice, ALargePartitionIsAFinding) {
  auto found = WorkloadFindings(
      Orders(), {}, {},
      {PartitionSizeEvidence{"seller = 3", 150u << 20, 2000,
                             "compaction_large_partition_warning_threshold_mb "
                             "= 100"}});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].text,
            "large-partition: the partition `seller = 3` of shop.orders holds "
            "150 MiB in 2000 rows in a node's table files, past "
            "compaction_large_partition_warning_threshold_mb = 100. A "
            "partition is read, repaired and moved in one piece, and a tablet "
            "cannot split below it. Split it over buckets (a time bucket, or "
            "bucket = hash(row) % N): PRIMARY KEY ((seller, bucket), id). "
            "Compare the keys on the table's rows first:\n"
            "  keywise advise --keyspace shop --table orders --key "
            "'((seller, bucket%8), id)'");
}

// A range-placed table written in key order: most writes in one range.
TEST(WorkloadAdvice, ARangePlacedTableWrittenInOrderHasAHotRange) {
  TableKey events{"m", "events", {"ts"}, {}, true, 0};
  std::vector<RangeEvidence> ranges = {{-9223372036854775807 - 1, 0, 10},
                                       {0, 5, 290}};
  auto found = WorkloadFindings(events, {}, {}, {}, ranges);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].rule, "hot-range");
  EXPECT_EQ(found[0].text,
            "hot-range: 97% of the writes of m.events (290 of 300) went to "
            "one sixty-fourth of its token ring (from token 0), spread over many "
            "partitions. The table is placed by key range, so keys used in "
            "order (a time, a sequence) all land on the tablet holding the "
            "newest ones, on one replica set, whatever the number of nodes. "
            "Salt it: each key goes to one of N hidden buckets by its hash, "
            "so the newest keys are spread over N tablets, while reads by key "
            "stay one read and key ranges merge the buckets in key order. "
            "salt_buckets is fixed when a table is created: create the table "
            "again (DESCRIBE TABLE m.events) with\n"
            "  WITH placement = 'range' AND salt_buckets = 16\n"
            "and copy the rows into it; or use a hash-placed key.");
  // Not for hash placement, nor when one partition explains it (that is
  // hot-partition), nor under the threshold.
  events.range_placed = false;
  EXPECT_TRUE(WorkloadFindings(events, {}, {}, {}, ranges).empty());
  events.range_placed = true;
  auto hot = WorkloadFindings(
      events, {}, {PartitionEvidence{"write", "ts = 1", 200, 0, 300}}, {},
      ranges);
  ASSERT_EQ(hot.size(), 1u);
  EXPECT_EQ(hot[0].rule, "hot-partition");
  ranges[0].writes = 290;  // half and half
  ranges[1].writes = 291;
  EXPECT_EQ(WorkloadFindings(events, {}, {}, {}, ranges).size(), 1u);
  ranges[0].writes = 300;
  ranges.push_back({1, 0, 300});
  EXPECT_TRUE(WorkloadFindings(events, {}, {}, {}, ranges).empty());
}

}  // namespace
}  // namespace keywise::advisor
