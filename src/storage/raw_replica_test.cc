// Randomized differential test of raw reads, merges, resolution and read
// repair, as a leaderless cluster uses them.
//
// Several replicas (separate Engines) each receive a random subset (never
// empty) of random writes, sent as PartitionUpdate messages; one reference
// engine receives them all. A coordinator reads random slices raw from
// every replica (as RawPartition messages), merges the answers and resolves
// them: the result must equal the reference's live read. It then writes
// each replica's repair back (a RawPartition message), after which every
// replica's live read of that slice equals the reference's too, and an
// unlimited re-read finds no stale replica. Scans over token ranges are
// paged with a row limit the way a coordinator pages them.
//
// Fixed seeds run in CI; KEYWISE_SEED=<n> reproduces one seed and
// KEYWISE_OPS=<n> changes the number of writes per run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <sstream>

#include "storage/clustering_slice.h"
#include "storage/engine_test_util.h"
#include "storage/partition_update_codec.h"
#include "storage/raw_merge.h"
#include "storage/raw_partition_codec.h"
#include "storage/raw_resolve.h"

namespace keywise {
namespace {

using testing::CreateTestTable;
using testing::Int;

constexpr int64_t kStartMicros = 1700000000LL * 1000000;

struct Node {
  testing::TempDir dir;
  std::unique_ptr<Engine> engine;
  TableDefPtr table;
  // Every message to this node is decoded against its own table (each
  // engine's catalog gave the table its own random id).
  TableLookup Lookup() const {
    return [t = table](const Uuid&) { return t; };
  }
};

std::string Describe(const std::vector<Cell>& cells) {
  std::ostringstream s;
  for (const Cell& c : cells)
    s << " [" << c.column << "/" << ::testing::PrintToString(c.path) << "="
      << ::testing::PrintToString(c.value) << "@" << c.timestamp << " ttl"
      << c.ttl << "]";
  return s.str();
}
std::string Describe(const LiveRow& row) {
  std::ostringstream s;
  for (const std::string& v : row.clustering)
    s << ::testing::PrintToString(v) << ",";
  s << " marker@" << row.liveness.timestamp << "/" << row.liveness.ttl
    << Describe(row.cells);
  return s.str();
}

std::string Describe(const RowFragment& f) {
  std::ostringstream s;
  if (!f.liveness.IsEmpty())
    s << " marker@" << f.liveness.timestamp << "/" << f.liveness.ttl;
  if (!f.deletion.IsLive()) s << " deleted@" << f.deletion.marked_for_delete_at;
  s << Describe(f.cells);
  return s.str();
}
std::string Describe(const RawPartition& p) {
  std::ostringstream s;
  s << "pk " << BytesToHex(p.partition_key) << (p.reversed ? " reversed" : "")
    << (p.complete ? "" : " incomplete") << "\n header" << Describe(p.header);
  for (const RangeTombstone& rt : p.range_tombstones)
    s << "\n rt [" << BytesToHex(rt.interval.lo) << ", "
      << BytesToHex(rt.interval.hi) << ") @"
      << rt.deletion.marked_for_delete_at;
  for (const RawRow& row : p.rows) {
    s << "\n row";
    for (const std::string& v : row.clustering) s << " " << BytesToHex(v);
    s << ":" << Describe(row.fragment);
  }
  return s.str();
}
// Equal data, whichever node's TableDef each holds.
::testing::AssertionResult SameData(const RawPartition& a,
                                    const RawPartition& b) {
  RawPartition copy = b;
  copy.table = a.table;
  if (a == copy) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << Describe(a) << "\nvs\n"
                                       << Describe(b);
}

// What a read returned: live statics and rows, described.
struct LiveRead {
  std::string statics;
  std::vector<std::string> rows;
  bool operator==(const LiveRead&) const = default;
};
std::ostream& operator<<(std::ostream& os, const LiveRead& r) {
  os << "statics{" << r.statics << "} rows:";
  for (const std::string& row : r.rows) os << "\n  " << row;
  return os;
}

class RawReplicaTest : public ::testing::Test {
 protected:
  // `versions` cell versions kept; gc_grace 0 purges as soon as possible.
  void Start(int replicas, int versions, int gc_grace_seconds) {
    versions_ = versions;
    reference_ = OpenNode(versions, gc_grace_seconds);
    replicas_.clear();
    for (int i = 0; i < replicas; i++)
      replicas_.push_back(OpenNode(versions, gc_grace_seconds));
    const TableDef& t = *reference_->table;
    s_ = t.FindColumn("s")->id;
    v1_ = t.FindColumn("v1")->id;
    v2_ = t.FindColumn("v2")->id;
    order_.emplace(t);
  }

  std::unique_ptr<Node> OpenNode(int versions, int gc_grace_seconds) {
    auto node = std::make_unique<Node>();
    EngineOptions options;
    options.data_dir = node->dir.str() + "/data";
    options.memtable_bytes = 1 << 20;
    auto opened = Engine::Open(options, clock_);
    EXPECT_TRUE(opened.ok()) << opened.status().ToString();
    node->engine = std::move(opened).value();
    node->table = CreateTestTable(
        *node->engine, "t",
        {{"pk", TypeKind::kInt, ColumnKind::kPartitionKey},
         {"ck1", TypeKind::kInt, ColumnKind::kClustering},
         {"ck2", TypeKind::kVarchar, ColumnKind::kClustering, SortOrder::kDesc},
         {"s", TypeKind::kInt, ColumnKind::kStatic},
         {"v1", TypeKind::kInt},
         {"v2", TypeKind::kVarchar}},
        versions, gc_grace_seconds);
    return node;
  }

  int32_t Now() const { return clock_.NowSeconds(); }
  ReadOptions Read(bool reversed) const {
    ReadOptions o;
    o.now_seconds = Now();
    o.reversed = reversed;
    o.versions = versions_;
    return o;
  }
  int Pick(int n) { return static_cast<int>(rng_() % n); }
  // Timestamps drift upward within a window, so writes collide and arrive
  // out of order but a deletion does not shadow the whole history; they
  // strictly increase when tombstones get purged (nothing may be written
  // under those).
  int64_t Ts() { return increasing_ts_ ? ++last_ts_ : ++last_ts_ + Pick(30); }
  int Ttl() { return Pick(4) == 0 ? 1 + Pick(4) : 0; }

  std::vector<std::string> RandomCk() {
    static const char* kTexts[] = {"", "a", "b", "ba", "\xff"};
    return {Int(Pick(5) - 1), kTexts[Pick(5)]};
  }
  ClusteringBound RandomBound() {
    ClusteringBound b;
    std::vector<std::string> ck = RandomCk();
    b.prefix.assign(ck.begin(), ck.begin() + Pick(3));
    b.kind = Pick(2) ? BoundKind::kInclusive : BoundKind::kExclusive;
    return b;
  }
  ClusteringSlice RandomSlice() {
    if (Pick(3) == 0) return {};
    return {RandomBound(), RandomBound()};
  }
  Cell RandomCell(ColumnId col, int64_t ts, int ttl) {
    std::string value =
        col == v2_ ? std::string(Pick(3), static_cast<char>('x' + Pick(3)))
                   : Int(Pick(4));
    return LiveCell(col, value, ts, ttl, Now());
  }

  PartitionUpdate RandomUpdate() {
    PartitionUpdate u{reference_->table, {Int(Pick(4))}};
    const int64_t ts = Ts();
    const int ttl = Ttl();
    RowWrite row{RandomCk(), {}};
    switch (Pick(10)) {
      case 0:
      case 1:  // INSERT: marker and cells
        row.fragment.liveness = RowMarker(ts, ttl, Now());
        [[fallthrough]];
      case 2:
      case 3:  // UPDATE: cells only
        for (ColumnId col : {v1_, v2_})
          if (Pick(3) != 0)
            row.fragment.cells.push_back(RandomCell(col, ts, ttl));
        u.rows.push_back(row);
        break;
      case 4:  // DELETE one cell
        row.fragment.cells.push_back(
            CellTombstone(Pick(2) ? v1_ : v2_, ts, Now()));
        u.rows.push_back(row);
        break;
      case 5:  // DELETE a row
        row.fragment.deletion = Deletion(ts, Now());
        u.rows.push_back(row);
        break;
      case 6:  // DELETE a clustering range
        u.range_deletions.push_back(
            {RandomBound(), RandomBound(), Deletion(ts, Now())});
        break;
      case 7:
      case 8:  // static cell
        u.static_cells.push_back(Pick(4) == 0 ? CellTombstone(s_, ts, Now())
                                              : RandomCell(s_, ts, ttl));
        break;
      case 9:  // DELETE a partition (rarely)
        if (Pick(3) != 0) return RandomUpdate();
        u.partition_deletion = Deletion(ts, Now());
        break;
    }
    return u;
  }

  // Sends the update to the reference and, as a message, to a random
  // non-empty subset of the replicas (all of them with `to_all`).
  void Write(bool to_all) {
    PartitionUpdate u = RandomUpdate();
    ASSERT_TRUE(reference_->engine->Apply({u}).ok());
    std::string message;
    EncodePartitionUpdate(u, &message);
    const int n = static_cast<int>(replicas_.size());
    unsigned mask = to_all ? (1u << n) - 1 : 1 + Pick((1 << n) - 1);
    for (int i = 0; i < n; i++) {
      if (!(mask & (1u << i))) continue;
      auto decoded = DecodePartitionUpdate(message, replicas_[i]->Lookup());
      ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
      ASSERT_TRUE(replicas_[i]->engine->Apply({*decoded}).ok());
    }
  }

  // Ships `p` to a node whose table `lookup` gives, as a message.
  RawPartition Ship(const RawPartition& p, const TableLookup& lookup) {
    std::string bytes;
    EncodeRawPartition(p, &bytes);
    auto decoded = DecodeRawPartition(bytes, lookup);
    EXPECT_TRUE(decoded.ok()) << decoded.status().ToString();
    if (!decoded.ok()) return RawPartition();
    EXPECT_TRUE(SameData(*decoded, p)) << "codec round trip";
    return std::move(decoded).value();
  }

  // Whether `clustering` lies within the coverage of a raw answer.
  bool Covered(const RawPartition& p, const std::vector<std::string>& ck) {
    if (p.complete) return true;
    int c = order_->Compare(ck, p.last);
    return p.reversed ? c >= 0 : c <= 0;
  }

  LiveRead Resolve(PartitionReader* reader,
                   const RawPartition* coverage = nullptr) {
    LiveRead r{Describe(reader->static_cells()), {}};
    LiveRow row;
    while (reader->Next(&row))
      if (coverage == nullptr || Covered(*coverage, row.clustering))
        r.rows.push_back(Describe(row));
    EXPECT_TRUE(reader->status().ok());
    return r;
  }
  LiveRead LiveReadOf(Node& node, int pk, const ClusteringSlice& slice,
                      bool reversed, const RawPartition* coverage) {
    auto reader = node.engine->ReadPartition(
        *node.table, {Int(pk)}, slice.start, slice.end, Read(reversed));
    EXPECT_TRUE(reader.ok());
    return Resolve(reader->get(), coverage);
  }

  // Raw answers of every replica for one partition slice, as the
  // coordinator (whose table is the reference's) decodes them.
  std::vector<RawPartition> Answers(int pk, const ClusteringSlice& slice,
                                    size_t limit, bool reversed) {
    std::vector<RawPartition> answers;
    for (auto& node : replicas_) {
      auto raw = node->engine->ReadRaw(node->table, {Int(pk)}, slice, limit,
                                       Read(reversed));
      EXPECT_TRUE(raw.ok()) << raw.status().ToString();
      answers.push_back(Ship(*raw, reference_->Lookup()));
    }
    return answers;
  }
  static std::vector<const RawPartition*> Pointers(
      const std::vector<RawPartition>& v) {
    std::vector<const RawPartition*> out;
    for (const RawPartition& p : v) out.push_back(&p);
    return out;
  }

  // One coordinator read of a partition slice with read repair.
  void CheckRead(int pk, const ClusteringSlice& slice, size_t limit,
                 bool reversed, const std::string& context) {
    std::vector<RawPartition> answers = Answers(pk, slice, limit, reversed);
    auto merge = MergeRawPartitions(Pointers(answers));
    ASSERT_TRUE(merge.ok()) << merge.status().ToString();
    const RawPartition coverage = merge->merged;  // complete, last
    LiveRead expected = LiveReadOf(*reference_, pk, slice, reversed, &coverage);
    auto reader = NewRawPartitionReader(merge->merged, Read(reversed));
    ASSERT_EQ(Resolve(reader.get()), expected) << context << " merged";
    for (size_t i = 0; i < replicas_.size(); i++) {
      if (!merge->Stale(i)) continue;
      ++stale_answers_;
      Node& node = *replicas_[i];
      ASSERT_TRUE(
          node.engine->ApplyRaw({Ship(merge->repairs[i], node.Lookup())}).ok());
    }
    for (size_t i = 0; i < replicas_.size(); i++) {
      ASSERT_EQ(LiveReadOf(*replicas_[i], pk, slice, reversed, &coverage),
                expected)
          << context << " replica " << i << " after repair";
    }
    if (limit == kNoRowLimit) {
      std::vector<RawPartition> again = Answers(pk, slice, limit, reversed);
      auto check = MergeRawPartitions(Pointers(again));
      ASSERT_TRUE(check.ok());
      for (size_t i = 0; i < replicas_.size(); i++)
        ASSERT_FALSE(check->Stale(i))
            << context << " replica " << i << " still stale after repair";
      ASSERT_TRUE(SameData(check->merged, merge->merged)) << context;
    }
  }

  // Scan order of partitions: token, then key bytes.
  static bool PartitionBefore(const RawPartition& a, const RawPartition& b) {
    return a.token != b.token ? a.token < b.token
                              : a.partition_key < b.partition_key;
  }

  // A coordinator's scan of a token range, paged with a row limit; the
  // concatenated result must equal the reference's live scan.
  void CheckScan(TokenInterval tokens, const ClusteringSlice& slice,
                 size_t limit, bool reversed, const std::string& context) {
    std::map<std::pair<Token, std::string>, LiveRead> got;
    std::optional<RawScanPosition> after;
    for (int round = 0; round < 1000; round++) {
      std::vector<RawScan> scans;
      for (auto& node : replicas_) {
        auto scan = node->engine->ScanRaw(node->table, tokens, slice,
                                          after ? &*after : nullptr, limit,
                                          Read(reversed));
        ASSERT_TRUE(scan.ok()) << scan.status().ToString();
        for (RawPartition& p : scan->partitions)
          p = Ship(p, reference_->Lookup());
        scans.push_back(std::move(scan).value());
      }
      // The coordinator has answers up to the earliest stop position.
      const RawPartition* stop = nullptr;
      for (const RawScan& s : scans) {
        if (s.complete) continue;
        const RawPartition& p = s.partitions.back();
        if (stop == nullptr || PartitionBefore(p, *stop) ||
            (!PartitionBefore(*stop, p) && Covered(*stop, p.last) &&
             p.last != stop->last))
          stop = &p;
      }
      std::map<std::pair<Token, std::string>, std::vector<RawPartition>> by_key;
      for (const RawScan& s : scans)
        for (const RawPartition& p : s.partitions)
          if (stop == nullptr || !PartitionBefore(*stop, p))
            by_key[{p.token, p.partition_key}];
      for (auto& [key, inputs] : by_key) {
        for (const RawScan& s : scans) {
          auto it = std::find_if(s.partitions.begin(), s.partitions.end(),
                                 [&](const RawPartition& p) {
                                   return p.partition_key == key.second;
                                 });
          inputs.push_back(
              it != s.partitions.end()
                  ? *it
                  : EmptyRawPartition(reference_->table, key.second, reversed));
        }
        auto merge = MergeRawPartitions(Pointers(inputs));
        ASSERT_TRUE(merge.ok());
        auto reader = NewRawPartitionReader(merge->merged, Read(reversed));
        LiveRead part = Resolve(reader.get());
        LiveRead& acc = got[key];
        if (acc.rows.empty() && acc.statics.empty()) acc.statics = part.statics;
        acc.rows.insert(acc.rows.end(), part.rows.begin(), part.rows.end());
      }
      if (stop == nullptr) break;
      after = RawScanPosition{stop->partition_key, false, stop->last};
    }
    // The reference: every partition in the range, live rows of the slice.
    std::map<std::pair<Token, std::string>, LiveRead> want;
    auto scan =
        reference_->engine->ScanTable(*reference_->table, tokens.start,
                                      slice.start, slice.end, Read(reversed));
    ASSERT_TRUE(scan.ok());
    while ((*scan)->NextPartition()) {
      if ((*scan)->token() > tokens.end) break;
      LiveRead r{Describe((*scan)->static_cells()), {}};
      LiveRow row;
      while ((*scan)->NextRow(&row)) r.rows.push_back(Describe(row));
      if (!r.rows.empty() || !r.statics.empty())
        want[{(*scan)->token(), (*scan)->serialized_partition_key()}] = r;
    }
    std::erase_if(got, [](const auto& kv) {
      return kv.second.rows.empty() && kv.second.statics.empty();
    });
    ASSERT_EQ(got.size(), want.size()) << context;
    for (const auto& [key, read] : want) {
      ASSERT_TRUE(got.count(key)) << context;
      ASSERT_EQ(got[key], read) << context;
    }
  }

  size_t RandomLimit() {
    static const size_t kLimits[] = {1, 2, 3, 5, kNoRowLimit, kNoRowLimit};
    return kLimits[Pick(6)];
  }
  TokenInterval RandomTokens() {
    if (Pick(2) == 0) return {kMinimumToken, Token{INT64_MAX}};
    Token a{static_cast<int64_t>(rng_())}, b{static_cast<int64_t>(rng_())};
    return a < b ? TokenInterval{a, b} : TokenInterval{b, a};
  }

  void Run(uint64_t seed, int ops) {
    rng_.seed(seed);
    for (int op = 0; op < ops; op++) {
      std::string context =
          "seed " + std::to_string(seed) + " op " + std::to_string(op);
      Write(/*to_all=*/false);
      if (Pick(10) == 0) clock_.AdvanceSeconds(Pick(3));
      if (Pick(200) == 0) {
        ASSERT_TRUE(replicas_[Pick(replicas_.size())]->engine->Flush().ok());
      }
      if (op % 4 == 0) {
        CheckRead(Pick(4), RandomSlice(), RandomLimit(), Pick(2), context);
      }
      if (op % 40 == 0) {
        CheckScan(RandomTokens(), RandomSlice(), RandomLimit(), Pick(2),
                  context + " scan");
      }
      if (HasFailure()) return;
    }
  }

  ManualClock clock_{kStartMicros};
  std::unique_ptr<Node> reference_;
  std::vector<std::unique_ptr<Node>> replicas_;
  ColumnId s_ = 0, v1_ = 0, v2_ = 0;
  int versions_ = 1;
  std::optional<ClusteringOrder> order_;
  std::mt19937_64 rng_;
  bool increasing_ts_ = false;
  int64_t last_ts_ = 0;
  size_t stale_answers_ = 0;
};

int Ops(int fallback) {
  const char* ops = std::getenv("KEYWISE_OPS");
  return ops ? std::atoi(ops) : fallback;
}

TEST_F(RawReplicaTest, MergedRawReadsEqualOneEngineWithEveryWrite) {
  if (const char* seed = std::getenv("KEYWISE_SEED")) {
    Start(3, 1, 864000);
    Run(std::strtoull(seed, nullptr, 10), Ops(600));
    return;
  }
  for (uint64_t seed : {1, 2, 3}) {
    Start(3, 1, 864000);
    Run(seed, Ops(600));
    if (HasFailure()) return;
  }
  EXPECT_GT(stale_answers_, 0u) << "no read ever repaired anything";
}

TEST_F(RawReplicaTest, MultiVersionTable) {
  uint64_t seed = 11;
  if (const char* s = std::getenv("KEYWISE_SEED"))
    seed = std::strtoull(s, nullptr, 10);
  Start(2, 2, 864000);
  Run(seed, Ops(400));
}

// With gc_grace_seconds 0 raw reads leave purgeable tombstones out, as the
// compaction filter drops them: a replica that compacted and one that did
// not answer alike, and the merge still equals the live read.
TEST_F(RawReplicaTest, PurgingReplicasAgree) {
  uint64_t seed = 21;
  if (const char* s = std::getenv("KEYWISE_SEED"))
    seed = std::strtoull(s, nullptr, 10);
  increasing_ts_ = true;
  Start(2, 1, 0);
  rng_.seed(seed);
  for (int op = 0; op < Ops(600); op++) {
    std::string context =
        "seed " + std::to_string(seed) + " op " + std::to_string(op);
    Write(/*to_all=*/true);
    if (Pick(10) == 0) clock_.AdvanceSeconds(1 + Pick(3));
    if (Pick(40) == 0) {
      ASSERT_TRUE(replicas_[0]->engine->CompactAll().ok());
    }
    if (op % 4 == 0) {
      int pk = Pick(4);
      ClusteringSlice slice = RandomSlice();
      bool reversed = Pick(2);
      std::vector<RawPartition> answers =
          Answers(pk, slice, kNoRowLimit, reversed);
      ASSERT_TRUE(SameData(answers[0], answers[1])) << context;
      CheckRead(pk, slice, kNoRowLimit, reversed, context);
    }
    if (HasFailure()) return;
  }
}

}  // namespace
}  // namespace keywise
