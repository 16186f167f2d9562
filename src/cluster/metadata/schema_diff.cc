#include "cluster/metadata/schema_diff.h"

namespace keywise::cluster {
namespace {

query::SchemaChangeResult Change(const char* change, const char* target,
                                 const std::string& keyspace,
                                 const std::string& name) {
  return query::SchemaChangeResult{change, target, keyspace, name, {}};
}

std::string Encoded(const TableDef& table) {
  std::string out;
  EncodeTableDef(table, &out);
  return out;
}

}  // namespace

std::vector<query::SchemaChangeResult> SchemaChanges(
    const SchemaSnapshot& before, const SchemaSnapshot& after) {
  std::vector<query::SchemaChangeResult> out;
  for (const auto& [name, ks] : after.keyspaces) {
    KeyspaceDefPtr old = before.FindKeyspace(name);
    if (old == nullptr) {
      out.push_back(Change("CREATED", "KEYSPACE", name, ""));
    } else if (old->replication != ks->replication ||
               old->durable_writes != ks->durable_writes) {
      out.push_back(Change("UPDATED", "KEYSPACE", name, ""));
    }
  }
  for (const auto& [name, ks] : before.keyspaces) {
    if (after.FindKeyspace(name) == nullptr) {
      out.push_back(Change("DROPPED", "KEYSPACE", name, ""));
    }
  }
  for (const auto& [key, table] : after.tables) {
    TableDefPtr old = before.FindTable(key.first, key.second);
    if (old == nullptr || old->id != table->id) {
      if (old != nullptr) {
        out.push_back(Change("DROPPED", "TABLE", key.first, key.second));
      }
      out.push_back(Change("CREATED", "TABLE", key.first, key.second));
    } else if (Encoded(*old) != Encoded(*table)) {
      out.push_back(Change("UPDATED", "TABLE", key.first, key.second));
    }
  }
  for (const auto& [key, table] : before.tables) {
    if (after.FindTable(key.first, key.second) == nullptr &&
        after.FindKeyspace(key.first) != nullptr) {
      out.push_back(Change("DROPPED", "TABLE", key.first, key.second));
    }
  }
  return out;
}

}  // namespace keywise::cluster
