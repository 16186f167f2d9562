#include <gtest/gtest.h>

#include "cql/parser.h"
#include "cql/parser_test_util.h"

namespace keywise::cql {
namespace {

using RoleEntries = std::vector<std::pair<std::string, std::string>>;

TEST(ParserAuth, CreateRole) {
  auto bare = ParseAs<CreateRoleStatement>("CREATE ROLE Mike");
  EXPECT_EQ(bare.name, "mike");  // an identifier is lower-cased
  EXPECT_FALSE(bare.if_not_exists);
  EXPECT_TRUE(bare.options.empty());
  auto s = ParseAs<CreateRoleStatement>(
      "create role if not exists \"Mike\" with PASSWORD = 'S3cret' AND "
      "login = true and SUPERUSER = false AND OPTIONS = {'a': 'b', 'c': 1};");
  EXPECT_EQ(s.name, "Mike");
  EXPECT_TRUE(s.if_not_exists);
  EXPECT_EQ(s.options.password, "S3cret");
  EXPECT_EQ(s.options.login, true);
  EXPECT_EQ(s.options.superuser, false);
  EXPECT_EQ(s.options.options, (RoleEntries{{"a", "b"}, {"c", "1"}}));
  // A string literal keeps its case too; unreserved keywords are names.
  EXPECT_EQ(ParseAs<CreateRoleStatement>("CREATE ROLE 'Ann O''Neil'").name,
            "Ann O'Neil");
  EXPECT_EQ(ParseAs<CreateRoleStatement>("CREATE ROLE login").name, "login");
  EXPECT_EQ(ParseAs<CreateRoleStatement>("CREATE ROLE r WITH OPTIONS = {}")
                .options.options,
            RoleEntries{});
}

TEST(ParserAuth, AlterAndDropRole) {
  auto a = ParseAs<AlterRoleStatement>(
      "ALTER ROLE r WITH LOGIN = false AND PASSWORD = 'p'");
  EXPECT_EQ(a.name, "r");
  EXPECT_EQ(a.options.login, false);
  EXPECT_EQ(a.options.password, "p");
  EXPECT_FALSE(a.options.superuser.has_value());
  // No option parses; executing it says "ALTER [ROLE|USER] can't be empty".
  EXPECT_TRUE(ParseAs<AlterRoleStatement>("ALTER ROLE r").options.empty());
  auto d = ParseAs<DropRoleStatement>("DROP ROLE IF EXISTS \"R\"");
  EXPECT_EQ(d.name, "R");
  EXPECT_TRUE(d.if_exists);
  EXPECT_FALSE(ParseAs<DropRoleStatement>("drop role r").if_exists);
}

TEST(ParserAuth, UserFormsAreRoleStatements) {
  auto c = ParseAs<CreateRoleStatement>(
      "CREATE USER IF NOT EXISTS Bob WITH PASSWORD 'pw' SUPERUSER");
  EXPECT_EQ(c.name, "Bob");  // user names keep their case
  EXPECT_TRUE(c.if_not_exists);
  EXPECT_EQ(c.options.password, "pw");
  EXPECT_EQ(c.options.login, true);
  EXPECT_EQ(c.options.superuser, true);
  auto plain = ParseAs<CreateRoleStatement>("CREATE USER 'Eve'");
  EXPECT_EQ(plain.name, "Eve");
  EXPECT_EQ(plain.options.login, true);
  EXPECT_EQ(plain.options.superuser, false);  // always set, as Cassandra
  EXPECT_FALSE(plain.options.password.has_value());
  EXPECT_EQ(ParseAs<CreateRoleStatement>("CREATE USER u NOSUPERUSER")
                .options.superuser,
            false);
  auto a = ParseAs<AlterRoleStatement>("ALTER USER Bob WITH PASSWORD 'x'");
  EXPECT_EQ(a.name, "Bob");
  EXPECT_EQ(a.options.password, "x");
  EXPECT_FALSE(a.options.login.has_value());
  EXPECT_FALSE(a.options.superuser.has_value());
  EXPECT_EQ(ParseAs<AlterRoleStatement>("ALTER USER bob NOSUPERUSER")
                .options.superuser,
            false);
  auto d = ParseAs<DropRoleStatement>("DROP USER IF EXISTS Bob");
  EXPECT_EQ(d.name, "Bob");
  EXPECT_TRUE(d.if_exists);
  auto l = ParseAs<ListRolesStatement>("LIST USERS");
  EXPECT_TRUE(l.users);
  EXPECT_FALSE(l.recursive);
  EXPECT_FALSE(l.of.has_value());
}

TEST(ParserAuth, GrantRevokeAndListRoles) {
  auto g = ParseAs<GrantRoleStatement>("GRANT Admins TO 'Mike'");
  EXPECT_EQ(g.role, "admins");
  EXPECT_EQ(g.grantee, "Mike");
  // ALL is an unreserved keyword: a role unless PERMISSIONS or ON follows.
  EXPECT_EQ(ParseAs<GrantRoleStatement>("GRANT all TO r").role, "all");
  auto r = ParseAs<RevokeRoleStatement>("revoke \"A\" from b");
  EXPECT_EQ(r.role, "A");
  EXPECT_EQ(r.revokee, "b");
  auto l = ParseAs<ListRolesStatement>("LIST ROLES");
  EXPECT_FALSE(l.of.has_value());
  EXPECT_TRUE(l.recursive);
  EXPECT_FALSE(l.users);
  auto of = ParseAs<ListRolesStatement>("LIST ROLES OF Mike NORECURSIVE");
  EXPECT_EQ(of.of, "mike");
  EXPECT_FALSE(of.recursive);
  EXPECT_EQ(ParseAs<ListRolesStatement>("LIST ROLES OF 'Mike'").of, "Mike");
}

TEST(ParserAuth, Errors) {
  // Cassandra's RoleOptions.setOption, thrown while parsing: no position.
  EXPECT_EQ(ParseError("CREATE ROLE r WITH LOGIN = true AND LOGIN = false"),
            "Multiple definition for property 'LOGIN'");
  EXPECT_EQ(ParseError("ALTER ROLE r WITH PASSWORD = 'a' AND PASSWORD = 'b'"),
            "Multiple definition for property 'PASSWORD'");
  EXPECT_EQ(
      ParseError("CREATE ROLE r WITH SUPERUSER = true AND SUPERUSER = true"),
      "Multiple definition for property 'SUPERUSER'");
  EXPECT_EQ(
      ParseError("CREATE ROLE r WITH OPTIONS = {} AND OPTIONS = {'a': 'b'}"),
      "Multiple definition for property 'OPTIONS'");
  // Values are tokens of the grammar: BOOLEAN, STRING_LITERAL, a map.
  EXPECT_EQ(ParseError("CREATE ROLE r WITH LOGIN = 'yes'"),
            "line 1:27 mismatched input ''yes'' expecting BOOLEAN (...ROLE r "
            "WITH LOGIN = ['yes']...)");
  EXPECT_EQ(ParseError("CREATE ROLE r WITH PASSWORD = 1"),
            "line 1:30 mismatched input '1' expecting STRING_LITERAL (...ROLE "
            "r WITH PASSWORD = [1]...)");
  EXPECT_EQ(ParseError("CREATE ROLE r WITH OPTIONS = 'x'"),
            "line 1:29 mismatched input ''x'' expecting '{' (...ROLE r WITH "
            "OPTIONS = ['x']...)");
  EXPECT_EQ(ParseError("CREATE ROLE r WITH FOO = 1"),
            "line 1:19 no viable alternative at input 'FOO' (CREATE ROLE r "
            "WITH [FOO] =...)");
  EXPECT_EQ(ParseError("CREATE ROLE ?"),
            "Bind variables cannot be used for role names");
  EXPECT_EQ(ParseError("CREATE USER \"Bob\""),
            "Quoted strings are are not supported for user names and USER is "
            "deprecated, please use ROLE");
  EXPECT_EQ(ParseError("CREATE USER u WITH PASSWORD = 'p'"),
            "line 1:28 mismatched input '=' expecting STRING_LITERAL (CREATE "
            "USER u WITH PASSWORD [=] 'p')");
  EXPECT_EQ(ParseError("GRANT r"),
            "line 1:7 mismatched input '<EOF>' expecting K_TO");
  EXPECT_EQ(
      ParseError("REVOKE r TO g"),
      "line 1:9 mismatched input 'TO' expecting K_FROM (REVOKE r [TO] g)");
  EXPECT_EQ(ParseError("LIST ROLES OF"),
            "line 1:13 mismatched input '<EOF>' expecting IDENT");
}

TEST(ParserAuth, GrantAndRevokePermissions) {
  using Kind = PermissionResource::Kind;
  using Op = PermissionsStatement::Op;
  auto g = ParseAs<PermissionsStatement>("GRANT SELECT ON ks.t TO Bob");
  EXPECT_EQ(g.op, Op::kGrant);
  EXPECT_EQ(g.permissions, std::vector<std::string>{"select"});
  ASSERT_TRUE(g.resource.has_value());
  EXPECT_EQ(g.resource->kind, Kind::kTable);
  EXPECT_EQ(g.resource->table.keyspace, "ks");
  EXPECT_EQ(g.resource->table.name, "t");
  EXPECT_EQ(g.role, "bob");
  auto all = ParseAs<PermissionsStatement>(
      "grant all permissions on keyspace Ks to 'Ann'");
  EXPECT_TRUE(all.permissions.empty());
  EXPECT_EQ(all.resource->kind, Kind::kKeyspace);
  EXPECT_EQ(all.resource->keyspace, "ks");
  EXPECT_EQ(all.role, "Ann");
  EXPECT_EQ(ParseAs<PermissionsStatement>("GRANT ALL ON ALL KEYSPACES TO r")
                .resource->kind,
            Kind::kAllKeyspaces);
  auto t = ParseAs<PermissionsStatement>(
      "REVOKE MODIFY PERMISSION ON TABLE t FROM r");
  EXPECT_EQ(t.op, Op::kRevoke);
  EXPECT_EQ(t.resource->table.keyspace, "");
  EXPECT_EQ(t.resource->table.name, "t");
  EXPECT_EQ(ParseAs<PermissionsStatement>("GRANT ALTER ON ROLE 'X' TO r")
                .resource->role,
            "X");
  EXPECT_EQ(ParseAs<PermissionsStatement>("GRANT CREATE ON ALL ROLES TO r")
                .resource->kind,
            Kind::kAllRoles);
  // `role` as a table's name.
  auto role_table =
      ParseAs<PermissionsStatement>("GRANT SELECT ON role TO r");
  EXPECT_EQ(role_table.resource->kind, Kind::kTable);
  EXPECT_EQ(role_table.resource->table.name, "role");
  EXPECT_EQ(ParseAs<PermissionsStatement>("GRANT SELECT ON COLUMNFAMILY ks.t TO r")
                .resource->kind,
            Kind::kTable);
  EXPECT_NE(ParseError("GRANT EXECUTE ON ALL FUNCTIONS TO r")
                .find("Keywise has no function or MBean resources"),
            std::string::npos);
  EXPECT_NE(ParseError("GRANT SELECT ks.t TO r").find("expecting K_ON"),
            std::string::npos);
  EXPECT_NE(ParseError("REVOKE SELECT ON ks.t TO r").find("expecting K_FROM"),
            std::string::npos);
}

TEST(ParserAuth, ListPermissions) {
  using Op = PermissionsStatement::Op;
  auto bare = ParseAs<PermissionsStatement>("LIST ALL");
  EXPECT_EQ(bare.op, Op::kList);
  EXPECT_TRUE(bare.permissions.empty());
  EXPECT_FALSE(bare.resource.has_value());
  EXPECT_FALSE(bare.role.has_value());
  EXPECT_TRUE(bare.recursive);
  auto full = ParseAs<PermissionsStatement>(
      "LIST SELECT ON KEYSPACE ks OF Bob NORECURSIVE");
  EXPECT_EQ(full.permissions, std::vector<std::string>{"select"});
  EXPECT_EQ(full.resource->keyspace, "ks");
  EXPECT_EQ(full.role, "bob");
  EXPECT_FALSE(full.recursive);
  EXPECT_EQ(ParseAs<PermissionsStatement>("LIST ALL PERMISSIONS OF r").role,
            "r");
  // LIST ROLES and LIST USERS stay role statements.
  EXPECT_FALSE(ParseAs<ListRolesStatement>("LIST ROLES").users);
}

}  // namespace
}  // namespace keywise::cql
