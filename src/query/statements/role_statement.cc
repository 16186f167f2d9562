#include "query/statements/role_statement.h"

#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "auth/auth_store.h"
#include "auth/password_hash.h"
#include "auth/role_statements.h"
#include "schema/system_keyspace_names.h"
#include "schema/value_codec.h"

namespace keywise::query {
namespace {

auth::RoleOptions RoleOptionsOfAst(const cql::RoleOptions& options) {
  auth::RoleOptions out;
  out.password = options.password;
  out.login = options.login;
  out.superuser = options.superuser;
  out.custom_options = options.options.has_value();
  return out;
}

QueryResult RoleVoidResult() {
  return QueryResult{VoidResult{}, {}};
}

// CREATE and ALTER: the checks on the current state first, so that a
// refused or empty statement costs no hashing; then the hash, once; then
// the change, checked again on whatever state it commits to.
template <typename Request, typename Compute>
Result<QueryResult> ChangeRolesWithPassword(auth::AuthStore& store,
                                            Request request,
                                            const auth::Caller& caller,
                                            Compute compute) {
  KW_ASSIGN_OR_RETURN(auth::RoleChanges checked,
                      compute(*store.Current(), request, caller));
  // Nothing to do (IF NOT EXISTS of an existing role): no hash either.
  if (checked.empty()) return RoleVoidResult();
  if (request.options.password) {
    KW_ASSIGN_OR_RETURN(request.password_hash,
                        auth::HashPassword(*request.options.password,
                                           caller.options.bcrypt_rounds));
  }
  KW_RETURN_IF_ERROR(
      auth::ChangeRoles(store, [&](const auth::AuthState& state) {
        return compute(state, request, caller);
      }).status());
  return RoleVoidResult();
}

template <typename Request, typename Compute>
Result<QueryResult> ChangeRolesPlain(auth::AuthStore& store,
                                     const Request& request,
                                     const auth::Caller& caller,
                                     Compute compute) {
  KW_RETURN_IF_ERROR(
      auth::ChangeRoles(store, [&](const auth::AuthState& state) {
        return compute(state, request, caller);
      }).status());
  return RoleVoidResult();
}

ColumnSpec RoleColumn(std::string_view table, std::string name,
                      CqlTypePtr type) {
  return ColumnSpec{std::string(kAuthKeyspaceName), std::string(table),
                    std::move(name), std::move(type)};
}

// Keywise has only AllowAllNetworkAuthorizer, whose answer for every role
// is DCPermissions.all(), printed "ALL".
constexpr std::string_view kAllDatacenters = "ALL";

QueryResult ListedRolesResult(const std::vector<auth::ListedRole>& roles) {
  if (roles.empty()) return RoleVoidResult();
  const CqlTypePtr text = CqlType::Of(TypeKind::kVarchar);
  const CqlTypePtr boolean = CqlType::Of(TypeKind::kBoolean);
  RowsResult rows;
  rows.columns = {RoleColumn("roles", "role", text),
                  RoleColumn("roles", "super", boolean),
                  RoleColumn("roles", "login", boolean),
                  RoleColumn("roles", "options",
                             CqlType::Map(text, text, /*frozen=*/false)),
                  RoleColumn("roles", "datacenters", text)};
  RowWriter writer(&rows);
  for (const auth::ListedRole& role : roles) {
    writer.AppendValue(EncodeText(role.name));
    writer.AppendValue(EncodeBoolean(role.superuser));
    writer.AppendValue(EncodeBoolean(role.login));
    writer.AppendValue(EncodeMap({}));  // CassandraRoleManager: no OPTIONS
    writer.AppendValue(EncodeText(kAllDatacenters));
    writer.EndRow();
  }
  return QueryResult{std::move(rows), {}};
}

QueryResult ListedUsersResult(const std::vector<auth::ListedUser>& users) {
  if (users.empty()) return RoleVoidResult();
  const CqlTypePtr text = CqlType::Of(TypeKind::kVarchar);
  RowsResult rows;
  rows.columns = {RoleColumn("users", "name", text),
                  RoleColumn("users", "super", CqlType::Of(TypeKind::kBoolean)),
                  RoleColumn("users", "datacenters", text)};
  RowWriter writer(&rows);
  for (const auth::ListedUser& user : users) {
    writer.AppendValue(EncodeText(user.name));
    writer.AppendValue(EncodeBoolean(user.superuser));
    writer.AppendValue(EncodeText(kAllDatacenters));
    writer.EndRow();
  }
  return QueryResult{std::move(rows), {}};
}

Result<QueryResult> ListRolesOrUsers(const auth::AuthState& state,
                                     const cql::ListRolesStatement& s,
                                     const auth::Caller& caller) {
  if (s.users) {
    KW_ASSIGN_OR_RETURN(std::vector<auth::ListedUser> users,
                        auth::ListUsers(state, caller));
    return ListedUsersResult(users);
  }
  KW_ASSIGN_OR_RETURN(
      std::vector<auth::ListedRole> roles,
      auth::ListRoles(state, auth::ListRolesRequest{s.of, s.recursive},
                      caller));
  return ListedRolesResult(roles);
}

class RoleStatement final : public PreparedStatement {
 public:
  explicit RoleStatement(cql::Statement statement)
      : statement_(std::move(statement)) {}

  Result<QueryResult> Execute(ExecutionContext& ctx) const override {
    if (ctx.auth_store == nullptr || ctx.auth_options == nullptr) {
      return Status::Invalid(std::string(kRolesDisabledMessage));
    }
    const auth::Caller caller = CallerOf(ctx);
    return std::visit(
        [&](const auto& s) { return Run(s, *ctx.auth_store, caller); },
        statement_);
  }

 private:
  static Result<QueryResult> Run(const cql::CreateRoleStatement& s,
                                 auth::AuthStore& store,
                                 const auth::Caller& caller) {
    auth::CreateRoleRequest request;
    request.name = s.name;
    request.if_not_exists = s.if_not_exists;
    request.options = RoleOptionsOfAst(s.options);
    return ChangeRolesWithPassword(store, std::move(request), caller,
                                   &auth::CreateRole);
  }
  static Result<QueryResult> Run(const cql::AlterRoleStatement& s,
                                 auth::AuthStore& store,
                                 const auth::Caller& caller) {
    auth::AlterRoleRequest request;
    request.name = s.name;
    request.options = RoleOptionsOfAst(s.options);
    return ChangeRolesWithPassword(store, std::move(request), caller,
                                   &auth::AlterRole);
  }
  static Result<QueryResult> Run(const cql::DropRoleStatement& s,
                                 auth::AuthStore& store,
                                 const auth::Caller& caller) {
    return ChangeRolesPlain(store, auth::DropRoleRequest{s.name, s.if_exists},
                            caller, &auth::DropRole);
  }
  static Result<QueryResult> Run(const cql::GrantRoleStatement& s,
                                 auth::AuthStore& store,
                                 const auth::Caller& caller) {
    return ChangeRolesPlain(store, auth::RoleGrantRequest{s.role, s.grantee},
                            caller, &auth::GrantRole);
  }
  static Result<QueryResult> Run(const cql::RevokeRoleStatement& s,
                                 auth::AuthStore& store,
                                 const auth::Caller& caller) {
    return ChangeRolesPlain(store, auth::RoleGrantRequest{s.role, s.revokee},
                            caller, &auth::RevokeRole);
  }
  static Result<QueryResult> Run(const cql::ListRolesStatement& s,
                                 auth::AuthStore& store,
                                 const auth::Caller& caller) {
    return ListRolesOrUsers(*store.Current(), s, caller);
  }
  template <typename T>
  static Result<QueryResult> Run(const T&, auth::AuthStore&,
                                 const auth::Caller&) {
    return Status::ServerError("not a role statement");
  }

  cql::Statement statement_;
};

template <typename T>
constexpr bool kIsRoleAst = std::is_same_v<T, cql::CreateRoleStatement> ||
                            std::is_same_v<T, cql::AlterRoleStatement> ||
                            std::is_same_v<T, cql::DropRoleStatement> ||
                            std::is_same_v<T, cql::GrantRoleStatement> ||
                            std::is_same_v<T, cql::RevokeRoleStatement> ||
                            std::is_same_v<T, cql::ListRolesStatement>;

}  // namespace

auth::Caller CallerOf(const ExecutionContext& ctx) {
  auth::Caller caller;
  if (ctx.client != nullptr) caller.user = ctx.client->user;
  caller.options = *ctx.auth_options;
  return caller;
}

bool IsRoleStatement(const cql::Statement& statement) {
  return std::visit(
      [](const auto& s) { return kIsRoleAst<std::decay_t<decltype(s)>>; },
      statement);
}

std::shared_ptr<PreparedStatement> PrepareRoleStatement(
    const cql::Statement& statement) {
  return std::make_shared<RoleStatement>(statement);
}

}  // namespace keywise::query
