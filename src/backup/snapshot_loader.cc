#include "backup/snapshot_loader.h"

#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <memory>
#include <utility>
#include <vector>

namespace keywise::backup {
namespace {

constexpr size_t kLoadRows = 1000;

// Whether the two tables' primary keys have the same columns, types and
// orders (so keys and tombstone intervals mean the same in both).
bool SameKey(const TableDef& a, const TableDef& b) {
  auto key = [](const TableDef& t) {
    std::vector<const ColumnDef*> out = t.PartitionKeyColumns();
    for (const ColumnDef* c : t.ClusteringColumns()) out.push_back(c);
    return out;
  };
  const std::vector<const ColumnDef*> ka = key(a), kb = key(b);
  if (ka.size() != kb.size() ||
      a.PartitionKeyColumns().size() != b.PartitionKeyColumns().size()) {
    return false;
  }
  for (size_t i = 0; i < ka.size(); ++i) {
    if (ka[i]->name != kb[i]->name || ka[i]->order != kb[i]->order ||
        ka[i]->type->ToCql() != kb[i]->type->ToCql()) {
      return false;
    }
  }
  return true;
}

// Source column id -> target column id, by name.
using ColumnMap = std::map<ColumnId, ColumnId>;

ColumnMap MapColumns(const TableDef& source, const TableDef& target) {
  ColumnMap out;
  for (const ColumnDef& c : source.columns) {
    if (const ColumnDef* t = target.FindColumn(c.name)) out[c.id] = t->id;
  }
  return out;
}

void Remap(const ColumnMap& columns, RowFragment* fragment) {
  std::vector<Cell> cells;
  cells.reserve(fragment->cells.size());
  for (Cell& c : fragment->cells) {
    auto it = columns.find(c.column);
    if (it == columns.end()) continue;
    c.column = it->second;
    cells.push_back(std::move(c));
  }
  fragment->cells = std::move(cells);
}

}  // namespace

Result<LoadCounts> LoadTable(Engine& source, Engine& target,
                             const RawWriter& write,
                             const std::string& keyspace,
                             const std::string& table) {
  TableDefPtr from = source.catalog().snapshot()->FindTable(keyspace, table);
  if (from == nullptr) {
    return Status::Invalid("The snapshot has no table " + keyspace + "." +
                           table);
  }
  TableDefPtr to = target.catalog().snapshot()->FindTable(keyspace, table);
  if (to == nullptr) {
    return Status::Invalid("Table " + keyspace + "." + table +
                           " does not exist; create it first");
  }
  if (!SameKey(*from, *to)) {
    return Status::Invalid("The primary key of " + keyspace + "." + table +
                           " differs from the snapshot's");
  }
  const ColumnMap columns = MapColumns(*from, *to);
  ReadOptions options;
  options.now_seconds = static_cast<int32_t>(source.clock().NowSeconds());
  const TokenInterval all{kMinimumToken,
                          Token{std::numeric_limits<int64_t>::max()}};
  LoadCounts counts;
  std::optional<RawScanPosition> after;
  while (true) {
    KW_ASSIGN_OR_RETURN(
        RawScan scan,
        source.ScanRaw(from, all, ClusteringSlice{},
                       after ? &*after : nullptr, kLoadRows, options));
    std::optional<RawScanPosition> next;
    if (!scan.complete) next = scan.resume_after();
    std::vector<RawPartition> batch;
    for (RawPartition& p : scan.partitions) {
      p.table = to;
      Remap(columns, &p.header);
      for (RawRow& row : p.rows) Remap(columns, &row.fragment);
      counts.rows += p.rows.size();
      // A partition cut at the row limit is counted once, when it ends.
      if (p.complete) ++counts.partitions;
      batch.push_back(std::move(p));
    }
    if (!batch.empty()) KW_RETURN_IF_ERROR(write(batch));
    if (!next) break;
    after = std::move(next);
  }
  return counts;
}

Result<LoadCounts> LoadTableFromCheckpoint(const std::string& checkpoint_dir,
                                           Engine& target,
                                           const RawWriter& write,
                                           const std::string& keyspace,
                                           const std::string& table) {
  std::error_code ec;
  if (!std::filesystem::is_directory(checkpoint_dir, ec)) {
    return Status::Invalid("No snapshot checkpoint in " + checkpoint_dir);
  }
  EngineOptions options;
  options.data_dir = checkpoint_dir;
  options.read_only = true;
  options.statistics = false;
  options.block_cache_bytes = 8 << 20;
  KW_ASSIGN_OR_RETURN(std::unique_ptr<Engine> source,
                      Engine::Open(options, target.clock()));
  return LoadTable(*source, target, write, keyspace, table);
}

}  // namespace keywise::backup
