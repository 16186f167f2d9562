#include "system/key_advice_table.h"

#include "advisor/schema_lint.h"
#include "schema/system_keyspace_names.h"
#include "schema/value_codec.h"

namespace keywise::system {

std::map<std::string, std::vector<SchemaRow>> KeyAdviceRows(
    const SchemaSnapshot& snapshot) {
  std::map<std::string, std::vector<SchemaRow>> out;
  for (const auto& [name, keyspace] : snapshot.keyspaces) {
    if (!IsSystemKeyspace(name)) out[name];
  }
  for (const auto& [key, table] : snapshot.tables) {
    auto rows = out.find(key.first);
    if (rows == out.end() || table->IsView()) continue;
    for (const advisor::LintFinding& f : advisor::LintTable(*table)) {
      SchemaRow row;
      row.clustering = {EncodeText(table->name), EncodeText(f.rule)};
      row.cells = {{"advice", EncodeText(f.text)}};
      rows->second.push_back(std::move(row));
    }
  }
  return out;
}

}  // namespace keywise::system
