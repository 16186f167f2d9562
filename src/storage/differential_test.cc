// Randomized differential test of the storage engine against an in-memory
// model of Cassandra's semantics (reconciliation, row liveness, TTL, the four
// kinds of deletion, static cells, clustering order with a DESC column).
//
// The model keeps every write ever made and resolves reads by brute force;
// the engine must return exactly the same rows, cells and timestamps for
// every read. Fixed seeds run in CI; KEYWISE_SEED=<n> reproduces any seed,
// KEYWISE_OPS=<n> changes the length of each run.
#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "storage/engine_test_util.h"

namespace keywise {
namespace {

using testing::CreateTestTable;
using testing::Int;

// Clustering key (ck1 int ASC, ck2 text DESC).
struct Ck {
  int c1;
  std::string c2;
};
// Clustering order: ck1 ascending, then ck2 descending (unsigned bytes).
int CompareCk(const Ck& a, const Ck& b, size_t components = 2) {
  if (a.c1 != b.c1) return a.c1 < b.c1 ? -1 : 1;
  if (components < 2) return 0;
  int c = a.c2.compare(b.c2);
  return c == 0 ? 0 : (c > 0 ? -1 : 1);
}

struct Bound {
  size_t size = 0;  // components given; 0 = unbounded
  Ck ck;
  bool inclusive = true;
};
bool AfterStart(const Ck& row, const Bound& b) {
  if (b.size == 0) return true;
  int c = CompareCk(row, b.ck, b.size);
  return c > 0 || (c == 0 && b.inclusive);
}
bool BeforeEnd(const Ck& row, const Bound& b) {
  if (b.size == 0) return true;
  int c = CompareCk(row, b.ck, b.size);
  return c < 0 || (c == 0 && b.inclusive);
}

struct ModelRow {
  Ck ck;
  std::vector<LivenessInfo> markers;
  std::vector<DeletionTime> deletions;
  std::vector<Cell> cells;
};
struct ModelPartition {
  DeletionTime deletion;
  std::vector<Cell> statics;
  std::vector<std::tuple<Bound, Bound, DeletionTime>> ranges;
  std::vector<ModelRow> rows;  // unordered; looked up linearly
};

void Supersede(DeletionTime* acc, const DeletionTime& d) {
  if (d.Supersedes(*acc)) *acc = d;
}

// Live cells (one per column) among `cells` under `deletion`.
std::vector<Cell> ResolveModelCells(const std::vector<Cell>& cells,
                                    const DeletionTime& deletion,
                                    int32_t now) {
  std::map<ColumnId, Cell> best;
  for (const Cell& c : cells) {
    auto it = best.find(c.column);
    if (it == best.end() || CellWins(c, it->second)) best[c.column] = c;
  }
  std::vector<Cell> out;
  for (auto& [col, c] : best)
    if (!deletion.Deletes(c.timestamp) && c.IsLive(now)) out.push_back(c);
  return out;
}

std::string Describe(const std::vector<Cell>& cells) {
  std::ostringstream s;
  for (const Cell& c : cells)
    s << " [" << c.column << "=" << ::testing::PrintToString(c.value) << "@"
      << c.timestamp << " ttl" << c.ttl << "]";
  return s.str();
}

class DifferentialTest : public testing::EngineFixture {
 protected:
  void SetUp() override {
    EngineFixture::SetUp();
    CreateTable("diff", 864000);
  }
  // gc_grace_seconds = 0 makes every compaction purge what it may.
  void CreateTable(const std::string& name, int gc_grace_seconds) {
    table_ = CreateTestTable(
        *engine_, name,
        {{"pk", TypeKind::kInt, ColumnKind::kPartitionKey},
         {"ck1", TypeKind::kInt, ColumnKind::kClustering},
         {"ck2", TypeKind::kVarchar, ColumnKind::kClustering, SortOrder::kDesc},
         {"s", TypeKind::kInt, ColumnKind::kStatic},
         {"v1", TypeKind::kInt},
         {"v2", TypeKind::kVarchar}},
        /*versions=*/1, gc_grace_seconds);
    s_ = table_->FindColumn("s")->id;
    v1_ = table_->FindColumn("v1")->id;
    v2_ = table_->FindColumn("v2")->id;
  }

  int Pick(int n) { return static_cast<int>(rng_() % n); }
  Ck RandomCk() {
    static const char* kTexts[] = {"", "a", "b", "ba", "\xff", "a\x00b"};
    Ck ck{Pick(6) - 2, kTexts[Pick(6)]};
    if (ck.c2 == "a") ck.c2 = std::string("a\0b", Pick(2) ? 3 : 1);
    return ck;
  }
  Bound RandomBound() {
    Bound b;
    b.size = Pick(3);
    b.ck = RandomCk();
    b.inclusive = Pick(2);
    return b;
  }
  // Random timestamps collide and arrive out of order. In purge mode they
  // increase, as nothing may be written under a purged tombstone.
  int64_t Ts() { return purge_mode_ ? ++last_ts_ : 1 + Pick(60); }
  int Ttl() { return Pick(4) == 0 ? 1 + Pick(4) : 0; }
  ClusteringBound ToBound(const Bound& b) {
    ClusteringBound out;
    if (b.size >= 1) out.prefix.push_back(Int(b.ck.c1));
    if (b.size >= 2) out.prefix.push_back(b.ck.c2);
    out.kind = b.inclusive ? BoundKind::kInclusive : BoundKind::kExclusive;
    return out;
  }
  ModelRow& RowOf(ModelPartition& p, const Ck& ck) {
    for (ModelRow& r : p.rows)
      if (CompareCk(r.ck, ck) == 0) return r;
    p.rows.push_back(ModelRow{ck, {}, {}, {}});
    return p.rows.back();
  }
  Cell RandomCell(ColumnId col, int64_t ts, int ttl) {
    std::string value =
        col == v2_ ? std::string(Pick(3), static_cast<char>('x' + Pick(3)))
                   : Int(Pick(5));
    return LiveCell(col, value, ts, ttl, Now());
  }

  void RandomWrite() {
    int pk = Pick(4);
    ModelPartition& p = model_[pk];
    PartitionUpdate u{table_, {Int(pk)}};
    int64_t ts = Ts();
    int ttl = Ttl();
    Ck ck = RandomCk();
    RowWrite row{{Int(ck.c1), ck.c2}, {}};
    switch (Pick(9)) {
      case 0:
      case 1: {  // INSERT: marker + cells
        row.fragment.liveness = RowMarker(ts, ttl, Now());
        RowOf(p, ck).markers.push_back(row.fragment.liveness);
        [[fallthrough]];
      }
      case 2:
      case 3: {  // UPDATE: cells only
        for (ColumnId col : {v1_, v2_}) {
          if (Pick(3) == 0) continue;
          Cell c = RandomCell(col, ts, ttl);
          row.fragment.cells.push_back(c);
          RowOf(p, ck).cells.push_back(c);
        }
        u.rows.push_back(row);
        break;
      }
      case 4: {  // DELETE v1 / v2
        Cell c = CellTombstone(Pick(2) ? v1_ : v2_, ts, Now());
        row.fragment.cells.push_back(c);
        RowOf(p, ck).cells.push_back(c);
        u.rows.push_back(row);
        break;
      }
      case 5: {  // DELETE row
        row.fragment.deletion = Deletion(ts, Now());
        RowOf(p, ck).deletions.push_back(row.fragment.deletion);
        u.rows.push_back(row);
        break;
      }
      case 6: {  // DELETE clustering range
        Bound a = RandomBound(), b = RandomBound();
        DeletionTime d = Deletion(ts, Now());
        u.range_deletions.push_back({ToBound(a), ToBound(b), d});
        p.ranges.emplace_back(a, b, d);
        break;
      }
      case 7: {  // static cell write or delete
        Cell c = Pick(4) == 0 ? CellTombstone(s_, ts, Now())
                              : RandomCell(s_, ts, ttl);
        u.static_cells.push_back(c);
        p.statics.push_back(c);
        break;
      }
      case 8: {
        if (Pick(3) != 0) return RandomWrite();
        u.partition_deletion = Deletion(ts, Now());
        Supersede(&p.deletion, u.partition_deletion);
        break;
      }
    }
    ASSERT_TRUE(engine_->Apply({u}).ok());
  }

  // Model: live rows of partition pk within [start, end], clustering order.
  std::vector<LiveRow> ModelRead(int pk, const Bound& start, const Bound& end,
                                 std::vector<Cell>* statics) {
    std::vector<LiveRow> out;
    statics->clear();
    auto it = model_.find(pk);
    if (it == model_.end()) return out;
    const ModelPartition& p = it->second;
    *statics = ResolveModelCells(p.statics, p.deletion, Now());
    std::vector<const ModelRow*> rows;
    for (const ModelRow& r : p.rows)
      if (AfterStart(r.ck, start) && BeforeEnd(r.ck, end)) rows.push_back(&r);
    std::sort(rows.begin(), rows.end(), [](const ModelRow* a, const ModelRow* b) {
      return CompareCk(a->ck, b->ck) < 0;
    });
    for (const ModelRow* r : rows) {
      DeletionTime outer = p.deletion;
      for (const DeletionTime& d : r->deletions) Supersede(&outer, d);
      for (const auto& [a, b, d] : p.ranges)
        if (AfterStart(r->ck, a) && BeforeEnd(r->ck, b)) Supersede(&outer, d);
      LiveRow row;
      row.clustering = {Int(r->ck.c1), r->ck.c2};
      LivenessInfo best;
      for (const LivenessInfo& m : r->markers)
        if (m.Supersedes(best)) best = m;
      if (!best.IsEmpty() && !outer.Deletes(best.timestamp) &&
          best.IsLive(Now()))
        row.liveness = best;
      row.cells = ResolveModelCells(r->cells, outer, Now());
      if (!row.liveness.IsEmpty() || !row.cells.empty())
        out.push_back(std::move(row));
    }
    return out;
  }

  void CheckRead(int pk, const Bound& start, const Bound& end, bool reversed,
                 const std::string& context) {
    std::vector<Cell> model_statics;
    std::vector<LiveRow> expected = ModelRead(pk, start, end, &model_statics);
    if (reversed) std::reverse(expected.begin(), expected.end());
    auto reader = engine_->ReadPartition(*table_, {Int(pk)}, ToBound(start),
                                         ToBound(end), Read(reversed));
    ASSERT_TRUE(reader.ok());
    EXPECT_EQ(Describe((*reader)->static_cells()), Describe(model_statics))
        << context;
    LiveRow row;
    size_t i = 0;
    while ((*reader)->Next(&row)) {
      ASSERT_LT(i, expected.size()) << context << ": extra row";
      EXPECT_EQ(row.clustering, expected[i].clustering) << context << " row " << i;
      EXPECT_EQ(row.liveness, expected[i].liveness) << context << " row " << i;
      EXPECT_EQ(Describe(row.cells), Describe(expected[i].cells))
          << context << " row " << i;
      i++;
    }
    ASSERT_TRUE((*reader)->status().ok());
    EXPECT_EQ(i, expected.size()) << context << ": missing rows";
  }

  void CheckGet(int pk, const Ck& ck, const std::string& context) {
    std::vector<Cell> statics;
    Bound exact{2, ck, true};
    std::vector<LiveRow> expected = ModelRead(pk, exact, exact, &statics);
    LiveRow row;
    bool found;
    std::vector<Cell> got_statics;
    ASSERT_TRUE(engine_->GetRow(*table_, {Int(pk)}, {Int(ck.c1), ck.c2},
                                Read(), &row, &found, &got_statics)
                    .ok());
    ASSERT_EQ(found, !expected.empty()) << context;
    EXPECT_EQ(Describe(got_statics), Describe(statics)) << context;
    if (found) {
      EXPECT_EQ(row.liveness, expected[0].liveness) << context;
      EXPECT_EQ(Describe(row.cells), Describe(expected[0].cells)) << context;
    }
  }

  // A token-order scan of the whole table returns, per partition, exactly
  // the model's live rows and statics, and partitions in token order.
  void CheckScan(const std::string& context) {
    auto scan = engine_->ScanTable(*table_, kMinimumToken, {}, {}, Read());
    ASSERT_TRUE(scan.ok());
    std::set<int> seen;
    Token last = kMinimumToken;
    while ((*scan)->NextPartition()) {
      ASSERT_GE((*scan)->token(), last) << context;
      last = (*scan)->token();
      int pk = static_cast<int>(
          DecodeFixed32BE((*scan)->serialized_partition_key().data()));
      seen.insert(pk);
      std::vector<Cell> statics;
      std::vector<LiveRow> expected = ModelRead(pk, {}, {}, &statics);
      EXPECT_EQ(Describe((*scan)->static_cells()), Describe(statics))
          << context << " scan pk " << pk;
      LiveRow row;
      size_t i = 0;
      while ((*scan)->NextRow(&row)) {
        ASSERT_LT(i, expected.size()) << context << " scan pk " << pk;
        EXPECT_EQ(row.clustering, expected[i].clustering) << context;
        EXPECT_EQ(Describe(row.cells), Describe(expected[i].cells)) << context;
        i++;
      }
      EXPECT_EQ(i, expected.size()) << context << " scan pk " << pk;
    }
    ASSERT_TRUE((*scan)->status().ok());
    for (const auto& [pk, partition] : model_) {
      std::vector<Cell> statics;
      if (!ModelRead(pk, {}, {}, &statics).empty() || !statics.empty()) {
        EXPECT_TRUE(seen.count(pk)) << context << " scan missed pk " << pk;
      }
    }
  }

  void Run(uint64_t seed, int ops) {
    rng_.seed(seed);
    for (int op = 0; op < ops; op++) {
      std::string context =
          "seed " + std::to_string(seed) + " op " + std::to_string(op);
      RandomWrite();
      if (Pick(10) == 0) clock_.AdvanceSeconds(Pick(3));
      if (Pick(150) == 0) {
        ASSERT_TRUE(engine_->Flush().ok());
      }
      if (Pick(purge_mode_ ? 60 : 400) == 0) {
        ASSERT_TRUE(engine_->CompactAll().ok());
      }
      if (op % 5 == 0) {
        int pk = Pick(4);
        CheckRead(pk, {}, {}, false, context);
        CheckRead(pk, {}, {}, true, context);
        Bound a = RandomBound(), b = RandomBound();
        CheckRead(pk, a, b, Pick(2), context + " slice");
        CheckGet(pk, RandomCk(), context + " get");
      }
      if (op % 50 == 0) CheckScan(context);
      if (HasFailure()) return;
    }
  }

  TableDefPtr table_;
  ColumnId s_, v1_, v2_;
  std::mt19937_64 rng_;
  std::map<int, ModelPartition> model_;
  bool purge_mode_ = false;
  int64_t last_ts_ = 0;
};

int OpsPerRun() {
  const char* ops = std::getenv("KEYWISE_OPS");
  return ops ? std::atoi(ops) : 2000;
}

TEST_F(DifferentialTest, FixedSeeds) {
  if (const char* seed = std::getenv("KEYWISE_SEED")) {
    Run(std::strtoull(seed, nullptr, 10), OpsPerRun());
    return;
  }
  for (uint64_t seed : {1, 2, 3, 4, 5}) {
    model_.clear();
    ASSERT_TRUE(engine_->DeleteTableData(table_->storage_id).ok());
    Run(seed, OpsPerRun());
    if (HasFailure()) return;
  }
}

// Purging (gc_grace_seconds = 0, frequent major compactions) must never
// change what a read returns.
TEST_F(DifferentialTest, PurgingNeverChangesReads) {
  purge_mode_ = true;
  CreateTable("purged", 0);
  uint64_t first = 100;
  if (const char* seed = std::getenv("KEYWISE_SEED"))
    first = std::strtoull(seed, nullptr, 10);
  for (uint64_t seed = first; seed < first + 3; seed++) {
    model_.clear();
    ASSERT_TRUE(engine_->DeleteTableData(table_->storage_id).ok());
    Run(seed, OpsPerRun());
    if (HasFailure()) return;
  }
}

}  // namespace
}  // namespace keywise
