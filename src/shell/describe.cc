#include "shell/describe.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <nlohmann/json.hpp>

#include "schema/partitioner.h"
#include "schema/value_codec.h"

namespace keywise::shell {
namespace {

// CQL reserved words that must be quoted as names (Cassandra 4).
constexpr std::array<std::string_view, 61> kReserved = {
    "add", "allow", "alter", "and", "apply", "asc", "authorize", "batch",
    "begin", "by", "columnfamily", "create", "default", "delete", "desc",
    "describe", "drop", "entries", "execute", "from", "full", "grant", "if",
    "in", "index", "infinity", "insert", "into", "is", "keyspace", "limit",
    "mbean", "mbeans", "modify", "nan", "norecursive", "not", "null", "of",
    "on", "or", "order", "primary", "rename", "replace", "revoke", "schema",
    "select", "set", "table", "to", "token", "truncate", "unlogged", "unset",
    "update", "use", "using", "view", "where", "with"};

bool IsPlainName(std::string_view name) {
  if (name.empty() || !std::islower(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name) {
    if (!(std::islower(static_cast<unsigned char>(c)) ||
          std::isdigit(static_cast<unsigned char>(c)) || c == '_')) {
      return false;
    }
  }
  return std::find(kReserved.begin(), kReserved.end(), name) == kReserved.end();
}

// A value of a system_schema column as a CQL literal.
std::string Literal(const CqlType& type, const std::optional<std::string>& v) {
  if (!v) return "null";
  switch (type.kind()) {
    case TypeKind::kAscii:
    case TypeKind::kVarchar:
      return QuoteString(*v);
    case TypeKind::kBoolean: {
      Result<bool> b = DecodeBoolean(*v);
      return b.ok() && *b ? "true" : "false";
    }
    case TypeKind::kMap: {
      Result<std::vector<std::pair<std::string, std::string>>> m = DecodeMap(*v);
      if (!m.ok()) return "{}";
      std::string out = "{";
      for (size_t i = 0; i < m->size(); ++i) {
        if (i > 0) out += ", ";
        out += Literal(*type.params()[0], (*m)[i].first) + ": " +
               Literal(*type.params()[1], (*m)[i].second);
      }
      return out + "}";
    }
    case TypeKind::kDouble:
    case TypeKind::kFloat: {
      std::string s = FormatValue(type, *v);
      if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
      return s;
    }
    default:
      return FormatValue(type, *v);
  }
}

// Table options Cassandra 4 prints, in its (alphabetical) order; Keywise's
// `versions` extension follows when the server has it.
constexpr std::array<std::string_view, 17> kTableOptions = {
    "additional_write_policy", "bloom_filter_fp_chance", "caching", "cdc",
    "comment", "compaction", "compression", "crc_check_chance",
    "default_time_to_live", "extensions", "gc_grace_seconds",
    "max_index_interval", "memtable_flush_period_in_ms", "min_index_interval",
    "read_repair", "speculative_retry", "versions"};

// The extensions map as a literal, less Keywise's placement entries,
// which are appended to `placement` as the table options they stand for.
std::string ExtensionsLiteral(
    const std::string& value,
    std::vector<std::pair<std::string, std::string>>* placement) {
  Result<std::vector<std::pair<std::string, std::string>>> m = DecodeMap(value);
  if (!m.ok()) return "{}";
  std::string out = "{";
  for (const auto& [key, blob] : *m) {
    if (key == kPlacementExtension) {
      placement->emplace_back("placement", QuoteString(blob));
    } else if (key == kSaltBucketsExtension) {
      placement->emplace_back("salt_buckets", blob);
    } else {
      if (out.size() > 1) out += ", ";
      out += QuoteString(key) + ": " + Literal(*CqlType::Of(TypeKind::kBlob), blob);
    }
  }
  return out + "}";
}

std::string Columnize(const std::vector<std::string>& names) {
  // cqlsh prints names two spaces apart, wrapped at 80 columns.
  std::string out, line;
  for (const std::string& n : names) {
    std::string quoted = QuoteName(n);
    if (!line.empty() && line.size() + 2 + quoted.size() > 80) {
      out += line + "\n";
      line.clear();
    }
    if (!line.empty()) line += "  ";
    line += quoted;
  }
  if (!line.empty()) out += line + "\n";
  return out;
}

}  // namespace

bool IsSystemKeyspace(std::string_view k) {
  return k == "system" || k == "system_schema" || k == "system_auth" ||
         k == "system_distributed" || k == "system_traces" ||
         k == "system_views" || k == "system_virtual_schema";
}

std::string QuoteName(std::string_view name) {
  if (IsPlainName(name)) return std::string(name);
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string QuoteString(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') out += '\'';
    out += c;
  }
  return out + "'";
}

std::string CreateKeyspaceCql(const std::string& keyspace,
                              const std::vector<std::pair<std::string, std::string>>& replication,
                              bool durable_writes) {
  std::string out = "CREATE KEYSPACE " + QuoteName(keyspace) + " WITH replication = {";
  for (size_t i = 0; i < replication.size(); ++i) {
    if (i > 0) out += ", ";
    out += QuoteString(replication[i].first) + ": " + QuoteString(replication[i].second);
  }
  out += "}  AND durable_writes = ";
  out += durable_writes ? "true" : "false";
  return out + ";\n";
}

std::string CreateTableCql(const TableInfo& t) {
  std::vector<const ColumnInfo*> pk, ck, rest;
  for (const ColumnInfo& c : t.columns) {
    if (c.kind == "partition_key") {
      pk.push_back(&c);
    } else if (c.kind == "clustering") {
      ck.push_back(&c);
    } else {
      rest.push_back(&c);
    }
  }
  auto by_position = [](const ColumnInfo* a, const ColumnInfo* b) {
    return a->position < b->position;
  };
  std::sort(pk.begin(), pk.end(), by_position);
  std::sort(ck.begin(), ck.end(), by_position);
  std::sort(rest.begin(), rest.end(),
            [](const ColumnInfo* a, const ColumnInfo* b) { return a->name < b->name; });

  std::string out = "CREATE TABLE " + QuoteName(t.keyspace) + "." + QuoteName(t.name) + " (\n";
  const bool single_key = pk.size() == 1 && ck.empty();
  auto column_line = [&](const ColumnInfo* c) {
    out += "    " + QuoteName(c->name) + " " + c->type;
    if (c->kind == "static") out += " static";
    if (single_key && c == pk[0]) out += " PRIMARY KEY";
  };
  std::vector<const ColumnInfo*> ordered = pk;
  ordered.insert(ordered.end(), ck.begin(), ck.end());
  ordered.insert(ordered.end(), rest.begin(), rest.end());
  for (size_t i = 0; i < ordered.size(); ++i) {
    column_line(ordered[i]);
    if (i + 1 < ordered.size() || !single_key) out += ",";
    out += "\n";
  }
  if (!single_key) {
    out += "    PRIMARY KEY (";
    if (pk.size() == 1) {
      out += QuoteName(pk[0]->name);
    } else {
      out += "(";
      for (size_t i = 0; i < pk.size(); ++i) {
        if (i > 0) out += ", ";
        out += QuoteName(pk[i]->name);
      }
      out += ")";
    }
    for (const ColumnInfo* c : ck) out += ", " + QuoteName(c->name);
    out += ")\n";
  }
  out += ")";
  bool first = true;
  auto option = [&](const std::string& text) {
    out += first ? " WITH " : "\n    AND ";
    first = false;
    out += text;
  };
  if (!ck.empty()) {
    std::string order = "CLUSTERING ORDER BY (";
    for (size_t i = 0; i < ck.size(); ++i) {
      if (i > 0) order += ", ";
      order += QuoteName(ck[i]->name) + (ck[i]->clustering_order == "desc" ? " DESC" : " ASC");
    }
    option(order + ")");
  }
  for (const auto& [name, literal] : t.options) option(name + " = " + literal);
  return out + ";\n";
}

std::string CreateTypeCql(const TypeInfo& type) {
  std::string out = "CREATE TYPE " + QuoteName(type.keyspace) + "." + QuoteName(type.name) + " (\n";
  for (size_t i = 0; i < type.fields.size(); ++i) {
    out += "    " + QuoteName(type.fields[i].first) + " " + type.fields[i].second;
    out += i + 1 < type.fields.size() ? ",\n" : "\n";
  }
  return out + ");\n";
}

std::string CreateIndexCql(const IndexInfo& index) {
  return "CREATE INDEX " + QuoteName(index.name) + " ON " + QuoteName(index.keyspace) +
         "." + QuoteName(index.table) + " (" + index.target + ");\n";
}

int SchemaRows::Index(std::string_view name) const {
  for (size_t i = 0; i < columns.size(); ++i) {
    if (columns[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

std::string SchemaRows::Text(const client::Row& row, std::string_view name) const {
  int i = Index(name);
  if (i < 0 || !row[i]) return "";
  return *row[i];
}

std::vector<std::string> SchemaRows::TextList(const client::Row& row,
                                              std::string_view name) const {
  int i = Index(name);
  if (i < 0 || !row[i]) return {};
  Result<std::vector<std::string>> l = DecodeList(*row[i]);
  return l.ok() ? *l : std::vector<std::string>{};
}

Result<SchemaRows> SchemaDescriber::Select(const std::string& cql) {
  SchemaRows rows;
  client::QueryParams params;
  params.page_size = 5000;
  while (true) {
    client::Reply r = session_->Query(cql, params);
    if (!r.ok()) return r.status;
    if (rows.columns.empty()) rows.columns = r.result.columns;
    for (client::Row& row : r.result.rows) rows.rows.push_back(std::move(row));
    if (!r.result.paging_state) break;
    params.paging_state = r.result.paging_state;
  }
  return rows;
}

Result<std::vector<std::string>> SchemaDescriber::KeyspaceNames() {
  KW_ASSIGN_OR_RETURN(SchemaRows r, Select("SELECT keyspace_name FROM system_schema.keyspaces"));
  std::vector<std::string> names;
  for (const client::Row& row : r.rows) names.push_back(r.Text(row, "keyspace_name"));
  return names;
}

Result<std::vector<std::string>> SchemaDescriber::TableNames(const std::string& keyspace) {
  KW_ASSIGN_OR_RETURN(SchemaRows r, Select("SELECT table_name FROM system_schema.tables WHERE keyspace_name = " +
                                     QuoteString(keyspace)));
  std::vector<std::string> names;
  for (const client::Row& row : r.rows) names.push_back(r.Text(row, "table_name"));
  return names;
}

Result<std::string> SchemaDescriber::DescribeKeyspaces() {
  KW_ASSIGN_OR_RETURN(std::vector<std::string> names, KeyspaceNames());
  return "\n" + Columnize(names) + "\n";
}

Result<std::string> SchemaDescriber::DescribeTables(const std::string& keyspace) {
  if (!keyspace.empty()) {
    KW_ASSIGN_OR_RETURN(std::vector<std::string> tables, TableNames(keyspace));
    return "\n" + Columnize(tables) + "\n";
  }
  KW_ASSIGN_OR_RETURN(std::vector<std::string> keyspaces, KeyspaceNames());
  std::string out;
  for (const std::string& k : keyspaces) {
    KW_ASSIGN_OR_RETURN(std::vector<std::string> tables, TableNames(k));
    out += "\nKeyspace " + QuoteName(k) + "\n" +
           std::string(9 + QuoteName(k).size(), '-') + "\n";
    out += tables.empty() ? "<empty>\n" : Columnize(tables);
  }
  return out + "\n";
}

TableInfo TableFromRows(const std::string& keyspace, const std::string& table,
                        const SchemaRows& t, const SchemaRows& c) {
  TableInfo info;
  info.keyspace = keyspace;
  info.name = table;
  for (const client::Row& row : c.rows) {
    ColumnInfo col;
    col.name = c.Text(row, "column_name");
    col.type = c.Text(row, "type");
    col.kind = c.Text(row, "kind");
    col.clustering_order = c.Text(row, "clustering_order");
    int pi = c.Index("position");
    if (pi >= 0 && row[pi]) {
      Result<int32_t> p = DecodeInt(*row[pi]);
      if (p.ok()) col.position = *p;
    }
    info.columns.push_back(std::move(col));
  }
  const client::Row& row = t.rows.at(0);
  std::vector<std::pair<std::string, std::string>> placement;
  for (std::string_view option : kTableOptions) {
    int i = t.Index(option);
    if (i < 0 || !row[i]) continue;
    if (option == "extensions") {
      info.options.emplace_back("extensions",
                                ExtensionsLiteral(*row[i], &placement));
      continue;
    }
    info.options.emplace_back(std::string(option), Literal(*t.columns[i].type, row[i]));
  }
  for (auto& option : placement) info.options.push_back(std::move(option));
  return info;
}

Result<TableInfo> SchemaDescriber::ReadTable(const std::string& keyspace,
                                             const std::string& table) {
  const std::string where = " WHERE keyspace_name = " + QuoteString(keyspace) +
                            " AND table_name = " + QuoteString(table);
  KW_ASSIGN_OR_RETURN(SchemaRows t, Select("SELECT * FROM system_schema.tables" + where));
  if (t.rows.empty()) {
    return Status::Invalid("'" + table + "' not found in keyspace '" + keyspace + "'");
  }
  KW_ASSIGN_OR_RETURN(SchemaRows c, Select("SELECT * FROM system_schema.columns" + where));
  return TableFromRows(keyspace, table, t, c);
}

Result<std::string> SchemaDescriber::DescribeTable(const std::string& keyspace,
                                                   const std::string& table) {
  KW_ASSIGN_OR_RETURN(TableInfo info, ReadTable(keyspace, table));
  std::string out = "\n" + CreateTableCql(info);
  Result<SchemaRows> idx = Select("SELECT * FROM system_schema.indexes WHERE keyspace_name = " +
                            QuoteString(keyspace) + " AND table_name = " + QuoteString(table));
  if (idx.ok()) {
    for (const IndexInfo& index : IndexesFromRows(keyspace, table, *idx)) {
      out += "\n" + CreateIndexCql(index);
    }
  }
  return out + "\n";
}

namespace {

// ScyllaDB's JSON form of a local index's target, {"pk":["a","b"],
// "ck":["v"]}, as CREATE INDEX takes it: ((a, b), v). Other targets as
// they are.
std::string IndexTargetCql(const std::string& target) {
  if (target.empty() || target.front() != '{') return target;
  const nlohmann::json json = nlohmann::json::parse(target, nullptr, false);
  if (json.is_discarded() || !json.is_object()) return target;
  auto names = [&](const char* key) {
    std::string out;
    auto it = json.find(key);
    if (it == json.end() || !it->is_array()) return out;
    for (const auto& name : *it) {
      if (!name.is_string()) continue;
      out += (out.empty() ? "" : ", ") + QuoteName(name.get<std::string>());
    }
    return out;
  };
  return "(" + names("pk") + "), " + names("ck");
}

}  // namespace

std::vector<IndexInfo> IndexesFromRows(const std::string& keyspace,
                                       const std::string& table,
                                       const SchemaRows& indexes) {
  std::vector<IndexInfo> out;
  const int options = indexes.Index("options");
  for (const client::Row& row : indexes.rows) {
    if (indexes.Index("table_name") >= 0 &&
        indexes.Text(row, "table_name") != table) {
      continue;
    }
    IndexInfo index{keyspace, table, indexes.Text(row, "index_name"), ""};
    if (options >= 0 && row[options]) {
      Result<std::vector<std::pair<std::string, std::string>>> m =
          DecodeMap(*row[options]);
      if (m.ok()) {
        for (const auto& [k, v] : *m) {
          if (k == "target") index.target = IndexTargetCql(v);
        }
      }
    }
    out.push_back(std::move(index));
  }
  return out;
}

std::string KeyspaceCqlFromRows(const std::string& keyspace, const SchemaRows& k) {
  const client::Row& row = k.rows.at(0);
  std::vector<std::pair<std::string, std::string>> replication;
  int ri = k.Index("replication");
  if (ri >= 0 && row[ri]) {
    Result<std::vector<std::pair<std::string, std::string>>> m = DecodeMap(*row[ri]);
    if (m.ok()) replication = *m;
  }
  bool durable = true;
  int di = k.Index("durable_writes");
  if (di >= 0 && row[di]) {
    Result<bool> b = DecodeBoolean(*row[di]);
    durable = !b.ok() || *b;
  }
  return CreateKeyspaceCql(keyspace, replication, durable);
}

Result<std::string> SchemaDescriber::DescribeKeyspace(const std::string& keyspace) {
  KW_ASSIGN_OR_RETURN(SchemaRows k, Select("SELECT * FROM system_schema.keyspaces WHERE keyspace_name = " +
                                     QuoteString(keyspace)));
  if (k.rows.empty()) {
    return Status::Invalid("'" + keyspace + "' not found in keyspaces");
  }
  std::string out = "\n" + KeyspaceCqlFromRows(keyspace, k);
  Result<std::vector<TypeInfo>> types = ReadTypes(keyspace);
  if (types.ok()) {
    for (const TypeInfo& t : *types) out += "\n" + CreateTypeCql(t);
  }
  KW_ASSIGN_OR_RETURN(std::vector<std::string> tables, TableNames(keyspace));
  for (const std::string& t : tables) {
    KW_ASSIGN_OR_RETURN(std::string table, DescribeTable(keyspace, t));
    table.pop_back();  // DescribeTable's trailing blank line
    out += table;
  }
  return out + "\n";
}

std::vector<TypeInfo> TypesFromRows(const std::string& keyspace, const SchemaRows& r) {
  std::vector<TypeInfo> pending;
  for (const client::Row& t : r.rows) {
    TypeInfo info{keyspace, r.Text(t, "type_name"), {}};
    std::vector<std::string> names = r.TextList(t, "field_names");
    std::vector<std::string> field_types = r.TextList(t, "field_types");
    for (size_t i = 0; i < names.size() && i < field_types.size(); ++i) {
      info.fields.emplace_back(names[i], field_types[i]);
    }
    pending.push_back(std::move(info));
  }
  // A type is created after the types its fields use: repeatedly take the
  // first (by name) whose fields name no type still pending.
  auto uses = [](const TypeInfo& user, const TypeInfo& used) {
    const std::string name = QuoteName(used.name);
    for (const auto& [field, type] : user.fields) {
      for (size_t at = type.find(name); at != std::string::npos; at = type.find(name, at + 1)) {
        auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
        bool starts = at == 0 || !word(type[at - 1]);
        bool ends = at + name.size() == type.size() || !word(type[at + name.size()]);
        if (starts && ends) return true;
      }
    }
    return false;
  };
  std::vector<TypeInfo> ordered;
  while (!pending.empty()) {
    size_t pick = 0;
    for (size_t i = 0; i < pending.size(); ++i) {
      bool ready = true;
      for (size_t j = 0; j < pending.size(); ++j) {
        if (j != i && uses(pending[i], pending[j])) ready = false;
      }
      if (ready) {
        pick = i;
        break;
      }
    }
    ordered.push_back(std::move(pending[pick]));
    pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(pick));
  }
  return ordered;
}

Result<std::vector<TypeInfo>> SchemaDescriber::ReadTypes(const std::string& keyspace) {
  KW_ASSIGN_OR_RETURN(SchemaRows r, Select("SELECT * FROM system_schema.types WHERE keyspace_name = " +
                                     QuoteString(keyspace)));
  return TypesFromRows(keyspace, r);
}

Result<std::string> SchemaDescriber::DescribeTypes(const std::string& keyspace) {
  KW_ASSIGN_OR_RETURN(std::vector<TypeInfo> types, ReadTypes(keyspace));
  std::string out = "\n";
  for (const TypeInfo& t : types) out += QuoteName(t.name) + " ";
  if (!types.empty()) out.pop_back();
  return out + "\n\n";
}

Result<std::string> SchemaDescriber::DescribeType(const std::string& keyspace,
                                                  const std::string& type) {
  KW_ASSIGN_OR_RETURN(std::vector<TypeInfo> types, ReadTypes(keyspace));
  for (const TypeInfo& t : types) {
    if (t.name == type) return "\n" + CreateTypeCql(t) + "\n";
  }
  return Status::Invalid("User type '" + type + "' not found in keyspace '" + keyspace + "'");
}

Result<std::string> SchemaDescriber::DescribeSchema() {
  KW_ASSIGN_OR_RETURN(std::vector<std::string> keyspaces, KeyspaceNames());
  std::string out;
  for (const std::string& k : keyspaces) {
    if (IsSystemKeyspace(k)) continue;
    KW_ASSIGN_OR_RETURN(std::string ks, DescribeKeyspace(k));
    if (!out.empty()) ks.erase(0, 1);  // one blank line between keyspaces
    out += ks;
  }
  return out.empty() ? "\n" : out;
}

}  // namespace keywise::shell
