#include "schema/schema_snapshot.h"

#include "common/coding.h"

namespace keywise {
namespace {

// Version 2 added the view info after each table, version 3 the placement
// after that, version 4 the user types; older versions are still read.
constexpr uint8_t kFormatVersion = 4;
constexpr uint64_t kMaxCount = 1 << 24;

void PutStringMap(std::string* out,
                  const std::map<std::string, std::string>& m) {
  PutVarint64(out, m.size());
  for (const auto& [k, v] : m) {
    PutLengthPrefixed(out, k);
    PutLengthPrefixed(out, v);
  }
}

// Decoding helpers: each returns false on malformed input.
bool GetString(std::string_view* in, std::string* s) {
  std::string_view v;
  if (!GetLengthPrefixed(in, &v)) return false;
  *s = v;
  return true;
}
bool GetCount(std::string_view* in, uint64_t* n) {
  return GetVarint64(in, n) && *n <= kMaxCount && *n <= in->size();
}
bool GetU32(std::string_view* in, uint32_t* v) {
  uint64_t x;
  if (!GetVarint64(in, &x) || x > UINT32_MAX) return false;
  *v = static_cast<uint32_t>(x);
  return true;
}
bool GetI32(std::string_view* in, int32_t* v) {
  int64_t x;
  if (!GetVarsint64(in, &x) || x < INT32_MIN || x > INT32_MAX) return false;
  *v = static_cast<int32_t>(x);
  return true;
}
bool GetStringMap(std::string_view* in, std::map<std::string, std::string>* m) {
  uint64_t n;
  if (!GetCount(in, &n)) return false;
  for (uint64_t i = 0; i < n; i++) {
    std::string k, v;
    if (!GetString(in, &k) || !GetString(in, &v)) return false;
    (*m)[k] = v;
  }
  return true;
}

Status Corrupt() {
  return Status::ServerError("corrupt schema catalog");
}

bool GetView(std::string_view* in, ViewInfo* v) {
  uint8_t kind, target, flags;
  if (!GetByte(in, &kind) || kind > 3 || !Uuid::Consume(in, &v->base_id) ||
      !GetString(in, &v->base_name) || !GetString(in, &v->index_name) ||
      !GetString(in, &v->target_column) || !GetByte(in, &target) ||
      target > 3 || !GetString(in, &v->where_clause) || !GetByte(in, &flags) ||
      flags > 15) {
    return false;
  }
  v->kind = static_cast<ViewKind>(kind);
  v->target = static_cast<IndexTarget>(target);
  v->include_all_columns = (flags & 1) != 0;
  v->built = (flags & 2) != 0;
  v->strict_liveness = (flags & 4) != 0;
  if ((flags & 8) != 0) {
    uint64_t n;
    if (!GetCount(in, &n)) return false;
    for (uint64_t i = 0; i < n; ++i) {
      ViewKeyRestriction r;
      uint8_t op;
      uint64_t m;
      if (!GetString(in, &r.column) || !GetByte(in, &op) || op > 5 ||
          !GetCount(in, &m)) {
        return false;
      }
      r.op = static_cast<ViewRestrictionOp>(op);
      for (uint64_t j = 0; j < m; ++j) {
        std::string value;
        if (!GetString(in, &value)) return false;
        r.values.push_back(std::move(value));
      }
      v->key_restrictions.push_back(std::move(r));
    }
  }
  return true;
}

Result<TableDefPtr> DecodeTable(std::string_view* in, uint8_t format) {
  auto t = std::make_shared<TableDef>();
  uint64_t ncols;
  if (!GetString(in, &t->keyspace) || !GetString(in, &t->name) ||
      !Uuid::Consume(in, &t->id) || !GetU32(in, &t->storage_id) ||
      !GetU32(in, &t->next_column_id) || !GetCount(in, &ncols)) {
    return Corrupt();
  }
  for (uint64_t i = 0; i < ncols; i++) {
    ColumnDef c;
    uint8_t kind, order;
    uint32_t position;
    if (!GetString(in, &c.name)) return Corrupt();
    KW_ASSIGN_OR_RETURN(c.type, CqlType::Deserialize(in));
    if (!GetByte(in, &kind) || kind > 3 || !GetU32(in, &position) ||
        position > INT32_MAX || !GetByte(in, &order) || order > 1 ||
        !GetU32(in, &c.id)) {
      return Corrupt();
    }
    c.kind = static_cast<ColumnKind>(kind);
    c.position = static_cast<int>(position);
    c.order = static_cast<SortOrder>(order);
    t->columns.push_back(std::move(c));
  }
  TableOptions& o = t->options;
  uint64_t ndropped;
  if (!GetI32(in, &o.default_time_to_live) ||
      !GetI32(in, &o.gc_grace_seconds) || !GetI32(in, &o.versions) ||
      !GetString(in, &o.comment) || !GetStringMap(in, &o.extra) ||
      !GetCount(in, &ndropped)) {
    return Corrupt();
  }
  for (uint64_t i = 0; i < ndropped; i++) {
    DroppedColumn d;
    if (!GetString(in, &d.name)) return Corrupt();
    KW_ASSIGN_OR_RETURN(d.type, CqlType::Deserialize(in));
    if (!GetVarsint64(in, &d.dropped_at_micros)) return Corrupt();
    t->dropped_columns.push_back(std::move(d));
  }
  if (format >= 2) {
    uint8_t has_view;
    if (!GetByte(in, &has_view) || has_view > 1) return Corrupt();
    if (has_view == 1) {
      auto v = std::make_shared<ViewInfo>();
      if (!GetView(in, v.get())) return Corrupt();
      t->view = std::move(v);
    }
  }
  if (format >= 3) {
    uint8_t placement;
    if (!GetByte(in, &placement) || placement > 1 ||
        !GetI32(in, &o.salt_buckets)) {
      return Corrupt();
    }
    o.placement = static_cast<PlacementKind>(placement);
  }
  return TableDefPtr(std::move(t));
}

}  // namespace

KeyspaceDefPtr SchemaSnapshot::FindKeyspace(std::string_view name) const {
  auto it = keyspaces.find(name);
  return it == keyspaces.end() ? nullptr : it->second;
}

TableDefPtr SchemaSnapshot::FindTable(std::string_view keyspace,
                                      std::string_view name) const {
  auto it = tables.find({std::string(keyspace), std::string(name)});
  return it == tables.end() ? nullptr : it->second;
}

CqlTypePtr SchemaSnapshot::FindType(std::string_view keyspace,
                                    std::string_view name) const {
  auto it = types.find({std::string(keyspace), std::string(name)});
  return it == types.end() ? nullptr : it->second;
}

TableDefPtr SchemaSnapshot::FindTableByStorageId(TableStorageId id) const {
  auto it = tables_by_storage_id.find(id);
  return it == tables_by_storage_id.end() ? nullptr : it->second;
}

void SchemaSnapshot::PutTable(TableDefPtr table) {
  if (TableDefPtr old = FindTable(table->keyspace, table->name)) {
    RemoveTable(*old);
  }
  if (table->view != nullptr) {
    views_by_base[table->view->base_id].push_back(table);
  }
  tables_by_storage_id[table->storage_id] = table;
  tables[{table->keyspace, table->name}] = std::move(table);
}

void SchemaSnapshot::RemoveTable(const TableDef& table) {
  tables_by_storage_id.erase(table.storage_id);
  tables.erase({table.keyspace, table.name});
  if (table.view != nullptr) {
    auto it = views_by_base.find(table.view->base_id);
    if (it != views_by_base.end()) {
      std::erase_if(it->second, [&](const TableDefPtr& v) {
        return v->storage_id == table.storage_id;
      });
      if (it->second.empty()) views_by_base.erase(it);
    }
  }
}

const std::vector<TableDefPtr>& SchemaSnapshot::ViewsOf(
    const Uuid& base_id) const {
  static const std::vector<TableDefPtr> kNone;
  auto it = views_by_base.find(base_id);
  return it == views_by_base.end() ? kNone : it->second;
}

TableDefPtr SchemaSnapshot::FindIndex(std::string_view keyspace,
                                      std::string_view index_name) const {
  TableDefPtr t = FindTable(keyspace, IndexTableName(index_name));
  return t != nullptr && t->IsIndexTable() && t->view->index_name == index_name
             ? t
             : nullptr;
}

std::vector<TableDefPtr> TablesOfKeyspace(const SchemaSnapshot& snapshot,
                                          std::string_view keyspace) {
  std::vector<TableDefPtr> out;
  for (auto it = snapshot.tables.lower_bound({std::string(keyspace), ""});
       it != snapshot.tables.end() && it->first.first == keyspace; ++it) {
    out.push_back(it->second);
  }
  return out;
}

std::vector<CqlTypePtr> TypesOfKeyspace(const SchemaSnapshot& snapshot,
                                        std::string_view keyspace) {
  std::vector<CqlTypePtr> out;
  for (auto it = snapshot.types.lower_bound({std::string(keyspace), ""});
       it != snapshot.types.end() && it->first.first == keyspace; ++it) {
    out.push_back(it->second);
  }
  return out;
}

void EncodeTableDef(const TableDef& table, std::string* out) {
  PutLengthPrefixed(out, table.keyspace);
  PutLengthPrefixed(out, table.name);
  out->append(table.id.bytes_view());
  PutVarint64(out, table.storage_id);
  PutVarint64(out, table.next_column_id);
  PutVarint64(out, table.columns.size());
  for (const auto& c : table.columns) {
    PutLengthPrefixed(out, c.name);
    c.type->Serialize(out);
    out->push_back(static_cast<char>(c.kind));
    PutVarint64(out, static_cast<uint64_t>(c.position));
    out->push_back(static_cast<char>(c.order));
    PutVarint64(out, c.id);
  }
  PutVarsint64(out, table.options.default_time_to_live);
  PutVarsint64(out, table.options.gc_grace_seconds);
  PutVarsint64(out, table.options.versions);
  PutLengthPrefixed(out, table.options.comment);
  PutStringMap(out, table.options.extra);
  PutVarint64(out, table.dropped_columns.size());
  for (const auto& d : table.dropped_columns) {
    PutLengthPrefixed(out, d.name);
    d.type->Serialize(out);
    PutVarsint64(out, d.dropped_at_micros);
  }
  out->push_back(table.view != nullptr ? 1 : 0);
  if (table.view != nullptr) {
    const ViewInfo& v = *table.view;
    out->push_back(static_cast<char>(v.kind));
    out->append(v.base_id.bytes_view());
    PutLengthPrefixed(out, v.base_name);
    PutLengthPrefixed(out, v.index_name);
    PutLengthPrefixed(out, v.target_column);
    out->push_back(static_cast<char>(v.target));
    PutLengthPrefixed(out, v.where_clause);
    const bool restricted = !v.key_restrictions.empty();
    out->push_back(
        static_cast<char>((v.include_all_columns ? 1 : 0) | (v.built ? 2 : 0) |
                          (v.strict_liveness ? 4 : 0) | (restricted ? 8 : 0)));
    if (restricted) {
      PutVarint64(out, v.key_restrictions.size());
      for (const ViewKeyRestriction& r : v.key_restrictions) {
        PutLengthPrefixed(out, r.column);
        out->push_back(static_cast<char>(r.op));
        PutVarint64(out, r.values.size());
        for (const std::string& value : r.values) PutLengthPrefixed(out, value);
      }
    }
  }
  out->push_back(static_cast<char>(table.options.placement));
  PutVarsint64(out, table.options.salt_buckets);
}

std::string EncodeSchemaSnapshot(const SchemaSnapshot& s) {
  std::string out;
  out.push_back(static_cast<char>(kFormatVersion));
  out.append(s.version.bytes_view());
  PutVarint64(&out, s.next_storage_id);
  PutVarint64(&out, s.keyspaces.size());
  for (const auto& [name, ks] : s.keyspaces) {
    PutLengthPrefixed(&out, ks->name);
    out.push_back(ks->durable_writes ? 1 : 0);
    PutStringMap(&out, ks->replication);
  }
  PutVarint64(&out, s.tables.size());
  for (const auto& [key, t] : s.tables) EncodeTableDef(*t, &out);
  PutVarint64(&out, s.types.size());
  for (const auto& [key, type] : s.types) type->Serialize(&out);
  return out;
}

Result<SchemaSnapshot> DecodeSchemaSnapshot(std::string_view in) {
  SchemaSnapshot s;
  uint8_t version;
  if (!GetByte(&in, &version) || version < 1 || version > kFormatVersion) {
    return Status::ServerError("unsupported schema catalog format version");
  }
  uint64_t nks, ntables;
  if (!Uuid::Consume(&in, &s.version) || !GetU32(&in, &s.next_storage_id) ||
      !GetCount(&in, &nks)) {
    return Corrupt();
  }
  for (uint64_t i = 0; i < nks; i++) {
    auto ks = std::make_shared<KeyspaceDef>();
    uint8_t durable;
    if (!GetString(&in, &ks->name) || !GetByte(&in, &durable) || durable > 1 ||
        !GetStringMap(&in, &ks->replication)) {
      return Corrupt();
    }
    ks->durable_writes = durable == 1;
    s.keyspaces[ks->name] = std::move(ks);
  }
  if (!GetCount(&in, &ntables)) return Corrupt();
  for (uint64_t i = 0; i < ntables; i++) {
    KW_ASSIGN_OR_RETURN(TableDefPtr t, DecodeTable(&in, version));
    if (!s.FindKeyspace(t->keyspace) || s.FindTableByStorageId(t->storage_id)) {
      return Corrupt();
    }
    s.PutTable(std::move(t));
  }
  uint64_t ntypes = 0;
  if (version >= 4 && !GetCount(&in, &ntypes)) return Corrupt();
  for (uint64_t i = 0; i < ntypes; i++) {
    Result<CqlTypePtr> type = CqlType::Deserialize(&in);
    if (!type.ok() || (*type)->kind() != TypeKind::kUdt ||
        !s.FindKeyspace((*type)->udt_keyspace())) {
      return Corrupt();
    }
    s.types[{(*type)->udt_keyspace(), (*type)->udt_name()}] = *type;
  }
  if (!in.empty()) return Corrupt();
  return s;
}

}  // namespace keywise
