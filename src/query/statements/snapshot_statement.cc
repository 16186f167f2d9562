#include "query/statements/snapshot_statement.h"

#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "query/exec/mutation_builder.h"
#include "query/exec/snapshot_service.h"
#include "schema/system_keyspace_names.h"
#include "schema/value_codec.h"

namespace keywise::query {
namespace {

constexpr std::string_view kSnapshotsTable = "snapshots";
constexpr std::string_view kSnapshotLoadsTable = "snapshot_loads";

// What the INSERTs of one statement or batch ask for.
struct TakeRequest {
  std::string tag;
  std::set<SnapshotTarget> tables;
  CheckpointFlush flush = CheckpointFlush::kFlush;
};

Status AddTakes(const std::vector<PartitionUpdate>& updates,
                TakeRequest* request) {
  for (const PartitionUpdate& u : updates) {
    KW_ASSIGN_OR_RETURN(std::string tag, DecodeText(u.partition_key.at(0)));
    if (!request->tables.empty() && tag != request->tag) {
      return Status::Invalid(
          "A snapshot is taken for one name at a time (got " + request->tag +
          " and " + tag + ")");
    }
    request->tag = std::move(tag);
    const ColumnDef* flushed = u.table->FindColumn("flushed");
    for (const RowWrite& row : u.rows) {
      SnapshotTarget target;
      KW_ASSIGN_OR_RETURN(target.keyspace, DecodeText(row.clustering.at(0)));
      KW_ASSIGN_OR_RETURN(target.table, DecodeText(row.clustering.at(1)));
      request->tables.insert(std::move(target));
      for (const Cell& c : row.fragment.cells) {
        if (flushed == nullptr || c.column != flushed->id || c.tombstone) {
          continue;
        }
        KW_ASSIGN_OR_RETURN(bool flush, DecodeBoolean(c.value));
        if (!flush) request->flush = CheckpointFlush::kSkip;
      }
    }
  }
  return Status::OK();
}

Result<QueryResult> Take(const ExecutionContext& ctx,
                         const TakeRequest& request) {
  if (ctx.snapshots == nullptr) {
    return Status::Invalid("Snapshots cannot be taken on this node");
  }
  std::vector<SnapshotTarget> tables(request.tables.begin(),
                                     request.tables.end());
  KW_RETURN_IF_ERROR(ctx.snapshots->Take(request.tag, tables, request.flush));
  return QueryResult{VoidResult{}, {}};
}

// The statement's rows as partition updates (what it names), when the
// node has snapshots; `verb` says what it would do with them.
Result<std::vector<PartitionUpdate>> Updates(
    const ModificationStatement& statement, const ExecutionContext& ctx,
    const std::string& verb) {
  if (ctx.snapshots == nullptr) {
    return Status::Invalid("Snapshots cannot be " + verb + " on this node");
  }
  WriteParams params;
  params.timestamp = ctx.timestamps->Next();
  std::vector<PartitionUpdate> updates;
  KW_RETURN_IF_ERROR(BuildMutations(*statement.plan, ctx, params, &updates));
  return updates;
}

class SnapshotInsertStatement final : public ModificationStatement {
 public:
  bool IsQuick(const QueryOptions&) const override { return false; }
  Result<QueryResult> Execute(ExecutionContext& ctx) const override {
    return ExecuteSnapshotBatch(ctx, {BatchChild{this, ctx.options}});
  }
};

class SnapshotLoadStatement final : public ModificationStatement {
 public:
  bool IsQuick(const QueryOptions&) const override { return false; }
  Result<QueryResult> Execute(ExecutionContext& ctx) const override {
    KW_ASSIGN_OR_RETURN(std::vector<PartitionUpdate> updates,
                        Updates(*this, ctx, "loaded"));
    for (const PartitionUpdate& u : updates) {
      KW_ASSIGN_OR_RETURN(std::string dir, DecodeText(u.partition_key.at(0)));
      for (const RowWrite& row : u.rows) {
        KW_ASSIGN_OR_RETURN(std::string keyspace,
                            DecodeText(row.clustering.at(0)));
        KW_ASSIGN_OR_RETURN(std::string table, DecodeText(row.clustering.at(1)));
        KW_RETURN_IF_ERROR(ctx.snapshots->Load(dir, keyspace, table));
      }
    }
    return QueryResult{VoidResult{}, {}};
  }
};

class SnapshotDeleteStatement final : public ModificationStatement {
 public:
  bool IsQuick(const QueryOptions&) const override { return false; }
  Result<QueryResult> Execute(ExecutionContext& ctx) const override {
    KW_ASSIGN_OR_RETURN(std::vector<PartitionUpdate> updates,
                        Updates(*this, ctx, "cleared"));
    for (const PartitionUpdate& u : updates) {
      KW_ASSIGN_OR_RETURN(std::string tag, DecodeText(u.partition_key.at(0)));
      std::string keyspace;
      if (u.partition_deletion.IsLive()) {
        // WHERE name = ... AND keyspace_name = ...: a range deletion of
        // that keyspace's rows; finer deletions are not supported.
        if (u.range_deletions.size() != 1 || !u.rows.empty() ||
            u.range_deletions[0].start.prefix.size() != 1) {
          return Status::Invalid(
              "Snapshots are cleared by name, or by name and keyspace_name");
        }
        KW_ASSIGN_OR_RETURN(
            keyspace, DecodeText(u.range_deletions[0].start.prefix[0]));
      }
      KW_RETURN_IF_ERROR(ctx.snapshots->Clear(tag, keyspace));
    }
    return QueryResult{VoidResult{}, {}};
  }
};

}  // namespace

bool IsSnapshotsTable(const TableDef& table) {
  return table.keyspace == kViewsKeyspaceName && table.name == kSnapshotsTable;
}

bool IsSnapshotLoadsTable(const TableDef& table) {
  return table.keyspace == kViewsKeyspaceName &&
         table.name == kSnapshotLoadsTable;
}

Result<std::shared_ptr<ModificationStatement>> PrepareSnapshotInsert(
    const TableDefPtr& table, std::shared_ptr<const WritePlan> plan) {
  if (plan->conditions.any()) {
    return Status::Invalid(
        "Conditional updates are not supported by table system_views." +
        table->name);
  }
  if (IsSnapshotLoadsTable(*table)) {
    auto out = std::make_shared<SnapshotLoadStatement>();
    out->table = table;
    out->plan = std::move(plan);
    return std::shared_ptr<ModificationStatement>(std::move(out));
  }
  auto out = std::make_shared<SnapshotInsertStatement>();
  out->table = table;
  out->plan = std::move(plan);
  return std::shared_ptr<ModificationStatement>(std::move(out));
}

Result<std::shared_ptr<ModificationStatement>> PrepareSnapshotDelete(
    const TableDefPtr& table, std::shared_ptr<const WritePlan> plan) {
  if (plan->conditions.any()) {
    return Status::Invalid(
        "Conditional updates are not supported by table "
        "system_views.snapshots");
  }
  auto out = std::make_shared<SnapshotDeleteStatement>();
  out->table = table;
  out->plan = std::move(plan);
  return std::shared_ptr<ModificationStatement>(std::move(out));
}

bool IsSnapshotInsert(const ModificationStatement& statement) {
  return dynamic_cast<const SnapshotInsertStatement*>(&statement) != nullptr;
}

Result<QueryResult> ExecuteSnapshotBatch(
    const ExecutionContext& ctx, const std::vector<BatchChild>& children) {
  TakeRequest request;
  WriteParams params;
  params.timestamp = ctx.timestamps->Next();
  for (const BatchChild& child : children) {
    ExecutionContext child_ctx = ctx;
    child_ctx.options = child.options;
    std::vector<PartitionUpdate> updates;
    KW_RETURN_IF_ERROR(
        BuildMutations(*child.statement->plan, child_ctx, params, &updates));
    KW_RETURN_IF_ERROR(AddTakes(updates, &request));
  }
  if (request.tables.empty()) {
    return Status::Invalid("No table named for the snapshot");
  }
  return Take(ctx, request);
}

}  // namespace keywise::query
