#include "query/exec/size_guardrails.h"

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

}  // namespace keywise::query
