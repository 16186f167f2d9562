#include "query/statements/permission_statement.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "auth/auth_store.h"
#include "auth/permission_statements.h"
#include "query/statements/role_statement.h"
#include "schema/system_keyspace_names.h"
#include "schema/value_codec.h"

namespace keywise::query {
namespace {

using Op = cql::PermissionsStatement::Op;

// The permissions named, nullopt for ALL.
Result<std::optional<auth::PermissionSet>> NamedPermissions(
    const std::vector<std::string>& names) {
  if (names.empty()) return std::optional<auth::PermissionSet>();
  auth::PermissionSet set;
  for (const std::string& name : names) {
    std::optional<auth::Permission> p = auth::PermissionOfName(name);
    if (!p) return Status::SyntaxError("Unknown permission " + name);
    set.Add(*p);
  }
  return std::optional<auth::PermissionSet>(set);
}

// The resource a statement names, a table in `table_keyspace`.
auth::Resource ResourceOf(const cql::PermissionResource& r,
                          std::string table_keyspace) {
  using Kind = cql::PermissionResource::Kind;
  switch (r.kind) {
    case Kind::kAllKeyspaces: return auth::Resource::AllKeyspaces();
    case Kind::kKeyspace: return auth::Resource::Keyspace(r.keyspace);
    case Kind::kAllRoles: return auth::Resource::AllRoles();
    case Kind::kRole: return auth::Resource::Role(r.role);
    case Kind::kTable: break;
  }
  return auth::Resource::Table(std::move(table_keyspace), r.table.name);
}

// A table without keyspace takes the session's (Cassandra's
// maybeCorrectResource).
Result<auth::Resource> ResolveResource(const cql::PermissionResource& r,
                                       const ExecutionContext& ctx) {
  std::string ks = r.table.keyspace;
  if (ks.empty() && ctx.client != nullptr) ks = ctx.client->keyspace;
  if (r.kind == cql::PermissionResource::Kind::kTable && ks.empty()) {
    return Status::Invalid(
        "No keyspace has been specified. USE a keyspace, or explicitly "
        "specify keyspace.tablename");
  }
  return ResourceOf(r, std::move(ks));
}

// Whether the resource exists now (DataResource.exists, RoleResource.exists).
bool ResourceExists(const auth::Resource& r, const SchemaSnapshot& schema,
                    const auth::AuthState& state) {
  using Kind = auth::Resource::Kind;
  switch (r.kind()) {
    case Kind::kAllKeyspaces:
    case Kind::kAllRoles: return true;
    case Kind::kKeyspace: return schema.FindKeyspace(r.first()) != nullptr;
    case Kind::kTable:
      return schema.FindTable(r.first(), r.table()) != nullptr;
    case Kind::kRole: return state.Find(r.first()) != nullptr;
  }
  return false;
}

QueryResult ListedPermissionsResult(
    const std::vector<auth::ListedPermission>& rows) {
  if (rows.empty()) return QueryResult{VoidResult{}, {}};
  const CqlTypePtr text = CqlType::Of(TypeKind::kVarchar);
  RowsResult out;
  for (const char* column : {"role", "username", "resource", "permission"}) {
    out.columns.push_back(ColumnSpec{std::string(kAuthKeyspaceName),
                                     "permissions", column, text});
  }
  RowWriter writer(&out);
  for (const auth::ListedPermission& row : rows) {
    writer.AppendValue(EncodeText(row.role));
    writer.AppendValue(EncodeText(row.role));
    writer.AppendValue(EncodeText(row.resource.Printed()));
    writer.AppendValue(EncodeText(auth::PermissionName(row.permission)));
    writer.EndRow();
  }
  return QueryResult{std::move(out), {}};
}

class PermissionStatement final : public PreparedStatement {
 public:
  PermissionStatement(cql::PermissionsStatement statement,
                      std::optional<auth::PermissionSet> named)
      : statement_(std::move(statement)), named_(named) {}

  Result<QueryResult> Execute(ExecutionContext& ctx) const override {
    if (ctx.auth_store == nullptr || ctx.auth_options == nullptr) {
      return Status::Invalid(std::string(kRolesDisabledMessage));
    }
    const auth::Caller caller = CallerOf(ctx);
    std::optional<auth::Resource> resource;
    if (statement_.resource) {
      KW_ASSIGN_OR_RETURN(resource, ResolveResource(*statement_.resource, ctx));
    }
    SchemaSnapshotPtr schema = ctx.engine->catalog().snapshot();
    auth::AuthStore& store = *ctx.auth_store;
    if (statement_.op == Op::kList) {
      auth::ListPermissionsRequest request;
      request.permissions =
          named_.value_or(auth::PermissionSet::FromBits(0xff));
      request.resource = resource;
      std::shared_ptr<const auth::AuthState> state = store.Current();
      request.resource_exists =
          !resource || ResourceExists(*resource, *schema, *state);
      request.of = statement_.role;
      request.recursive = statement_.recursive;
      KW_ASSIGN_OR_RETURN(std::vector<auth::ListedPermission> rows,
                          auth::ListPermissions(*state, request, caller));
      return ListedPermissionsResult(rows);
    }
    auth::PermissionsRequest request;
    KW_ASSIGN_OR_RETURN(request.permissions,
                        auth::RequestedOn(named_, *resource));
    request.resource = *resource;
    request.role = *statement_.role;
    const bool grant = statement_.op == Op::kGrant;
    KW_RETURN_IF_ERROR(
        auth::ChangeRoles(store, [&](const auth::AuthState& state) {
          auth::PermissionsRequest now = request;
          now.resource_exists = ResourceExists(now.resource, *schema, state);
          return grant ? auth::GrantPermissions(state, now, caller)
                       : auth::RevokePermissions(state, now, caller);
        }).status());
    return QueryResult{VoidResult{}, {}};
  }

 private:
  cql::PermissionsStatement statement_;
  std::optional<auth::PermissionSet> named_;
};

}  // namespace

Result<std::shared_ptr<PreparedStatement>> PreparePermissionStatement(
    const cql::PermissionsStatement& statement) {
  KW_ASSIGN_OR_RETURN(std::optional<auth::PermissionSet> named,
                      NamedPermissions(statement.permissions));
  // GRANT and REVOKE: a permission the resource cannot hold is a syntax
  // error (Cassandra's parser filters them).
  if (statement.op != Op::kList) {
    KW_RETURN_IF_ERROR(
        auth::RequestedOn(named, ResourceOf(*statement.resource, ""))
            .status());
  }
  auto prepared = std::make_shared<PermissionStatement>(statement, named);
  prepared->kind = StatementKind::kSchema;
  return std::shared_ptr<PreparedStatement>(std::move(prepared));
}

}  // namespace keywise::query
