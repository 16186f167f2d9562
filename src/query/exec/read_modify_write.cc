#include "query/exec/read_modify_write.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "protocol/consistency.h"
#include "query/exec/cas_path.h"
#include "query/exec/mutation_builder.h"
#include "query/exec/size_guardrails.h"
#include "storage/clustering_slice.h"
#include "storage/partition_key.h"

namespace keywise::query {
namespace {

// The rows of one partition that a statement or batch updates.
struct PartitionRows {
  const TableDef* table = nullptr;
  std::vector<std::string> key;
  std::vector<std::vector<std::string>> rows;  // full clusterings
};

}  // namespace

Result<QueryResult> ExecuteReadModifyWrite(
    const ExecutionContext& ctx,
    const std::vector<ConditionalStatement>& statements, bool is_batch,
    std::optional<int64_t> timestamp, bool logged_batch) {
  if (ctx.cas == nullptr) {
    return Status::ServerError("This node has no path for read-modify-writes");
  }
  const Consistency cl = ctx.options->consistency;
  if (cl == Consistency::kSerial || cl == Consistency::kLocalSerial) {
    return Status::Invalid(
        "You must use conditional updates for serializable writes");
  }
  // The partitions in the order first named, each with its rows.
  std::vector<PartitionRows> partitions;
  std::map<std::string, size_t> index;
  for (const ConditionalStatement& s : statements) {
    const EvalContext eval{s.options, ctx.now_micros};
    const WritePlan& plan = *s.plan;
    KW_ASSIGN_OR_RETURN(auto keys, plan.where->BindPartitionKeys(eval));
    std::vector<std::vector<std::string>> clusterings;
    if (plan.target == WriteTarget::kRows) {
      KW_ASSIGN_OR_RETURN(clusterings, plan.where->BindClusterings(eval));
    }
    ClusteringOrder order(*plan.table);
    for (auto& key : keys) {
      const std::string id = std::to_string(plan.table->storage_id) + ":" +
                             SerializePartitionKey(key);
      auto [it, added] = index.try_emplace(id, partitions.size());
      if (added) partitions.push_back(PartitionRows{plan.table.get(), key, {}});
      PartitionRows& p = partitions[it->second];
      for (const auto& c : clusterings) {
        if (std::none_of(p.rows.begin(), p.rows.end(), [&](const auto& r) {
              return order.Compare(r, c) == 0;
            })) {
          p.rows.push_back(c);
        }
      }
    }
  }
  if (logged_batch && partitions.size() > 1) {
    return Status::Invalid(
        "List operations that read the list (l[i] = v, DELETE l[i], l = l - "
        "[...]) are not supported in a logged batch over several partitions");
  }
  WriteOptions options;
  options.consistency = cl;
  options.type = is_batch ? WriteType::kBatch : WriteType::kSimple;
  options.trace = ctx.trace;
  const bool local = cl == Consistency::kLocalQuorum ||
                     cl == Consistency::kLocalOne;
  std::vector<PartitionUpdate> written;
  static const std::vector<Cell> kNone;
  for (const PartitionRows& p : partitions) {
    // What the round read, then each statement's writes in turn, so that
    // two list operations on one row see each other.
    CasSnapshot seen;
    CasRequest request;
    request.table = p.table;
    request.partition_key = p.key;
    request.rows = p.rows;
    request.now_seconds = ctx.now_seconds;
    request.serial = local ? Consistency::kLocalSerial : Consistency::kSerial;
    request.decide = [&](const CasSnapshot& now) -> Result<bool> {
      seen = now;
      return true;
    };
    ClusteringOrder order(*p.table);
    request.build =
        [&](int64_t round_timestamp) -> Result<std::vector<PartitionUpdate>> {
      WriteParams params;
      params.timestamp = timestamp ? *timestamp : round_timestamp;
      // The partition's cells as updated so far: index 0 the static row,
      // i + 1 row p.rows[i].
      std::vector<std::vector<Cell>> cells(p.rows.size() + 1);
      cells[0] = seen.statics;
      for (size_t i = 0; i < p.rows.size(); ++i) {
        if (seen.rows[i]) cells[i + 1] = seen.rows[i]->cells;
      }
      auto slot = [&](const std::vector<std::string>& clustering,
                      bool static_row) -> std::vector<Cell>* {
        if (static_row) return &cells[0];
        for (size_t i = 0; i < p.rows.size(); ++i) {
          if (order.Compare(p.rows[i], clustering) == 0) return &cells[i + 1];
        }
        return nullptr;
      };
      params.current = [&](const std::vector<std::string>& key,
                           const std::vector<std::string>& clustering,
                           bool static_row) -> const std::vector<Cell>* {
        if (key != p.key) return nullptr;  // another round's partition
        const std::vector<Cell>* found = slot(clustering, static_row);
        return found != nullptr ? found : &kNone;
      };
      // Folds written cells into `into`: a column's new cell replaces its
      // old one.
      auto fold = [](const std::vector<Cell>& written, std::vector<Cell>* into) {
        for (const Cell& c : written) {
          auto same = [&](const Cell& o) {
            return o.column == c.column && o.path == c.path;
          };
          into->erase(std::remove_if(into->begin(), into->end(), same),
                      into->end());
          into->push_back(c);
        }
      };
      // One update of the partition: every row's and the static row's last
      // cells for each column.
      PartitionUpdate merged;
      merged.table = statements.front().plan->table;
      merged.partition_key = p.key;
      for (const ConditionalStatement& s : statements) {
        ExecutionContext child = ctx;
        child.options = s.options;
        std::vector<PartitionUpdate> built;
        KW_RETURN_IF_ERROR(BuildMutations(*s.plan, child, params, &built));
        for (PartitionUpdate& u : built) {
          if (u.table->storage_id != p.table->storage_id ||
              u.partition_key != p.key) {
            continue;
          }
          merged.table = u.table;
          fold(u.static_cells, &cells[0]);
          fold(u.static_cells, &merged.static_cells);
          if (!u.partition_deletion.IsLive()) {
            merged.partition_deletion = u.partition_deletion;
          }
          for (RangeDeletion& r : u.range_deletions) {
            merged.range_deletions.push_back(std::move(r));
          }
          for (RowWrite& row : u.rows) {
            if (std::vector<Cell>* now = slot(row.clustering, false)) {
              fold(row.fragment.cells, now);
            }
            auto it = std::find_if(
                merged.rows.begin(), merged.rows.end(), [&](const RowWrite& r) {
                  return order.Compare(r.clustering, row.clustering) == 0;
                });
            if (it == merged.rows.end()) {
              merged.rows.push_back(std::move(row));
            } else {
              fold(row.fragment.cells, &it->fragment.cells);
              if (!row.fragment.deletion.IsLive()) {
                it->fragment.deletion = row.fragment.deletion;
              }
            }
          }
        }
      }
      return std::vector<PartitionUpdate>{std::move(merged)};
    };
    KW_ASSIGN_OR_RETURN(CasOutcome outcome, ctx.cas->Execute(request, options));
    for (PartitionUpdate& u : outcome.written) written.push_back(std::move(u));
  }
  QueryResult result{VoidResult{}, {}};
  result.warnings = SizeWarnings(written, ctx.size_guardrails);
  for (std::string& w : CountWrites(ctx, written)) {
    result.warnings.push_back(std::move(w));
  }
  return result;
}

}  // namespace keywise::query
