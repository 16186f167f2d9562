#include "system/partition_text.h"

#include <vector>

#include "schema/cql_name.h"
#include "schema/value_codec.h"
#include "storage/partition_key.h"

namespace keywise::system {

std::string PartitionText(const TableDef& table,
                          const std::string& serialized) {
  const std::vector<const ColumnDef*> columns = table.PartitionKeyColumns();
  Result<std::vector<std::string>> values =
      SplitPartitionKey(serialized, columns.size());
  if (!values.ok()) return "?";
  std::string out;
  for (size_t i = 0; i < columns.size(); ++i) {
    if (!out.empty()) out += " AND ";
    out += CqlName(columns[i]->name) + " = " +
           FormatValue(*columns[i]->type, (*values)[i]);
  }
  return out;
}

}  // namespace keywise::system
