#include "console/partition_token.h"

#include <string>
#include <vector>

#include "schema/cql_name.h"
#include "schema/partitioner.h"
#include "schema/value_literal.h"
#include "storage/partition_key.h"
#include "system/partition_text.h"

namespace keywise::console {

std::optional<Token> TokenOfPartitionText(const TableDef& table,
                                          std::string_view text) {
  const std::vector<const ColumnDef*> columns = table.PartitionKeyColumns();
  if (columns.empty()) return std::nullopt;
  std::vector<std::string> values;
  std::string_view rest = text;
  for (size_t i = 0; i < columns.size(); ++i) {
    const std::string prefix = CqlName(columns[i]->name) + " = ";
    if (!rest.starts_with(prefix)) return std::nullopt;
    rest.remove_prefix(prefix.size());
    std::string_view literal = rest;
    if (i + 1 < columns.size()) {
      const std::string next = " AND " + CqlName(columns[i + 1]->name) + " = ";
      const size_t at = rest.find(next);
      if (at == std::string_view::npos) return std::nullopt;
      literal = rest.substr(0, at);
      rest.remove_prefix(at + 5);  // " AND "
    }
    // Text is written as is (cqlsh's way), every other type as a literal.
    const TypeKind kind = columns[i]->type->kind();
    if (kind == TypeKind::kVarchar || kind == TypeKind::kAscii) {
      values.emplace_back(literal);
      continue;
    }
    Result<std::string> value = ParseValueLiteral(*columns[i]->type, literal);
    if (!value.ok()) return std::nullopt;
    values.push_back(std::move(*value));
  }
  if (values.size() > 1) {
    for (const std::string& v : values) {
      if (v.size() > kMaxKeyComponentSize) return std::nullopt;
    }
  }
  const std::string serialized = SerializePartitionKey(values);
  if (system::PartitionText(table, serialized) != text) return std::nullopt;
  return PartitionToken(table, serialized);
}

}  // namespace keywise::console
