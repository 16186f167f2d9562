// Tables the fuzz targets decode against: the few shapes that matter to
// key and row decoders (one or two partition key columns, none, one or
// two clustering columns with either order, static and collection
// columns, a materialized view), with fixed ids the seed corpus uses
// (00000000-0000-4000-8000-00000000000N, N = 1..kFuzzTableCount).
//
// Contract: header-only, for fuzz/ only; the tables are built once and
// never change.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/uuid.h"
#include "schema/cql_type.h"
#include "schema/table_def.h"

namespace keywise::fuzz {

inline constexpr int kFuzzTableCount = 4;

inline Uuid FuzzTableId(int n) {
  std::string bytes(16, '\0');
  bytes[6] = 0x40;
  bytes[8] = static_cast<char>(0x80);
  bytes[15] = static_cast<char>(n);
  return *Uuid::FromBytes(bytes);
}

struct FuzzColumn {
  const char* name;
  CqlTypePtr type;
  ColumnKind kind;
  SortOrder order = SortOrder::kAsc;
};

inline TableDefPtr MakeFuzzTable(int n, std::vector<FuzzColumn> columns,
                                 bool view = false) {
  auto def = std::make_shared<TableDef>();
  def->keyspace = "ks";
  def->name = "t" + std::to_string(n);
  def->id = FuzzTableId(n);
  def->storage_id = static_cast<TableStorageId>(n);
  int pk = 0, ck = 0;
  for (const FuzzColumn& c : columns) {
    ColumnDef col;
    col.name = c.name;
    col.type = c.type;
    col.kind = c.kind;
    col.order = c.order;
    if (c.kind == ColumnKind::kPartitionKey) col.position = pk++;
    if (c.kind == ColumnKind::kClustering) col.position = ck++;
    col.id = static_cast<ColumnId>(def->columns.size());
    def->columns.push_back(std::move(col));
  }
  def->next_column_id = static_cast<ColumnId>(def->columns.size());
  if (view) {
    auto info = std::make_shared<ViewInfo>();
    info->kind = ViewKind::kMaterializedView;
    info->base_id = FuzzTableId(1);
    info->base_name = "t1";
    def->view = info;
  }
  return def;
}

// Table n (1-based), or nullptr.
inline TableDefPtr FuzzTable(int n) {
  static const std::vector<TableDefPtr> tables = [] {
    const auto I = [](TypeKind k) { return CqlType::Of(k); };
    using K = ColumnKind;
    std::vector<TableDefPtr> t;
    // (pk int, ck int, s int static, m map<text, int>, v text), column
    // ids as the catalog gives them (keys, then the others by name): the
    // table of storage/raw_codec_test.cc, whose bytes seed the corpus.
    t.push_back(MakeFuzzTable(
        1, {{"pk", I(TypeKind::kInt), K::kPartitionKey},
            {"ck", I(TypeKind::kInt), K::kClustering},
            {"s", I(TypeKind::kInt), K::kStatic},
            {"m",
             CqlType::Map(I(TypeKind::kVarchar), I(TypeKind::kInt), false),
             K::kRegular},
            {"v", I(TypeKind::kVarchar), K::kRegular}}));
    // ((a text, b bigint), c timestamp DESC, d uuid): v list<blob>
    t.push_back(MakeFuzzTable(
        2, {{"a", I(TypeKind::kVarchar), K::kPartitionKey},
            {"b", I(TypeKind::kBigint), K::kPartitionKey},
            {"c", I(TypeKind::kTimestamp), K::kClustering, SortOrder::kDesc},
            {"d", I(TypeKind::kUuid), K::kClustering},
            {"v", CqlType::List(I(TypeKind::kBlob), false), K::kRegular}}));
    // (k blob primary key, c counter)
    t.push_back(MakeFuzzTable(3, {{"k", I(TypeKind::kBlob), K::kPartitionKey},
                                  {"c", I(TypeKind::kCounter), K::kRegular}}));
    // A view of table 1 keyed by v: (v text, pk int, ck int, s int)
    t.push_back(MakeFuzzTable(
        4,
        {{"v", I(TypeKind::kVarchar), K::kPartitionKey},
         {"pk", I(TypeKind::kInt), K::kClustering},
         {"ck", I(TypeKind::kInt), K::kClustering},
         {"x", CqlType::Tuple({I(TypeKind::kInt), I(TypeKind::kVarchar)}),
          K::kRegular}},
        true));
    return t;
  }();
  if (n < 1 || n > static_cast<int>(tables.size())) return nullptr;
  return tables[n - 1];
}

// The TableLookup of message decoders (storage/table_lookup.h).
inline TableDefPtr LookupFuzzTable(const Uuid& id) {
  for (int n = 1; n <= kFuzzTableCount; ++n) {
    if (FuzzTable(n)->id == id) return FuzzTable(n);
  }
  return nullptr;
}

}  // namespace keywise::fuzz
