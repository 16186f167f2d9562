#include "backup/schema_files.h"

#include <utility>
#include <vector>

#include "schema/system_keyspace_names.h"
#include "schema/value_codec.h"
#include "shell/describe.h"
#include "system/schema_rows.h"

namespace keywise::backup {
namespace {

// The rows of system_schema.`name` for one keyspace (its rendered
// partition), with `keep` choosing among them, as a SELECT * returns them.
template <typename Keep>
Result<shell::SchemaRows> SelectSchema(const SchemaSnapshot& schema,
                                       const system::KeyspaceRows& rendered,
                                       const std::string& keyspace,
                                       const std::string& name, Keep keep) {
  TableDefPtr def = schema.FindTable(kSchemaKeyspaceName, name);
  if (def == nullptr) {
    return Status::ServerError("system_schema." + name + " is missing");
  }
  shell::SchemaRows out;
  for (const ColumnDef& c : def->columns) {
    out.columns.push_back(client::ColumnSpec{def->keyspace, def->name, c.name, c.type});
  }
  auto it = rendered.tables.find(name);
  if (it == rendered.tables.end()) return out;
  for (const system::SchemaRow& row : it->second) {
    if (!keep(row)) continue;
    client::Row values(def->columns.size());
    for (size_t i = 0; i < def->columns.size(); ++i) {
      const ColumnDef& c = def->columns[i];
      if (c.kind == ColumnKind::kPartitionKey) {
        values[i] = EncodeText(keyspace);
      } else if (c.kind == ColumnKind::kClustering) {
        values[i] = row.clustering.at(static_cast<size_t>(c.position));
      } else {
        for (const auto& [cell, value] : row.cells) {
          if (cell == c.name) values[i] = value;
        }
      }
    }
    out.rows.push_back(std::move(values));
  }
  return out;
}

}  // namespace

Result<std::string> TableSchemaCql(const SchemaSnapshot& schema,
                                   const TableDef& table) {
  KeyspaceDefPtr keyspace = schema.FindKeyspace(table.keyspace);
  if (keyspace == nullptr || table.IsView()) {
    return Status::Invalid("No base table " + table.keyspace + "." +
                           table.name);
  }
  const system::KeyspaceRows rendered =
      system::RenderKeyspace(schema, *keyspace);
  const std::string encoded_name = EncodeText(table.name);
  auto this_table = [&](const system::SchemaRow& row) {
    return !row.clustering.empty() && row.clustering[0] == encoded_name;
  };
  auto every = [](const system::SchemaRow&) { return true; };
  KW_ASSIGN_OR_RETURN(shell::SchemaRows tables,
                      SelectSchema(schema, rendered, table.keyspace, "tables",
                                   this_table));
  if (tables.rows.empty()) {
    return Status::Invalid("No base table " + table.keyspace + "." +
                           table.name);
  }
  KW_ASSIGN_OR_RETURN(shell::SchemaRows columns,
                      SelectSchema(schema, rendered, table.keyspace, "columns",
                                   this_table));
  KW_ASSIGN_OR_RETURN(shell::SchemaRows types,
                      SelectSchema(schema, rendered, table.keyspace, "types",
                                   every));
  KW_ASSIGN_OR_RETURN(shell::SchemaRows indexes,
                      SelectSchema(schema, rendered, table.keyspace, "indexes",
                                   this_table));
  std::string out;
  for (const shell::TypeInfo& type : shell::TypesFromRows(table.keyspace, types)) {
    out += shell::CreateTypeCql(type) + "\n";
  }
  shell::TableInfo info =
      shell::TableFromRows(table.keyspace, table.name, tables, columns);
  // Cassandra's schema.cql gives the id first, so the table can be
  // recreated with it.
  info.options.insert(info.options.begin(), {"ID", table.id.ToString()});
  out += shell::CreateTableCql(info);
  // Then its secondary indexes, so that a restore creates them before it
  // loads the rows, which fill them (materialized views are not written).
  for (const shell::IndexInfo& index :
       shell::IndexesFromRows(table.keyspace, table.name, indexes)) {
    out += shell::CreateIndexCql(index);
  }
  return out;
}

Result<std::string> KeyspaceSchemaCql(const SchemaSnapshot& schema,
                                      const std::string& keyspace) {
  KeyspaceDefPtr def = schema.FindKeyspace(keyspace);
  if (def == nullptr) {
    return Status::Invalid("Keyspace " + keyspace + " does not exist");
  }
  const system::KeyspaceRows rendered = system::RenderKeyspace(schema, *def);
  KW_ASSIGN_OR_RETURN(
      shell::SchemaRows rows,
      SelectSchema(schema, rendered, keyspace, "keyspaces",
                   [](const system::SchemaRow&) { return true; }));
  if (rows.rows.empty()) {
    return Status::Invalid("Keyspace " + keyspace + " does not exist");
  }
  return shell::KeyspaceCqlFromRows(keyspace, rows);
}

}  // namespace keywise::backup
