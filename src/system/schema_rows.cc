#include "system/schema_rows.h"

#include "schema/partitioner.h"
#include "schema/system_keyspace_names.h"
#include "schema/value_codec.h"
#include "system/table_params.h"

namespace keywise::system {
namespace {

constexpr std::string_view kLocatorPackage = "org.apache.cassandra.locator.";

std::string TextMap(const std::map<std::string, std::string>& m) {
  std::vector<std::pair<std::string, std::string>> entries;
  for (const auto& [k, v] : m)
    entries.emplace_back(EncodeText(k), EncodeText(v));
  return EncodeMap(entries);
}

std::string BlobMap(const std::map<std::string, std::string>& m) {
  std::vector<std::pair<std::string, std::string>> entries;
  for (const auto& [k, v] : m)
    entries.emplace_back(EncodeText(k), EncodeBlob(v));
  return EncodeMap(entries);
}

// Replication as ReplicationParams.asMap(): the strategy class in full.
std::map<std::string, std::string> Replication(const KeyspaceDef& ks) {
  std::map<std::string, std::string> out = ks.replication;
  auto it = out.find("class");
  if (it != out.end() && it->second.find('.') == std::string::npos)
    it->second = std::string(kLocatorPackage) + it->second;
  return out;
}

std::string_view KindText(ColumnKind kind) {
  switch (kind) {
    case ColumnKind::kPartitionKey:
      return "partition_key";
    case ColumnKind::kClustering:
      return "clustering";
    case ColumnKind::kStatic:
      return "static";
    case ColumnKind::kRegular:
      break;
  }
  return "regular";
}

// Cassandra's ColumnMetadata.position(): the key index, -1 otherwise.
int32_t Position(const ColumnDef& c) {
  return c.IsPrimaryKey() ? c.position : -1;
}

std::string_view ClusteringOrderText(const ColumnDef& c) {
  if (c.kind != ColumnKind::kClustering) return "none";
  return c.order == SortOrder::kDesc ? "desc" : "asc";
}

SchemaRow ColumnRow(const TableDef& t, const ColumnDef& c) {
  SchemaRow row;
  row.clustering = {EncodeText(t.name), EncodeText(c.name)};
  row.cells = {
      {"clustering_order", EncodeText(ClusteringOrderText(c))},
      {"column_name_bytes", EncodeBlob(c.name)},
      {"kind", EncodeText(KindText(c.kind))},
      {"position", EncodeInt(Position(c))},
      {"type", EncodeText(ColumnTypeText(*c.type))},
  };
  return row;
}

std::vector<std::string> Flags(const TableDef& t) {
  // Frozen set elements in text order: "compound" < "counter".
  std::vector<std::string> flags = {EncodeText("compound")};
  for (const ColumnDef& c : t.columns) {
    if (c.type->kind() == TypeKind::kCounter) {
      flags.push_back(EncodeText("counter"));
      break;
    }
  }
  return flags;
}

SchemaRow TableRow(const TableDef& t) {
  TableParams p = ResolveTableParams(t.options);
  SchemaRow row;
  row.clustering = {EncodeText(t.name)};
  auto& c = row.cells;
  c.emplace_back("additional_write_policy",
                 EncodeText(p.additional_write_policy));
  c.emplace_back("bloom_filter_fp_chance",
                 EncodeDouble(p.bloom_filter_fp_chance));
  c.emplace_back("caching", TextMap(p.caching));
  if (p.cdc) c.emplace_back("cdc", EncodeBoolean(*p.cdc));
  c.emplace_back("comment", EncodeText(p.comment));
  c.emplace_back("compaction", TextMap(p.compaction));
  c.emplace_back("compression", TextMap(p.compression));
  c.emplace_back("crc_check_chance", EncodeDouble(p.crc_check_chance));
  // No longer used; left for drivers' sake (as Cassandra 4.0 writes it).
  c.emplace_back("dclocal_read_repair_chance", EncodeDouble(0.0));
  c.emplace_back("default_time_to_live", EncodeInt(p.default_time_to_live));
  // Keywise's placement options travel as extensions (drivers ignore the
  // ones they do not know); keywise shell's DESCRIBE prints them back as
  // table options.
  if (t.options.placement == PlacementKind::kRange) {
    p.extensions[std::string(kPlacementExtension)] = "range";
  }
  if (t.options.salt_buckets > 0) {
    p.extensions[std::string(kSaltBucketsExtension)] =
        std::to_string(t.options.salt_buckets);
  }
  c.emplace_back("extensions", BlobMap(p.extensions));
  c.emplace_back("flags", EncodeSet(Flags(t)));
  c.emplace_back("gc_grace_seconds", EncodeInt(p.gc_grace_seconds));
  c.emplace_back("id", EncodeUuid(t.id));
  c.emplace_back("max_index_interval", EncodeInt(p.max_index_interval));
  c.emplace_back("memtable_flush_period_in_ms",
                 EncodeInt(p.memtable_flush_period_in_ms));
  c.emplace_back("min_index_interval", EncodeInt(p.min_index_interval));
  c.emplace_back("read_repair", EncodeText(p.read_repair));
  c.emplace_back("read_repair_chance", EncodeDouble(0.0));
  c.emplace_back("speculative_retry", EncodeText(p.speculative_retry));
  return row;
}

SchemaRow DroppedColumnRow(const TableDef& t, const DroppedColumn& d) {
  SchemaRow row;
  row.clustering = {EncodeText(t.name), EncodeText(d.name)};
  row.cells = {
      {"dropped_time", EncodeTimestamp(d.dropped_at_micros / 1000)},
      // DroppedColumn does not record the kind; static columns show as
      // regular.
      {"kind", EncodeText("regular")},
      {"type", EncodeText(ColumnTypeText(*d.type))},
  };
  return row;
}

// system_schema.views: the view's table parameters plus its base and WHERE.
SchemaRow MaterializedViewRow(const TableDef& t) {
  SchemaRow row = TableRow(t);
  const ViewInfo& v = *t.view;
  row.cells.emplace_back("base_table_id", EncodeUuid(v.base_id));
  row.cells.emplace_back("base_table_name", EncodeText(v.base_name));
  row.cells.emplace_back("include_all_columns",
                         EncodeBoolean(v.include_all_columns));
  row.cells.emplace_back("where_clause", EncodeText(v.where_clause));
  return row;
}

// system_schema.indexes: Cassandra's COMPOSITES kind and target option;
// a local index's target in ScyllaDB's JSON form.
SchemaRow IndexRow(const SchemaSnapshot& snapshot, const TableDef& index) {
  const ViewInfo& v = *index.view;
  // Cassandra's IndexTarget.asCqlString: keys(m), entries(m), full(c),
  // values(c) for a non-frozen collection's values, else the bare column.
  const TableDefPtr base_table =
      snapshot.FindTable(index.keyspace, v.base_name);
  const ColumnDef* column =
      base_table != nullptr ? base_table->FindColumn(v.target_column) : nullptr;
  std::string target = v.target_column;
  switch (v.target) {
    case IndexTarget::kFull:
      target = "full(" + v.target_column + ")";
      break;
    case IndexTarget::kKeys:
      target = "keys(" + v.target_column + ")";
      break;
    case IndexTarget::kEntries:
      target = "entries(" + v.target_column + ")";
      break;
    case IndexTarget::kValues:
      if (column != nullptr && column->type->IsMultiCell()) {
        target = "values(" + v.target_column + ")";
      }
      break;
  }
  if (v.kind == ViewKind::kLocalIndex) {
    std::string pk;
    for (const ColumnDef* c : index.PartitionKeyColumns()) {
      pk += (pk.empty() ? "\"" : ",\"") + c->name + "\"";
    }
    target = "{\"pk\":[" + pk + "],\"ck\":[\"" + v.target_column + "\"]}";
  }
  SchemaRow row;
  row.clustering = {EncodeText(v.base_name), EncodeText(v.index_name)};
  row.cells = {{"kind", EncodeText("COMPOSITES")},
               {"options", TextMap({{"target", target}})}};
  return row;
}

// system_schema.types: field names and their types as CQL prints them.
SchemaRow TypeRow(const CqlType& type) {
  std::vector<std::string> names, types;
  for (size_t i = 0; i < type.params().size(); ++i) {
    names.push_back(EncodeText(type.field_names()[i]));
    types.push_back(EncodeText(ColumnTypeText(*type.params()[i])));
  }
  SchemaRow row;
  row.clustering = {EncodeText(type.udt_name())};
  row.cells = {{"field_names", EncodeList(names)},
               {"field_types", EncodeList(types)}};
  return row;
}

}  // namespace

const std::vector<std::string_view>& SchemaTableNames() {
  static const std::vector<std::string_view> names = {
      "keyspaces", "tables", "columns",   "triggers",   "dropped_columns",
      "views",     "types",  "functions", "aggregates", "indexes"};
  return names;
}

const std::vector<std::string_view>& VirtualSchemaTableNames() {
  static const std::vector<std::string_view> names = {"keyspaces", "tables",
                                                      "columns"};
  return names;
}

std::string ColumnTypeText(const CqlType& type) {
  return type.ToCql();
}

KeyspaceRows RenderKeyspace(const SchemaSnapshot& snapshot,
                            const KeyspaceDef& ks) {
  KeyspaceRows out;
  const bool is_virtual = IsVirtualSystemKeyspace(ks.name);
  out.target_keyspace =
      is_virtual ? kVirtualSchemaKeyspaceName : kSchemaKeyspaceName;
  SchemaRow ks_row;
  if (!is_virtual) {
    ks_row.cells = {{"durable_writes", EncodeBoolean(ks.durable_writes)},
                    {"replication", TextMap(Replication(ks))}};
  }
  out.tables["keyspaces"].push_back(std::move(ks_row));
  for (const CqlTypePtr& type : TypesOfKeyspace(snapshot, ks.name)) {
    out.tables["types"].push_back(TypeRow(*type));
  }
  for (const TableDefPtr& t : TablesOfKeyspace(snapshot, ks.name)) {
    if (t->IsIndexTable()) {  // hidden: shown as its index
      out.tables["indexes"].push_back(IndexRow(snapshot, *t));
      continue;
    }
    if (t->IsKeyChangeTable()) continue;  // hidden until it replaces its base
    if (t->IsMaterializedView()) {
      out.tables["views"].push_back(MaterializedViewRow(*t));
    } else if (is_virtual) {
      SchemaRow row;
      row.clustering = {EncodeText(t->name)};
      row.cells = {{"comment", EncodeText(t->options.comment)}};
      out.tables["tables"].push_back(std::move(row));
    } else {
      out.tables["tables"].push_back(TableRow(*t));
      for (const DroppedColumn& d : t->dropped_columns)
        out.tables["dropped_columns"].push_back(DroppedColumnRow(*t, d));
    }
    for (const ColumnDef& c : t->columns)
      out.tables["columns"].push_back(ColumnRow(*t, c));
  }
  return out;
}

}  // namespace keywise::system
