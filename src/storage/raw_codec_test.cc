// Tests of the byte formats between nodes: RawPartition
// (raw_partition_codec.h) and PartitionUpdate (partition_update_codec.h).
#include <gtest/gtest.h>

#include <random>

#include "storage/engine_test_util.h"
#include "storage/partition_update_codec.h"
#include "storage/raw_partition_codec.h"

namespace keywise {
namespace {

using testing::CreateTestTable;
using testing::Int;
using testing::Text;

std::string Hex(std::string_view bytes) {
  return BytesToHex(bytes);
}

class RawCodecTest : public testing::EngineFixture {
 protected:
  void SetUp() override {
    EngineFixture::SetUp();
    TableDefPtr created =
        CreateTestTable(*engine_, "t",
                        {{"pk", TypeKind::kInt, ColumnKind::kPartitionKey},
                         {"ck", TypeKind::kInt, ColumnKind::kClustering},
                         {"s", TypeKind::kInt, ColumnKind::kStatic},
                         {"v", TypeKind::kVarchar},
                         {"m", TypeKind::kVarchar}});
    // A fixed table id, so that encodings are reproducible.
    auto def = std::make_shared<TableDef>(*created);
    def->id = *Uuid::Parse("5a1ad000-0000-4000-8000-000000000001");
    table_ = def;
    s_ = table_->FindColumn("s")->id;
    v_ = table_->FindColumn("v")->id;
    m_ = table_->FindColumn("m")->id;
    tables_ = [t = table_](const Uuid& id) {
      return id == t->id ? t : nullptr;
    };
  }

  // INSERT INTO t (pk, ck, v) VALUES (1, 2, 'a') USING TIMESTAMP 5
  PartitionUpdate SmallInsert() {
    PartitionUpdate u{table_, {Int(1)}};
    RowWrite row{{Int(2)}, {}};
    row.fragment.liveness = RowMarker(5);
    row.fragment.cells.push_back(LiveCell(v_, Text("a"), 5));
    u.rows.push_back(row);
    return u;
  }

  PartitionUpdate FullUpdate() {
    PartitionUpdate u{table_, {Int(-7)}};
    u.partition_deletion = Deletion(100, Now());
    u.static_cells.push_back(LiveCell(s_, Int(3), 200, 60, Now()));
    u.static_cells.push_back(CellTombstone(s_, 150, Now()));
    u.range_deletions.push_back(
        {{}, {{Int(4)}, BoundKind::kExclusive}, Deletion(300, Now())});
    u.range_deletions.push_back({{{Int(9)}}, {}, Deletion(301, Now())});
    RowWrite a{{Int(1)}, {}};
    a.fragment.liveness = RowMarker(400, 10, Now());
    a.fragment.deletion = Deletion(350, Now());
    Cell element = LiveCell(m_, Text(""), 400);
    element.path = std::string("\0key", 4);
    a.fragment.cells = {LiveCell(v_, std::string("\0\xff", 2), 400), element,
                        ColumnDeletionCell(m_, 399, Now())};
    u.rows.push_back(a);
    RowWrite b{{Int(-2)}, {}};  // not normalized, not ordered: sent as is
    b.fragment.cells = {CellTombstone(v_, 500, Now()), LiveCell(v_, "z", 1)};
    u.rows.push_back(b);
    return u;
  }

  // A raw partition with every part (header, tombstones, rows, cut).
  RawPartition FullRaw() {
    PartitionUpdate u = FullUpdate();
    u.rows.erase(u.rows.begin() + 1);
    EXPECT_TRUE(engine_->Apply({u}).ok());
    PartitionUpdate more{table_, {Int(-7)}};
    for (int ck = 5; ck < 12; ck++) {
      RowWrite row{{Int(ck)}, {}};
      row.fragment.liveness = RowMarker(1000 + ck);
      more.rows.push_back(row);
    }
    EXPECT_TRUE(engine_->Apply({more}).ok());
    auto raw = engine_->ReadRaw(table_, {Int(-7)}, {}, 6, Read(true));
    EXPECT_TRUE(raw.ok());
    EXPECT_FALSE(raw->complete);
    EXPECT_TRUE(raw->reversed);
    EXPECT_FALSE(raw->header.IsEmpty());
    EXPECT_EQ(raw->range_tombstones.size(), 2u);
    return *raw;
  }

  TableDefPtr table_;
  TableLookup tables_;
  ColumnId s_ = 0, v_ = 0, m_ = 0;
};

bool SameUpdate(const PartitionUpdate& a, const PartitionUpdate& b) {
  if (a.table != b.table || a.partition_key != b.partition_key ||
      a.partition_deletion != b.partition_deletion ||
      a.static_cells != b.static_cells ||
      a.range_deletions.size() != b.range_deletions.size() ||
      a.rows.size() != b.rows.size())
    return false;
  for (size_t i = 0; i < a.range_deletions.size(); i++) {
    const RangeDeletion &x = a.range_deletions[i], &y = b.range_deletions[i];
    if (x.start.prefix != y.start.prefix || x.start.kind != y.start.kind ||
        x.end.prefix != y.end.prefix || x.end.kind != y.end.kind ||
        x.deletion != y.deletion)
      return false;
  }
  for (size_t i = 0; i < a.rows.size(); i++) {
    if (a.rows[i].clustering != b.rows[i].clustering ||
        !(a.rows[i].fragment == b.rows[i].fragment))
      return false;
  }
  return true;
}

TEST_F(RawCodecTest, PartitionUpdateBytes) {
  std::string bytes;
  EncodePartitionUpdate(SmallInsert(), &bytes);
  EXPECT_EQ(Hex(bytes),
            "20"                                // format
            "5a1ad000000040008000000000000001"  // table id
            "0400000001"                        // partition key: int 1
            "00"                                // header: none
            "00"                                // no range deletion
            "01"                                // one row:
            "010400000002"                      //   clustering: int 2
            "0a01010a000104000a0161");          //   fragment (10 bytes)
  auto decoded = DecodePartitionUpdate(bytes, tables_);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_TRUE(SameUpdate(*decoded, SmallInsert()));
}

TEST_F(RawCodecTest, PartitionUpdateRoundTrip) {
  for (const PartitionUpdate& u : {SmallInsert(), FullUpdate()}) {
    std::string bytes;
    EncodePartitionUpdate(u, &bytes);
    auto decoded = DecodePartitionUpdate(bytes, tables_);
    ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
    EXPECT_TRUE(SameUpdate(*decoded, u));
  }
  // A composite partition key travels serialized and comes back split.
  TableDefPtr composite =
      CreateTestTable(*engine_, "composite",
                      {{"a", TypeKind::kInt, ColumnKind::kPartitionKey},
                       {"b", TypeKind::kVarchar, ColumnKind::kPartitionKey},
                       {"v", TypeKind::kInt}});
  PartitionUpdate u{composite, {Int(1), Text("ab")}};
  u.partition_deletion = Deletion(1, 2);
  std::string bytes;
  EncodePartitionUpdate(u, &bytes);
  auto decoded =
      DecodePartitionUpdate(bytes, [&](const Uuid&) { return composite; });
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_TRUE(SameUpdate(*decoded, u));
}

TEST_F(RawCodecTest, RawPartitionBytes) {
  // DELETE FROM t USING TIMESTAMP 4 WHERE pk = 1 AND ck >= 1 AND ck <= 3,
  // then the insert, read raw at now = 1700000000 (0x6553f100).
  PartitionUpdate del{table_, {Int(1)}};
  del.range_deletions.push_back({{{Int(1)}}, {{Int(3)}}, Deletion(4, Now())});
  ASSERT_TRUE(engine_->Apply({del, SmallInsert()}).ok());
  auto raw = engine_->ReadRaw(table_, {Int(1)}, {}, kNoRowLimit, Read());
  ASSERT_TRUE(raw.ok());
  std::string bytes;
  EncodeRawPartition(*raw, &bytes);
  EXPECT_EQ(Hex(bytes),
            "10"                                // format
            "5a1ad000000040008000000000000001"  // table id
            "00"                                // flags: forward, complete
            "0400000001"                        // partition key: int 1
            "00"                                // header: none
            "01"                                // one range tombstone:
            "050380000001"                      //   lo: ck 1
            "050380000004"                      //   hi: after ck 3
            "0880e2cfaa06"                      //   deletion @4, 1700000000
            "01"                                // one row:
            "010400000002"                      //   clustering: int 2
            "0a01010a000104000a0161");          //   fragment (10 bytes)
  auto decoded = DecodeRawPartition(bytes, tables_);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(*decoded, *raw);
}

TEST_F(RawCodecTest, RawPartitionRoundTrip) {
  RawPartition raw = FullRaw();
  std::string bytes;
  EncodeRawPartition(raw, &bytes);
  auto decoded = DecodeRawPartition(bytes, tables_);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(*decoded, raw);
  RawPartition empty = EmptyRawPartition(table_, Int(5), false);
  bytes.clear();
  EncodeRawPartition(empty, &bytes);
  decoded = DecodeRawPartition(bytes, tables_);
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(*decoded, empty);
}

TEST_F(RawCodecTest, DecodingRestoresInvariants) {
  RawPartition p = EmptyRawPartition(table_, Int(1), false);
  p.header.deletion = Deletion(10, 1);
  RawRow shadowed{{Int(1)}, {}};
  shadowed.fragment.liveness = RowMarker(9);
  RawRow kept{{Int(2)}, {}};
  kept.fragment.cells = {LiveCell(v_, "old", 11), LiveCell(v_, "new", 12)};
  p.rows = {shadowed, kept};
  std::string bytes;
  EncodeRawPartition(p, &bytes);
  auto decoded = DecodeRawPartition(bytes, tables_);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  ASSERT_EQ(decoded->rows.size(), 1u);
  ASSERT_EQ(decoded->rows[0].fragment.cells.size(), 1u);
  EXPECT_EQ(decoded->rows[0].fragment.cells[0].value, "new");
  // Rows out of read order are refused.
  std::swap(p.rows[0], p.rows[1]);
  bytes.clear();
  EncodeRawPartition(p, &bytes);
  EXPECT_FALSE(DecodeRawPartition(bytes, tables_).ok());
}

TEST_F(RawCodecTest, VirtualCellsOnlyInMaterializedViews) {
  // A cell of a column the table does not have is refused, unless it is a
  // virtual cell (views/view_rows.h) of a materialized view's row.
  auto with_cell = [&](ColumnId column) {
    RawPartition p = EmptyRawPartition(table_, Int(1), false);
    RawRow row{{Int(1)}, {}};
    row.fragment.cells = {LiveCell(column, "", 5)};
    p.rows = {row};
    std::string bytes;
    EncodeRawPartition(p, &bytes);
    return bytes;
  };
  const ColumnId unknown = table_->next_column_id;
  EXPECT_FALSE(DecodeRawPartition(with_cell(unknown), tables_).ok());
  const std::string virtual_cell = with_cell(v_ | kVirtualColumnBit);
  EXPECT_FALSE(DecodeRawPartition(virtual_cell, tables_).ok());
  auto view = std::make_shared<TableDef>(*table_);
  view->view = std::make_shared<ViewInfo>();
  TableLookup views = [view](const Uuid&) { return view; };
  EXPECT_TRUE(DecodeRawPartition(virtual_cell, views).ok());
  EXPECT_FALSE(DecodeRawPartition(with_cell(unknown), views).ok());
}

TEST_F(RawCodecTest, UnknownTableAndFormat) {
  std::string update, raw;
  EncodePartitionUpdate(SmallInsert(), &update);
  EncodeRawPartition(EmptyRawPartition(table_, Int(1), false), &raw);
  auto none = [](const Uuid&) -> TableDefPtr { return nullptr; };
  EXPECT_EQ(DecodePartitionUpdate(update, none).status().message(),
            "Unknown table id 5a1ad000-0000-4000-8000-000000000001");
  EXPECT_EQ(DecodeRawPartition(raw, none).status().message(),
            "Unknown table id 5a1ad000-0000-4000-8000-000000000001");
  // Each decoder refuses the other's message.
  EXPECT_FALSE(DecodeRawPartition(update, tables_).ok());
  EXPECT_FALSE(DecodePartitionUpdate(raw, tables_).ok());
  EXPECT_FALSE(DecodeRawPartition("", tables_).ok());
  EXPECT_FALSE(DecodePartitionUpdate("", tables_).ok());
}

// Whatever the bytes, decoding returns an error or a value that encodes and
// decodes to itself; it never crashes (run under ASan/UBSan by
// scripts/test.sh).
class CorruptInputTest : public RawCodecTest {
 protected:
  void Check(std::string_view bytes, bool raw) {
    if (raw) {
      auto p = DecodeRawPartition(bytes, tables_);
      if (!p.ok()) return;
      ++decoded_;
      std::string again;
      EncodeRawPartition(*p, &again);
      auto q = DecodeRawPartition(again, tables_);
      ASSERT_TRUE(q.ok()) << q.status().ToString();
      ASSERT_EQ(*q, *p);
    } else {
      auto u = DecodePartitionUpdate(bytes, tables_);
      if (!u.ok()) return;
      ++decoded_;
      std::string again;
      EncodePartitionUpdate(*u, &again);
      auto v = DecodePartitionUpdate(again, tables_);
      ASSERT_TRUE(v.ok()) << v.status().ToString();
      ASSERT_TRUE(SameUpdate(*u, *v));
    }
  }
  void Mutate(const std::string& valid, bool raw) {
    for (size_t n = 0; n < valid.size(); n++) {
      EXPECT_FALSE(
          raw ? DecodeRawPartition(valid.substr(0, n), tables_).ok()
              : DecodePartitionUpdate(valid.substr(0, n), tables_).ok())
          << "prefix of " << n << " bytes decoded";
    }
    for (size_t i = 0; i < valid.size(); i++) {
      for (uint8_t x : {0x00, 0x01, 0x7f, 0x80, 0xff}) {
        std::string bytes = valid;
        bytes[i] = static_cast<char>(x);
        Check(bytes, raw);
        bytes = valid;
        bytes[i] = static_cast<char>(bytes[i] ^ x);
        Check(bytes, raw);
        if (HasFatalFailure()) return;
      }
      std::string longer = valid;
      longer.insert(i, 1, '\x01');
      Check(longer, raw);
    }
    std::mt19937_64 rng(7);
    for (int i = 0; i < 3000; i++) {
      std::string bytes = valid.substr(0, 18 + rng() % (valid.size() - 17));
      for (size_t k = 18; k < bytes.size(); k++)
        if (rng() % 4 == 0) bytes[k] = static_cast<char>(rng());
      Check(bytes, raw);
      if (HasFatalFailure()) return;
    }
  }
  int decoded_ = 0;
};

TEST_F(CorruptInputTest, PartitionUpdate) {
  std::string bytes;
  EncodePartitionUpdate(FullUpdate(), &bytes);
  Mutate(bytes, false);
  EXPECT_GT(decoded_, 0);  // some mutations are still valid updates
}

TEST_F(CorruptInputTest, RawPartition) {
  std::string bytes;
  EncodeRawPartition(FullRaw(), &bytes);
  Mutate(bytes, true);
  EXPECT_GT(decoded_, 0);
}

}  // namespace
}  // namespace keywise
