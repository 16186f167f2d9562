#include "query/exec/size_guardrails.h"

#include <cstdio>
#include <set>
#include <utility>

#include "schema/cql_name.h"

namespace keywise::query {
namespace {

std::string Table(const TableDef& t) {
  return CqlName(t.keyspace) + "." + CqlName(t.name);
}

std::string Kb(int64_t bytes) {
  return std::to_string(bytes / 1024) + " KB";
}

}  // namespace

int64_t UpdateDataSize(const PartitionUpdate& u) {
  int64_t size = 0;
  for (const std::string& k : u.partition_key) {
    size += static_cast<int64_t>(k.size());
  }
  for (const Cell& c : u.static_cells) {
    size += static_cast<int64_t>(c.value.size() + c.path.size()) + 8;
  }
  for (const RowWrite& row : u.rows) {
    for (const std::string& c : row.clustering) {
      size += static_cast<int64_t>(c.size());
    }
    if (!row.fragment.liveness.IsEmpty()) size += 8;
    for (const Cell& c : row.fragment.cells) {
      size += static_cast<int64_t>(c.value.size() + c.path.size()) + 8;
    }
  }
  return size;
}

std::vector<std::string> SizeWarnings(const std::vector<PartitionUpdate>& updates,
                                      const SizeGuardrails& limits) {
  std::vector<std::string> out;
  bool key_warned = limits.key_value_bytes <= 0;
  bool row_warned = limits.row_bytes <= 0;
  for (const PartitionUpdate& u : updates) {
    if (key_warned && row_warned) break;
    const TableDef& t = *u.table;
    const std::vector<const ColumnDef*> pk = t.PartitionKeyColumns();
    const std::vector<const ColumnDef*> ck = t.ClusteringColumns();
    auto check_key = [&](const ColumnDef* column, const std::string& value) {
      if (key_warned || static_cast<int64_t>(value.size()) <=
                            limits.key_value_bytes) {
        return;
      }
      key_warned = true;
      out.push_back(
          "Key value of column " + CqlName(column->name) + " in " + Table(t) +
          " is " + std::to_string(value.size()) +
          " bytes, over key_value_size_warn_threshold_in_kb (" +
          Kb(limits.key_value_bytes) +
          "): it is repeated in every row key, index entry and replica "
          "message (keys over 65,535 bytes are refused). Keep key values "
          "short, or key by a number (docs/advisor.md).");
    };
    int64_t key_bytes = 0;
    for (size_t i = 0; i < u.partition_key.size() && i < pk.size(); ++i) {
      check_key(pk[i], u.partition_key[i]);
      key_bytes += static_cast<int64_t>(u.partition_key[i].size());
    }
    for (const RowWrite& row : u.rows) {
      int64_t bytes = key_bytes;
      for (size_t i = 0; i < row.clustering.size() && i < ck.size(); ++i) {
        check_key(ck[i], row.clustering[i]);
        bytes += static_cast<int64_t>(row.clustering[i].size());
      }
      for (const Cell& c : row.fragment.cells) {
        bytes += static_cast<int64_t>(c.value.size() + c.path.size());
      }
      if (!row_warned && bytes > limits.row_bytes) {
        row_warned = true;
        out.push_back(
            "A row of " + Table(t) + " written with " +
            std::to_string(bytes) +
            " bytes of keys and values, over row_size_warn_threshold_in_kb "
            "(" + Kb(limits.row_bytes) +
            "): a row is read, repaired and replicated whole. Split it into "
            "rows of a clustering column (docs/advisor.md).");
      }
    }
  }
  return out;
}

namespace {

// Cassandra's FBUtilities.prettyPrintMemory.
std::string Memory(int64_t bytes) {
  char buf[64];
  if (bytes >= (int64_t{1} << 30)) {
    std::snprintf(buf, sizeof buf, "%.3fGiB", bytes / double(int64_t{1} << 30));
  } else if (bytes >= (int64_t{1} << 20)) {
    std::snprintf(buf, sizeof buf, "%.3fMiB", bytes / double(int64_t{1} << 20));
  } else if (bytes >= 1024) {
    std::snprintf(buf, sizeof buf, "%.3fKiB", bytes / 1024.0);
  } else {
    std::snprintf(buf, sizeof buf, "%lldB", static_cast<long long>(bytes));
  }
  return buf;
}

}  // namespace

Status CheckBatchSize(const std::vector<PartitionUpdate>& updates,
                      const SizeGuardrails& limits,
                      std::vector<std::string>* warnings) {
  if (limits.batch_warn_bytes <= 0 && limits.batch_fail_bytes <= 0) {
    return Status::OK();
  }
  std::set<std::pair<std::string, std::vector<std::string>>> partitions;
  std::set<std::string> tables;
  int64_t size = 0;
  for (const PartitionUpdate& u : updates) {
    partitions.emplace(u.table->keyspace, u.partition_key);
    tables.insert(u.table->keyspace + "." + u.table->name);
    size += UpdateDataSize(u);
  }
  // One partition (Cassandra: one mutation) is never checked.
  if (partitions.size() <= 1) return Status::OK();
  const bool fail = limits.batch_fail_bytes > 0 && size > limits.batch_fail_bytes;
  if (fail) return Status::Invalid("Batch too large");
  if (limits.batch_warn_bytes <= 0 || size <= limits.batch_warn_bytes) {
    return Status::OK();
  }
  std::string names;
  for (const std::string& t : tables) names += (names.empty() ? "" : ", ") + t;
  warnings->push_back("Batch for [" + names + "] is of size " + Memory(size) +
                      ", exceeding specified threshold of " +
                      Memory(limits.batch_warn_bytes) + " by " +
                      Memory(size - limits.batch_warn_bytes) +
                      ". (see batch_size_fail_threshold_in_kb)");
  return Status::OK();
}

}  // namespace keywise::query
