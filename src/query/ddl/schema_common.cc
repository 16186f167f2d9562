#include "query/ddl/schema_common.h"

#include <array>

#include "schema/system_keyspace_names.h"

namespace keywise::query {
namespace {

const char* PermissionName(Permission p) {
  switch (p) {
    case Permission::kCreate:
      return "CREATE";
    case Permission::kAlter:
      return "ALTER";
    case Permission::kDrop:
      return "DROP";
  }
  return "";
}

}  // namespace

QueryResult VoidQueryResult() {
  return QueryResult{VoidResult{}, {}};
}

QueryResult SchemaChange(std::string change, std::string keyspace,
                         std::string table) {
  SchemaChangeResult r;
  r.change = std::move(change);
  r.target = table.empty() ? "KEYSPACE" : "TABLE";
  r.keyspace = std::move(keyspace);
  r.name = std::move(table);
  return QueryResult{std::move(r), {}};
}

bool IsValidName(std::string_view name) {
  if (name.empty() || name.size() > kNameLength) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

Status CheckKeyspaceName(std::string_view keyspace) {
  if (IsValidName(keyspace)) return Status::OK();
  return Status::Invalid(
      "Keyspace name must not be empty, more than " +
      std::to_string(kNameLength) +
      " characters long, or contain non-alphanumeric-underscore characters "
      "(got '" +
      std::string(keyspace) + "')");
}

Status CheckTableName(std::string_view table) {
  if (IsValidName(table)) return Status::OK();
  return Status::ConfigError(
      "Table name must not be empty, more than " + std::to_string(kNameLength) +
      " characters long, or contain non-alphanumeric-underscore characters "
      "(got \"" +
      std::string(table) + "\")");
}

bool IsReplicatedSystemKeyspace(std::string_view keyspace) {
  return keywise::IsReplicatedSystemKeyspace(keyspace);
}

Status CheckPermission(std::string_view keyspace, std::string_view table,
                       Permission permission) {
  if (IsLocalSystemKeyspace(keyspace)) {
    return Status(ErrorCode::kUnauthorized,
                  std::string(keyspace) + " keyspace is not user-modifiable.");
  }
  if (IsReplicatedSystemKeyspace(keyspace)) {
    // Altering the replication of a replicated system keyspace is allowed.
    if (permission == Permission::kAlter && table.empty()) {
      return Status::OK();
    }
    std::string resource = table.empty()
                               ? "<keyspace " + std::string(keyspace) + ">"
                               : "<table " + std::string(keyspace) + "." +
                                     std::string(table) + ">";
    return Status(
        ErrorCode::kUnauthorized,
        std::string("Cannot ") + PermissionName(permission) + " " + resource);
  }
  return Status::OK();
}

Status CheckModifiable(std::string_view keyspace) {
  if (IsLocalSystemKeyspace(keyspace)) {
    return Status::Invalid("System keyspace '" + std::string(keyspace) +
                           "' is not user-modifiable");
  }
  if (IsVirtualSystemKeyspace(keyspace)) {
    return Status::Invalid("Virtual keyspace '" + std::string(keyspace) +
                           "' is not user-modifiable");
  }
  return CheckKeyspaceName(keyspace);
}

Result<std::string> KeyspaceOf(const PrepareContext& ctx,
                               const cql::QualifiedName& name) {
  if (!name.keyspace.empty()) return name.keyspace;
  if (ctx.keyspace.empty()) {
    return Status::Invalid(
        "No keyspace has been specified. USE a keyspace, or explicitly "
        "specify keyspace.tablename");
  }
  return ctx.keyspace;
}

std::string AsWritten(const cql::QualifiedName& name) {
  return name.keyspace.empty() ? name.name : name.keyspace + "." + name.name;
}

Result<CqlTypePtr> ResolveFieldType(const cql::TypeName& type,
                                    const std::string& keyspace,
                                    const SchemaSnapshot& schema) {
  auto lookup = [&](const std::string& ks,
                    const std::string& name) -> Result<CqlTypePtr> {
    if (!ks.empty() && ks != keyspace) {
      return Status::Invalid(
          "Statement on keyspace " + keyspace +
          " cannot refer to a user type in keyspace " + ks +
          "; user types can only be used in the keyspace they are defined "
          "in");
    }
    CqlTypePtr udt = schema.FindType(keyspace, name);
    if (udt == nullptr) {
      return Status::Invalid("Unknown type " + keyspace + "." + name);
    }
    return udt;
  };
  return CqlType::Parse(type.ToString(), lookup);
}

Result<CqlTypePtr> ResolveType(const cql::TypeName& type,
                               const std::string& keyspace,
                               const SchemaSnapshot& schema) {
  KW_ASSIGN_OR_RETURN(CqlTypePtr resolved,
                      ResolveFieldType(type, keyspace, schema));
  if (resolved->kind() == TypeKind::kUdt && resolved->IsMultiCell()) {
    for (const CqlTypePtr& field : resolved->params()) {
      if (field->IsMultiCell()) {
        return Status::Invalid(
            "Non-frozen UDTs with nested non-frozen collections are not "
            "supported");
      }
    }
  }
  return resolved;
}

}  // namespace keywise::query
