#include "system/table_params.h"

#include <gtest/gtest.h>

namespace keywise::system {
namespace {

using Map = std::map<std::string, std::string>;

TEST(TableParams, OptionText) {
  EXPECT_EQ(UnquoteOption("'it''s'"), "it's");
  EXPECT_EQ(UnquoteOption("0.5"), "0.5");
  EXPECT_EQ(*ParseOptionMap("{'a': 'b', 'c' : 1}"),
            (Map{{"a", "b"}, {"c", "1"}}));
  EXPECT_EQ(*ParseOptionMap("{}"), Map{});
  EXPECT_EQ(*ParseOptionMap("{'q': 'x''y'}"), (Map{{"q", "x'y"}}));
  EXPECT_FALSE(ParseOptionMap("'abc'"));
  EXPECT_FALSE(ParseOptionMap("{'a' 'b'}"));
  EXPECT_FALSE(ParseOptionMap("{'a': 'b'"));
}

TEST(TableParams, Defaults) {
  TableParams p = ResolveTableParams(TableOptions());
  EXPECT_EQ(p.bloom_filter_fp_chance, 0.01);
  EXPECT_EQ(p.caching, (Map{{"keys", "ALL"}, {"rows_per_partition", "NONE"}}));
  EXPECT_EQ(p.compaction, (Map{{"class",
                                "org.apache.cassandra.db.compaction."
                                "SizeTieredCompactionStrategy"},
                               {"max_threshold", "32"},
                               {"min_threshold", "4"}}));
  EXPECT_EQ(p.compression,
            (Map{{"chunk_length_in_kb", "16"},
                 {"class", "org.apache.cassandra.io.compress.LZ4Compressor"}}));
  EXPECT_EQ(p.speculative_retry, "99p");
  EXPECT_EQ(p.additional_write_policy, "99p");
  EXPECT_EQ(p.read_repair, "BLOCKING");
  EXPECT_EQ(p.gc_grace_seconds, 864000);
  EXPECT_FALSE(p.cdc);
  EXPECT_TRUE(p.extensions.empty());
}

TEST(TableParams, Overrides) {
  TableOptions o;
  o.comment = "c";
  o.default_time_to_live = 60;
  o.extra = {
      {"bloom_filter_fp_chance", "0.05"},
      {"caching", "{'keys': 'none', 'rows_per_partition': '10'}"},
      {"compaction",
       "{'class': 'org.apache.cassandra.db.compaction."
       "TimeWindowCompactionStrategy', 'compaction_window_size': '1'}"},
      {"compression", "{'class': 'SnappyCompressor', 'chunk_length_kb': 64}"},
      {"crc_check_chance", "0.5"},
      {"max_index_interval", "4096"},
      {"min_index_interval", "64"},
      {"memtable_flush_period_in_ms", "1000"},
      {"speculative_retry", "'ALWAYS'"},
      {"additional_write_policy", "'50ms'"},
      {"read_repair", "'none'"},
      {"cdc", "true"},
      {"extensions", "{'ext': 0xcafe}"},
  };
  TableParams p = ResolveTableParams(o);
  EXPECT_EQ(p.comment, "c");
  EXPECT_EQ(p.default_time_to_live, 60);
  EXPECT_EQ(p.bloom_filter_fp_chance, 0.05);
  EXPECT_EQ(p.caching, (Map{{"keys", "NONE"}, {"rows_per_partition", "10"}}));
  EXPECT_EQ(p.compaction.at("class"),
            "org.apache.cassandra.db.compaction.TimeWindowCompactionStrategy");
  EXPECT_EQ(p.compaction.at("compaction_window_size"), "1");
  EXPECT_EQ(p.compaction.at("min_threshold"), "4");
  EXPECT_EQ(
      p.compression,
      (Map{{"chunk_length_in_kb", "64"},
           {"class", "org.apache.cassandra.io.compress.SnappyCompressor"}}));
  EXPECT_EQ(p.crc_check_chance, 0.5);
  EXPECT_EQ(p.max_index_interval, 4096);
  EXPECT_EQ(p.min_index_interval, 64);
  EXPECT_EQ(p.memtable_flush_period_in_ms, 1000);
  EXPECT_EQ(p.speculative_retry, "ALWAYS");
  EXPECT_EQ(p.additional_write_policy, "50ms");
  EXPECT_EQ(p.read_repair, "NONE");
  EXPECT_EQ(p.cdc, std::optional<bool>(true));
  EXPECT_EQ(p.extensions, (Map{{"ext", "\xca\xfe"}}));
}

TEST(TableParams, LeveledDefaultsItsBloomFilter) {
  TableOptions o;
  o.extra["compaction"] = "{'class': 'LeveledCompactionStrategy'}";
  EXPECT_EQ(ResolveTableParams(o).bloom_filter_fp_chance, 0.1);
}

TEST(TableParams, DisabledCompression) {
  TableOptions o;
  o.extra["compression"] = "{'enabled': 'false'}";
  EXPECT_EQ(ResolveTableParams(o).compression, (Map{{"enabled", "false"}}));
}

TEST(TableParams, RetryPolicies) {
  TableOptions o;
  for (auto [in, out] :
       {std::pair{"'99PERCENTILE'", "99p"}, std::pair{"'99.5p'", "99.5p"},
        std::pair{"'NONE'", "NEVER"}, std::pair{"'10ms'", "10ms"}}) {
    o.extra["speculative_retry"] = in;
    EXPECT_EQ(ResolveTableParams(o).speculative_retry, out) << in;
  }
}

}  // namespace
}  // namespace keywise::system
