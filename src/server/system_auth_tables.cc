#include "server/system_auth_tables.h"

#include <algorithm>
#include <chrono>
#include <set>
#include <vector>

#include "query/ddl/schema_properties.h"

namespace keywise::server {
namespace {

using auth::Role;

int64_t NowMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string SetLiteral(const std::set<std::string>& values) {
  std::string out = "{";
  for (const std::string& v : values) {
    if (out.size() > 1) out += ", ";
    out += query::QuoteCql(v);
  }
  return out + "}";
}

// The statements that remove `role`'s rows, at `ts`.
void DeleteRows(const Role& role, int64_t ts, std::string* batch) {
  const std::string name = query::QuoteCql(role.name);
  const std::string at = " USING TIMESTAMP " + std::to_string(ts);
  *batch += "DELETE FROM system_auth.roles" + at + " WHERE role = " + name + ";\n";
  *batch += "DELETE FROM system_auth.role_permissions" + at +
            " WHERE role = " + name + ";\n";
  for (const std::string& granted : role.member_of) {
    *batch += "DELETE FROM system_auth.role_members" + at + " WHERE role = " +
              query::QuoteCql(granted) + " AND member = " + name + ";\n";
  }
  for (const auto& [resource, permissions] : role.permissions) {
    *batch += "DELETE FROM system_auth.resource_role_permissons_index" + at +
              " WHERE resource = " + query::QuoteCql(resource) +
              " AND role = " + name + ";\n";
  }
}

// The statements that write `role`'s rows, at `ts`.
void InsertRows(const Role& role, int64_t ts, std::string* batch) {
  const std::string name = query::QuoteCql(role.name);
  const std::string at = " USING TIMESTAMP " + std::to_string(ts);
  *batch += "INSERT INTO system_auth.roles (role, is_superuser, can_login, "
            "member_of" +
            std::string(role.salted_hash ? ", salted_hash" : "") +
            ") VALUES (" + name + ", " + (role.superuser ? "true" : "false") +
            ", " + (role.login ? "true" : "false") + ", " +
            SetLiteral(role.member_of) +
            (role.salted_hash ? ", " + query::QuoteCql(*role.salted_hash) : "") +
            ")" + at + ";\n";
  for (const std::string& granted : role.member_of) {
    *batch += "INSERT INTO system_auth.role_members (role, member) VALUES (" +
              query::QuoteCql(granted) + ", " + name + ")" + at + ";\n";
  }
  for (const auto& [resource, permissions] : role.permissions) {
    if (permissions.empty()) continue;
    const std::vector<std::string> names = permissions.Names();
    *batch += "INSERT INTO system_auth.role_permissions (role, resource, "
              "permissions) VALUES (" +
              name + ", " + query::QuoteCql(resource) + ", " +
              SetLiteral({names.begin(), names.end()}) + ")" + at + ";\n";
    *batch += "INSERT INTO system_auth.resource_role_permissons_index "
              "(resource, role) VALUES (" +
              query::QuoteCql(resource) + ", " + name + ")" + at + ";\n";
  }
}

}  // namespace

Result<std::map<std::string, Role, std::less<>>> ReadSystemAuth(
    query::InternalCql& cql) {
  KW_ASSIGN_OR_RETURN(
      query::CqlRows roles,
      cql.Select("SELECT role, is_superuser, can_login, salted_hash, "
                 "member_of FROM system_auth.roles"));
  std::map<std::string, Role, std::less<>> by_name;
  for (const query::CqlRow& row : roles.rows) {
    Role r;
    r.name = row.Text("role");
    r.superuser = row.Bool("is_superuser");
    r.login = row.Bool("can_login");
    if (!row.IsNull("salted_hash")) r.salted_hash = row.Text("salted_hash");
    for (std::string& m : row.TextSet("member_of")) r.member_of.insert(std::move(m));
    by_name.emplace(r.name, std::move(r));
  }
  KW_ASSIGN_OR_RETURN(
      query::CqlRows permissions,
      cql.Select("SELECT role, resource, permissions FROM "
                 "system_auth.role_permissions"));
  for (const query::CqlRow& row : permissions.rows) {
    auto it = by_name.find(row.Text("role"));
    if (it == by_name.end()) continue;  // a leftover of a dropped role
    auth::PermissionSet set;
    for (const std::string& p : row.TextSet("permissions")) {
      if (std::optional<auth::Permission> known = auth::PermissionOfName(p)) {
        set.Add(*known);
      }
    }
    it->second.permissions[row.Text("resource")] = set;
  }
  return by_name;
}

Status SystemAuthWriter::Write(const auth::AuthState& before,
                               const auth::RoleChanges& changes) {
  if (changes.empty()) return Status::OK();
  const int64_t ts = std::max(NowMicros(), last_timestamp_ + 2);
  std::string batch = "BEGIN UNLOGGED BATCH\n";
  for (const auto& [name, role] : changes) {
    if (const Role* old = before.Find(name)) DeleteRows(*old, ts - 1, &batch);
    if (role) InsertRows(*role, ts, &batch);
  }
  batch += "APPLY BATCH";
  KW_RETURN_IF_ERROR(cql_.Execute(batch));
  last_timestamp_ = ts;
  return Status::OK();
}

auth::RoleChanges DiffRoles(const auth::AuthState& before,
                            const auth::AuthState& after) {
  auth::RoleChanges changes;
  for (const auto& [name, role] : before.roles()) {
    if (after.Find(name) == nullptr) changes.emplace(name, std::nullopt);
  }
  for (const auto& [name, role] : after.roles()) {
    const Role* old = before.Find(name);
    if (old == nullptr || !(*old == role)) changes.emplace(name, role);
  }
  return changes;
}

}  // namespace keywise::server
