#include "system/query_shapes_table.h"

#include "schema/value_codec.h"

namespace keywise::system {

std::map<std::string, std::vector<SchemaRow>> QueryShapesRows(
    const TableLookup& tables,
    const std::vector<advisor::ShapeStats>& shapes) {
  auto ms = [](double micros) { return EncodeDouble(micros / 1000.0); };
  std::map<std::string, std::vector<SchemaRow>> out;
  for (const advisor::ShapeStats& s : shapes) {
    const TableDefPtr found = tables(s.table);
    if (found == nullptr || s.executions == 0) continue;  // dropped since
    const TableDef& table = *found;
    SchemaRow row;
    row.clustering = {EncodeText(table.name), EncodeText(s.shape)};
    row.cells = {
        {"access", EncodeText(s.access)},
        {"executions", EncodeBigint(static_cast<int64_t>(s.executions))},
        {"rows_read", EncodeBigint(static_cast<int64_t>(s.rows_read))},
        {"rows_returned", EncodeBigint(static_cast<int64_t>(s.rows_returned))},
        {"mean_latency_ms", ms(static_cast<double>(s.total_micros) /
                               static_cast<double>(s.executions))},
        {"p50_latency_ms", ms(static_cast<double>(s.p50_micros))},
        {"p99_latency_ms", ms(static_cast<double>(s.p99_micros))}};
    out[table.keyspace].push_back(std::move(row));
  }
  return out;
}

}  // namespace keywise::system
