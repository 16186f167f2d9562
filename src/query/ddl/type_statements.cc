// CREATE TYPE, ALTER TYPE and DROP TYPE, checked in the order Cassandra 4's
// CreateTypeStatement, AlterTypeStatement and DropTypeStatement check them,
// with their messages.
#include <algorithm>
#include <array>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "query/ddl/schema_common.h"
#include "schema/cql_name.h"

namespace keywise::query {
namespace {

// `ks.name` as Cassandra's UserType.getCqlTypeName prints it.
std::string CqlTypeName(const std::string& keyspace, const std::string& name) {
  return CqlName(keyspace) + "." + CqlName(name);
}

// Names the grammar refuses for a user type (Cassandra's non_type_ident:
// the native types are keywords there, plus its reserved type names).
Status CheckTypeName(const cql::QualifiedName& name) {
  static constexpr std::array<std::string_view, 28> kReserved = {
      "ascii",    "bigint",  "blob",      "boolean",   "counter",  "date",
      "decimal",  "double",  "duration",  "float",     "inet",     "int",
      "smallint", "text",    "time",      "timestamp", "timeuuid", "tinyint",
      "uuid",     "varchar", "varint",    "byte",      "complex",  "enum",
      "interval", "macaddr", "bitstring", "frozen"};
  if (std::find(kReserved.begin(), kReserved.end(), name.name) !=
      kReserved.end()) {
    return Status::SyntaxError("Invalid (reserved) user type name " +
                               name.name);
  }
  return Status::OK();
}

// A field type of CREATE TYPE or ALTER TYPE ADD.
Result<CqlTypePtr> ResolveField(const cql::TypeName& raw,
                                const std::string& keyspace,
                                const SchemaSnapshot& schema) {
  KW_ASSIGN_OR_RETURN(CqlTypePtr type, ResolveFieldType(raw, keyspace, schema));
  if (type->kind() == TypeKind::kCounter) {
    return Status::Invalid("A user type cannot contain counters");
  }
  if (type->kind() == TypeKind::kUdt && type->IsMultiCell()) {
    return Status::Invalid("A user type cannot contain non-frozen UDTs");
  }
  return type;
}

// The schema change of a type statement: target TYPE.
QueryResult TypeChanged(std::string change, std::string keyspace,
                        std::string type) {
  QueryResult result =
      SchemaChange(std::move(change), std::move(keyspace), std::move(type));
  std::get<SchemaChangeResult>(result.result).target = "TYPE";
  return result;
}

Result<QueryResult> CreateType(const cql::CreateTypeStatement& s,
                               const std::string& ks, ExecutionContext& ctx) {
  KW_RETURN_IF_ERROR(CheckPermission(ks, "", Permission::kCreate));
  KW_RETURN_IF_ERROR(CheckModifiable(ks));
  Catalog& catalog = ctx.engine->catalog();
  SchemaSnapshotPtr schema = catalog.snapshot();
  if (schema->FindKeyspace(ks) == nullptr) {
    return Status::Invalid("Keyspace '" + ks + "' doesn't exist");
  }
  if (schema->FindType(ks, s.name.name) != nullptr) {
    if (s.if_not_exists) return VoidQueryResult();
    return Status::Invalid("A user type with name '" + s.name.name +
                           "' already exists");
  }
  std::set<std::string> names;
  for (const auto& [field, raw] : s.fields) {
    if (!names.insert(field).second) {
      return Status::Invalid("Duplicate field name '" + field + "' in type '" +
                             s.name.name + "'");
    }
  }
  std::vector<std::pair<std::string, CqlTypePtr>> fields;
  for (const auto& [field, raw] : s.fields) {
    KW_ASSIGN_OR_RETURN(CqlTypePtr type, ResolveField(raw, ks, *schema));
    fields.emplace_back(field, std::move(type));
  }
  KW_RETURN_IF_ERROR(catalog.CreateType(
      CqlType::Udt(ks, s.name.name, std::move(fields), false),
      IfNotExists(s.if_not_exists)));
  return TypeChanged("CREATED", ks, s.name.name);
}

// ALTER TYPE ... ADD: the type with one more field, last.
Result<CqlTypePtr> AddField(const cql::AlterTypeStatement& s,
                            const SchemaSnapshot& schema,
                            const CqlTypePtr& current) {
  const std::string& ks = current->udt_keyspace();
  const std::string full = CqlTypeName(ks, current->udt_name());
  const auto& names = current->field_names();
  if (std::find(names.begin(), names.end(), s.field) != names.end()) {
    if (s.if_field_exists) return current;
    return Status::Invalid("Cannot add field " + s.field + " to type " + full +
                           ": a field with name " + s.field +
                           " already exists");
  }
  KW_ASSIGN_OR_RETURN(CqlTypePtr type, ResolveField(s.type, ks, schema));
  const std::string written = s.type.ToString();
  if (ReferencesUserType(*type, ks, current->udt_name())) {
    return Status::Invalid("Cannot add new field " + s.field + " of type " +
                           written + " to user type " + full +
                           " as it would create a circular reference");
  }
  std::string in_keys;
  for (const TableDefPtr& t : TablesOfKeyspace(schema, ks)) {
    for (const ColumnDef* c : t->PartitionKeyColumns()) {
      if (ReferencesUserType(*c->type, ks, current->udt_name())) {
        in_keys += (in_keys.empty() ? "" : ", ") + t->keyspace + "." + t->name;
        break;
      }
    }
  }
  if (!in_keys.empty()) {
    return Status::Invalid("Cannot add new field " + s.field + " of type " +
                           written + " to user type " + full +
                           " as the type is being used in partition key by "
                           "the following tables: " +
                           in_keys);
  }
  std::vector<std::pair<std::string, CqlTypePtr>> fields;
  for (size_t i = 0; i < names.size(); ++i) {
    fields.emplace_back(names[i], current->params()[i]);
  }
  fields.emplace_back(s.field, std::move(type));
  return CqlType::Udt(ks, current->udt_name(), std::move(fields), false);
}

// ALTER TYPE ... RENAME: same field types at the same positions.
Result<CqlTypePtr> RenameFields(const cql::AlterTypeStatement& s,
                                const CqlTypePtr& current) {
  const std::string& ks = current->udt_keyspace();
  std::vector<std::string> names = current->field_names();
  for (const auto& [from, to] : s.renames) {
    auto it = std::find(current->field_names().begin(),
                        current->field_names().end(), from);
    if (it == current->field_names().end()) {
      if (s.if_field_exists) continue;
      // Cassandra 4's wording, misspelling included.
      return Status::Invalid("Unkown field " + from + " in user type " +
                             CqlTypeName(ks, current->udt_name()));
    }
    names[it - current->field_names().begin()] = to;
  }
  for (const std::string& name : names) {
    if (std::count(names.begin(), names.end(), name) > 1) {
      // Cassandra 4 formats this message with the keyspace where the type
      // name was meant; kept as it prints.
      return Status::Invalid("Duplicate field name " + name + " in type " + ks);
    }
  }
  if (names == current->field_names()) return current;
  std::vector<std::pair<std::string, CqlTypePtr>> fields;
  for (size_t i = 0; i < names.size(); ++i) {
    fields.emplace_back(names[i], current->params()[i]);
  }
  return CqlType::Udt(ks, current->udt_name(), std::move(fields), false);
}

Result<QueryResult> AlterType(const cql::AlterTypeStatement& s,
                              const std::string& ks, ExecutionContext& ctx) {
  KW_RETURN_IF_ERROR(CheckPermission(ks, "", Permission::kAlter));
  KW_RETURN_IF_ERROR(CheckModifiable(ks));
  Catalog& catalog = ctx.engine->catalog();
  if (catalog.snapshot()->FindType(ks, s.name.name) == nullptr) {
    if (s.if_exists) return VoidQueryResult();
    return Status::Invalid("Type " + ks + "." + s.name.name + " doesn't exist");
  }
  if (s.kind == cql::AlterTypeKind::kAlterField) {
    return Status::Invalid("Altering field types is no longer supported");
  }
  bool changed = false;
  KW_RETURN_IF_ERROR(catalog.AlterType(
      ks, s.name.name, IfExists(s.if_exists),
      [&](const SchemaSnapshot& schema,
          const CqlTypePtr& current) -> Result<CqlTypePtr> {
        Result<CqlTypePtr> next = s.kind == cql::AlterTypeKind::kAdd
                                      ? AddField(s, schema, current)
                                      : RenameFields(s, current);
        changed = next.ok() && *next != current;
        return next;
      }));
  if (!changed) return VoidQueryResult();
  return TypeChanged("UPDATED", ks, s.name.name);
}

Result<QueryResult> DropType(const cql::DropTypeStatement& s,
                             const std::string& ks, ExecutionContext& ctx) {
  KW_RETURN_IF_ERROR(CheckPermission(ks, "", Permission::kDrop));
  KW_RETURN_IF_ERROR(CheckModifiable(ks));
  Catalog& catalog = ctx.engine->catalog();
  if (catalog.snapshot()->FindType(ks, s.name.name) == nullptr) {
    if (s.if_exists) return VoidQueryResult();
    return Status::Invalid("Type '" + ks + "." + s.name.name +
                           "' doesn't exist");
  }
  KW_RETURN_IF_ERROR(catalog.DropType(ks, s.name.name, IfExists(s.if_exists)));
  return TypeChanged("DROPPED", ks, s.name.name);
}

}  // namespace

Result<std::shared_ptr<PreparedStatement>> PrepareCreateType(
    const cql::CreateTypeStatement& statement, const PrepareContext& ctx) {
  KW_RETURN_IF_ERROR(CheckTypeName(statement.name));
  KW_ASSIGN_OR_RETURN(std::string ks, KeyspaceOf(ctx, statement.name));
  return MakeSchemaStatement([statement, ks](ExecutionContext& ctx) {
    return CreateType(statement, ks, ctx);
  });
}

Result<std::shared_ptr<PreparedStatement>> PrepareAlterType(
    const cql::AlterTypeStatement& statement, const PrepareContext& ctx) {
  KW_RETURN_IF_ERROR(CheckTypeName(statement.name));
  KW_ASSIGN_OR_RETURN(std::string ks, KeyspaceOf(ctx, statement.name));
  return MakeSchemaStatement([statement, ks](ExecutionContext& ctx) {
    return AlterType(statement, ks, ctx);
  });
}

Result<std::shared_ptr<PreparedStatement>> PrepareDropType(
    const cql::DropTypeStatement& statement, const PrepareContext& ctx) {
  KW_RETURN_IF_ERROR(CheckTypeName(statement.name));
  KW_ASSIGN_OR_RETURN(std::string ks, KeyspaceOf(ctx, statement.name));
  return MakeSchemaStatement([statement, ks](ExecutionContext& ctx) {
    return DropType(statement, ks, ctx);
  });
}

}  // namespace keywise::query
