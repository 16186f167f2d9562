// What a cluster relies on (views/view_rows.h): index entries and copied
// view rows computed by different replicas, each from its own order of
// arrival of the same writes, merge into a correct index and an exact
// view. Three single nodes with the same schema apply the same random
// writes (each with its own USING TIMESTAMP, some equal, some deletions)
// in different orders; their base tables must end equal, the union of
// their index tables (merged by the storage merge rules, as a QUORUM read
// merges replicas) must hold an entry for every live base row (stale extra
// entries are allowed: queries check base rows), and the union of their
// copying views must be exactly the base. KEYWISE_SEED=n runs seed n only.
// Not covered here: TTLs (each replica's clock would give its own expiry;
// in a cluster the coordinator sets it once), so expiry while writes
// arrive is left to views_differential_test.cc, in one order.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "query/cql_script_test_util.h"
#include "schema/value_codec.h"
#include "storage/partition_key.h"
#include "storage/raw_merge.h"
#include "storage/raw_resolve.h"

namespace keywise::query {
namespace {

constexpr const char* kSchema[] = {
    "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', "
    "'replication_factor': 1}",
    "CREATE TABLE ks.t (k int, c int, v int, s set<int>, m map<int, int>, "
    "PRIMARY KEY (k, c))",
    "CREATE INDEX iv ON ks.t (v)",        // one cell
    "CREATE INDEX ic ON ks.t (c)",        // the row's liveness
    "CREATE INDEX iset ON ks.t (s)",      // set elements: one cell each
    "CREATE INDEX imv ON ks.t (VALUES(m))",  // shared by several elements
    "CREATE MATERIALIZED VIEW ks.mv AS SELECT * FROM ks.t WHERE k IS NOT "
    "NULL AND c IS NOT NULL PRIMARY KEY (c, k)",
    // Keyed by a regular column (strict), without m.
    "CREATE MATERIALIZED VIEW ks.mv_v AS SELECT k, c, v, s FROM ks.t WHERE "
    "v IS NOT NULL AND k IS NOT NULL AND c IS NOT NULL PRIMARY KEY (v, k, c)",
    // The base key, some columns: virtual cells keep rows whose only live
    // cells are unselected.
    "CREATE MATERIALIZED VIEW ks.mv_sub AS SELECT k, c, v FROM ks.t WHERE "
    "k IS NOT NULL AND c IS NOT NULL PRIMARY KEY (c, k)",
};

// `keys`: rows per partition and partitions (few: writes collide more).
std::string RandomWrite(std::mt19937& rng, int keys, int64_t* ts) {
  auto r = [&](int n) { return static_cast<int>(rng() % n); };
  // Timestamps mostly grow, sometimes repeat or go back: replicas see
  // late and tied writes.
  *ts += r(4) == 0 ? -r(5) : r(3);
  const std::string at = " USING TIMESTAMP " + std::to_string(*ts);
  const int k = r(keys), c = r(keys);
  const std::string where =
      " WHERE k = " + std::to_string(k) + " AND c = " + std::to_string(c);
  switch (r(11)) {
    case 0:
    case 1:
      return "INSERT INTO ks.t (k, c, v, s, m) VALUES (" + std::to_string(k) +
             ", " + std::to_string(c) + ", " + std::to_string(r(3)) + ", {" +
             std::to_string(r(3)) + "}, {" + std::to_string(r(3)) + ": " +
             std::to_string(r(3)) + "})" + at;
    case 2:
      return "UPDATE ks.t" + at + " SET v = " + std::to_string(r(3)) + where;
    case 3:
      return "UPDATE ks.t" + at + " SET s = s + {" + std::to_string(r(3)) +
             "}" + where;
    case 4:
      return "UPDATE ks.t" + at + " SET s = s - {" + std::to_string(r(3)) +
             "}" + where;
    case 5:
      return "UPDATE ks.t" + at + " SET m[" + std::to_string(r(3)) +
             "] = " + std::to_string(r(3)) + where;
    case 6:
      return "DELETE m[" + std::to_string(r(3)) + "] FROM ks.t" + at + where;
    case 7:
      return "DELETE v, s FROM ks.t" + at + where;
    case 8:
      return "DELETE FROM ks.t" + at + where;
    case 9:
      return "DELETE FROM ks.t" + at + " WHERE k = " + std::to_string(k);
    default:
      return "DELETE FROM ks.t" + at + " WHERE k = " + std::to_string(k) +
             " AND c > " + std::to_string(c);
  }
}

class Replica {
 public:
  void Run(const std::string& cql) {
    auto r = node_.processor().Process(cql, QueryOptions{}, &client_);
    ASSERT_TRUE(r.ok()) << cql << ": " << r.status().ToString();
  }
  std::vector<std::string> Rows(const std::string& cql) {
    auto r = node_.Query(cql, 0);
    EXPECT_TRUE(r.ok()) << cql << ": " << r.status().ToString();
    return r.ok() ? *r : std::vector<std::string>{};
  }
  // Every stored partition of table ks.`name`.
  std::vector<RawPartition> Raw(const std::string& name) {
    TableDefPtr t = node_.engine().catalog().snapshot()->FindTable("ks", name);
    EXPECT_NE(t, nullptr) << name;
    if (t == nullptr) return {};
    ReadOptions options;
    options.now_seconds = node_.engine().clock().NowSeconds();
    auto scan = node_.engine().ScanRaw(t, {kMinimumToken, Token{INT64_MAX}},
                                       {}, nullptr, kNoRowLimit, options);
    EXPECT_TRUE(scan.ok()) << scan.status().ToString();
    return scan.ok() ? scan->partitions : std::vector<RawPartition>{};
  }
  Engine& engine() { return node_.engine(); }

 private:
  ScriptNode node_;
  ClientState client_;
};

// The live rows of the union of `parts` (one table's partitions from
// several replicas, merged per partition, as a read at ALL merges them),
// by "serialized partition key|clustering value/...", with their cells.
std::map<std::string, std::vector<Cell>> LiveUnion(
    const std::vector<RawPartition>& parts, int32_t now) {
  std::map<std::string, std::vector<const RawPartition*>> by_key;
  for (const RawPartition& p : parts) by_key[p.partition_key].push_back(&p);
  std::map<std::string, std::vector<Cell>> out;
  for (auto& [key, inputs] : by_key) {
    std::vector<RawPartition> copies;
    for (const RawPartition* p : inputs) copies.push_back(*p);
    for (RawPartition& c : copies) c.table = copies[0].table;
    std::vector<const RawPartition*> ptrs;
    for (const RawPartition& c : copies) ptrs.push_back(&c);
    Result<RawMerge> merge = MergeRawPartitions(ptrs);
    EXPECT_TRUE(merge.ok()) << merge.status().ToString();
    if (!merge.ok()) continue;
    ReadOptions options;
    options.now_seconds = now;
    auto reader = NewRawPartitionReader(merge->merged, options);
    LiveRow row;
    while (reader->Next(&row)) {
      std::string id = key + "|";
      for (const std::string& v : row.clustering) id += v + "/";
      out[id] = row.cells;
    }
  }
  return out;
}

// A row's cells by column name: (name, path, value, timestamp, ttl), of
// the columns in `only` when it is not empty. Cells of no column (a view's
// virtual cells) are left out.
using NamedCells =
    std::set<std::tuple<std::string, std::string, std::string, int64_t, int>>;
NamedCells Named(const TableDef& table, const std::vector<Cell>& cells,
                 const std::set<std::string>& only = {}) {
  NamedCells out;
  for (const Cell& c : cells) {
    const ColumnDef* column = table.FindColumnById(c.column);
    if (column == nullptr) continue;
    if (!only.empty() && !only.contains(column->name)) continue;
    out.insert({column->name, c.path, c.value, c.timestamp, c.ttl});
  }
  return out;
}

std::string Serialized(std::vector<std::string> values) {
  return SerializePartitionKey(values);
}

void RunSeed(uint32_t seed, int writes) {
  SCOPED_TRACE("seed " + std::to_string(seed) + " (KEYWISE_SEED)");
  std::mt19937 rng(seed);
  std::vector<std::string> statements;
  int64_t ts = 1000;
  const int keys = seed % 2 == 0 ? 2 : 4;
  for (int i = 0; i < writes; ++i) {
    statements.push_back(RandomWrite(rng, keys, &ts));
  }
  std::vector<std::unique_ptr<Replica>> replicas;
  for (int i = 0; i < 3; ++i) {
    replicas.push_back(std::make_unique<Replica>());
    for (const char* ddl : kSchema) replicas.back()->Run(ddl);
    std::vector<std::string> order = statements;
    if (i > 0) std::shuffle(order.begin(), order.end(), rng);
    for (const std::string& s : order) replicas.back()->Run(s);
  }
  const std::vector<std::string> base =
      replicas[0]->Rows("SELECT k, c, v, s, m FROM ks.t");
  for (auto& r : replicas) {
    ASSERT_EQ(r->Rows("SELECT k, c, v, s, m FROM ks.t"), base)
        << "the replicas' base tables differ";
  }
  const int32_t now = replicas[0]->engine().clock().NowSeconds();
  auto merged = [&](const std::string& table) {
    std::vector<RawPartition> all;
    for (auto& r : replicas) {
      for (RawPartition& p : r->Raw(table)) all.push_back(std::move(p));
    }
    return LiveUnion(all, now);
  };
  // The entries every live base row needs, by index table.
  std::map<std::string, std::set<std::string>> needed;
  TableDefPtr t = replicas[0]->engine().catalog().snapshot()->FindTable("ks", "t");
  ReadOptions read;
  read.now_seconds = now;
  auto scan = replicas[0]->engine().ScanTable(*t, kMinimumToken, {}, {}, read);
  ASSERT_TRUE(scan.ok());
  size_t live_rows = 0;
  std::map<std::pair<std::string, std::string>, NamedCells> base_rows;
  // What the two other views must hold, by their row ids.
  std::map<std::string, NamedCells> want_v, want_sub;
  while ((*scan)->NextPartition()) {
    const std::string pk = (*scan)->serialized_partition_key();
    const std::string token = EncodeBigint((*scan)->token().value);
    LiveRow row;
    while ((*scan)->NextRow(&row)) {
      ++live_rows;
      const std::string k = SplitPartitionKey(pk, 1).value()[0];
      const std::string& c = row.clustering[0];
      const std::string rest = token + "/" + k + "/" + c + "/";
      auto entry = [&](const std::string& index, const std::string& value) {
        needed[index].insert(Serialized({value}) + "|" + rest);
      };
      // An index on the clustering column leaves it out of its clustering.
      needed["ic_index"].insert(Serialized({c}) + "|" + token + "/" + k + "/");
      base_rows[{k, c}] = Named(*t, row.cells);
      want_sub[Serialized({c}) + "|" + k + "/"] = Named(*t, row.cells, {"v"});
      for (const Cell& cell : row.cells) {
        const std::string& name = t->FindColumnById(cell.column)->name;
        if (name == "v") {
          want_v[Serialized({cell.value}) + "|" + k + "/" + c + "/"] =
              Named(*t, row.cells, {"s"});
        }
        if (name == "v") entry("iv_index", cell.value);
        if (name == "s") entry("iset_index", cell.path);
        if (name == "m") entry("imv_index", cell.value);
      }
    }
  }
  for (const auto& [index, entries] : needed) {
    const auto have = merged(index);
    size_t stale = have.size();
    for (const std::string& e : entries) {
      EXPECT_TRUE(have.contains(e)) << index << " lacks an entry of a live row";
      if (have.contains(e)) --stale;
    }
    ::testing::Test::RecordProperty(index + "_stale", static_cast<int>(stale));
  }
  // The copying view: exactly the base, cell for cell (timestamps and
  // TTLs included).
  TableDefPtr mv =
      replicas[0]->engine().catalog().snapshot()->FindTable("ks", "mv");
  std::map<std::pair<std::string, std::string>, NamedCells> view_rows;
  for (const auto& [id, cells] : merged("mv")) {
    // "c|k/": the view's partition is c, its clustering k.
    const size_t bar = id.find('|');
    const std::string c = id.substr(0, bar);
    const std::string k = id.substr(bar + 1, id.size() - bar - 2);
    view_rows[{k, c}] = Named(*mv, cells);
  }
  EXPECT_EQ(view_rows.size(), live_rows);
  EXPECT_TRUE(view_rows == base_rows) << "the merged view is not the base";
  // The strict view and the view of some columns: exactly their projection
  // of the base, timestamps and TTLs included.
  for (const auto& [name, want] :
       {std::pair{"mv_v", &want_v}, std::pair{"mv_sub", &want_sub}}) {
    TableDefPtr view =
        replicas[0]->engine().catalog().snapshot()->FindTable("ks", name);
    std::map<std::string, NamedCells> have;
    for (const auto& [id, cells] : merged(name)) have[id] = Named(*view, cells);
    EXPECT_EQ(have.size(), want->size()) << name;
    EXPECT_TRUE(have == *want) << "the merged " << name
                               << " is not its projection of the base";
  }
}

TEST(ViewsConvergence, ReplicasInAnyOrderMergeIntoACompleteIndexAndAnExactView) {
  std::vector<uint32_t> seeds = {1, 2, 3, 4, 5, 6};
  if (const char* s = std::getenv("KEYWISE_SEED")) {
    seeds = {static_cast<uint32_t>(std::strtoul(s, nullptr, 10))};
  }
  for (uint32_t seed : seeds) RunSeed(seed, 200);
}

}  // namespace
}  // namespace keywise::query
