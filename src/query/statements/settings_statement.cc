#include "query/statements/settings_statement.h"

#include <string>
#include <utility>
#include <vector>

#include "query/exec/mutation_builder.h"
#include "query/exec/settings_service.h"
#include "query/statements/snapshot_statement.h"
#include "schema/system_keyspace_names.h"
#include "schema/value_codec.h"

namespace keywise::query {
namespace {

constexpr std::string_view kSettingsTable = "settings";

bool IsSettingsTable(const TableDef& table) {
  return table.keyspace == kViewsKeyspaceName && table.name == kSettingsTable;
}

class SettingsUpdateStatement final : public ModificationStatement {
 public:
  Result<QueryResult> Execute(ExecutionContext& ctx) const override {
    if (plan->conditions.any()) {
      return Status::Invalid(
          "Conditional updates are not supported by table "
          "system_views.settings");
    }
    WriteParams params;
    params.timestamp = ctx.timestamps->Next();
    std::vector<PartitionUpdate> updates;
    KW_RETURN_IF_ERROR(BuildMutations(*plan, ctx, params, &updates));
    if (updates.size() != 1) {
      return Status::Invalid(
          "UPDATE system_views.settings changes one setting at a time "
          "(WHERE name = '...')");
    }
    const PartitionUpdate& u = updates[0];
    KW_ASSIGN_OR_RETURN(std::string name, DecodeText(u.partition_key[0]));
    const ColumnDef* value_column = table->FindColumn("value");
    std::optional<std::string> value;
    for (const RowWrite& row : u.rows) {
      for (const Cell& c : row.fragment.cells) {
        if (value_column == nullptr || c.column != value_column->id) continue;
        if (c.tombstone) {
          return Status::Invalid("The value of setting '" + name +
                                 "' cannot be null");
        }
        KW_ASSIGN_OR_RETURN(value, DecodeText(c.value));
      }
    }
    if (!value) {
      return Status::Invalid(
          "UPDATE system_views.settings must set the value (SET value = "
          "'...')");
    }
    if (ctx.settings == nullptr) {
      return Status::Invalid("Settings cannot be changed on this node");
    }
    KW_RETURN_IF_ERROR(ctx.settings->Set(name, *value));
    return QueryResult{VoidResult{}, {}};
  }
};

}  // namespace

Status VirtualModificationError(const TableDef& table) {
  return Status::Invalid("Modification is not supported by table " +
                         table.keyspace + "." + table.name);
}

bool AcceptsVirtualWrite(const TableDef& table, VirtualWrite kind) {
  if (IsSettingsTable(table)) return kind == VirtualWrite::kUpdate;
  if (IsSnapshotsTable(table)) return kind != VirtualWrite::kUpdate;
  if (IsSnapshotLoadsTable(table)) return kind == VirtualWrite::kInsert;
  return false;
}

Result<std::shared_ptr<ModificationStatement>> PrepareVirtualWrite(
    const TableDefPtr& table, VirtualWrite kind,
    std::shared_ptr<const WritePlan> plan) {
  if (!AcceptsVirtualWrite(*table, kind)) {
    return VirtualModificationError(*table);
  }
  if (kind == VirtualWrite::kInsert) {
    return PrepareSnapshotInsert(table, std::move(plan));
  }
  if (kind == VirtualWrite::kDelete) {
    return PrepareSnapshotDelete(table, std::move(plan));
  }
  auto out = std::make_shared<SettingsUpdateStatement>();
  out->table = table;
  out->plan = std::move(plan);
  return std::shared_ptr<ModificationStatement>(std::move(out));
}

}  // namespace keywise::query
