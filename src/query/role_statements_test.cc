// The role statements through QueryProcessor with a MemoryAuthStore:
// results (LIST ROLES / LIST USERS metadata and rows, Void), what reaches
// the store (flags, hashes, memberships, the creator's grants) and the
// errors with their codes. The pure checks are auth/role_statements_test.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <variant>

#include "auth/memory_auth_store.h"
#include "query/auth_statements_test_util.h"
#include "auth/password_hash.h"
#include "common/clock.h"
#include "query/query_processor.h"
#include "query/statements/role_statement.h"
#include "schema/value_codec.h"
#include "storage/engine.h"
#include "testing/temp_dir.h"

namespace keywise::query {
namespace {

using RoleStatementsTest = AuthStatementsTest;

using Rows = std::vector<std::vector<std::string>>;

TEST_F(RoleStatementsTest, ListRolesAsCassandra) {
  QueryResult r = OkAs("cassandra", "LIST ROLES");
  EXPECT_EQ(ColumnNames(r), (std::vector<std::string>{
                                "system_auth.roles.role text",
                                "system_auth.roles.super boolean",
                                "system_auth.roles.login boolean",
                                "system_auth.roles.options map<text, text>",
                                "system_auth.roles.datacenters text"}));
  EXPECT_EQ(Cells(r), (Rows{{"cassandra", "True", "True", "{}", "ALL"}}));
}

TEST_F(RoleStatementsTest, CreateAlterDropWithPasswords) {
  EXPECT_TRUE(IsVoid(OkAs("cassandra",
                          "CREATE ROLE mike WITH PASSWORD = 'pw' AND LOGIN = "
                          "true")));
  const auth::Role* mike = Find("mike");
  ASSERT_NE(mike, nullptr);
  EXPECT_TRUE(mike->login);
  EXPECT_FALSE(mike->superuser);
  ASSERT_TRUE(mike->salted_hash.has_value());
  EXPECT_EQ(auth::CheckPassword("pw", *mike->salted_hash),
            auth::PasswordCheck::kMatch);
  // The creator holds ALTER, DROP and AUTHORIZE on what it created.
  EXPECT_EQ(Find("cassandra")->permissions.at("roles/mike"),
            (auth::PermissionSet{auth::Permission::kAlter,
                                 auth::Permission::kDrop,
                                 auth::Permission::kAuthorize}));
  // A role changes its own password.
  EXPECT_TRUE(IsVoid(OkAs("mike", "ALTER ROLE mike WITH PASSWORD = 'new'")));
  EXPECT_EQ(auth::CheckPassword("new", *Find("mike")->salted_hash),
            auth::PasswordCheck::kMatch);
  ExpectErrorAs("mike", "ALTER ROLE mike WITH LOGIN = false",
                ErrorCode::kUnauthorized, "You aren't allowed to alter LOGIN");
  ExpectErrorAs("mike", "CREATE ROLE other",
                ErrorCode::kUnauthorized,
                "User mike does not have sufficient privileges to perform "
                "the requested operation");
  ExpectErrorAs("cassandra", "CREATE ROLE mike", ErrorCode::kInvalid,
                "mike already exists");
  EXPECT_TRUE(IsVoid(OkAs("cassandra", "CREATE ROLE IF NOT EXISTS mike")));
  // libxcrypt hashes C strings: a NUL would cut the password short.
  const char kNul[] = "CREATE ROLE r WITH PASSWORD = 'a\0b'";
  ExpectErrorAs("cassandra", std::string(kNul, sizeof(kNul) - 1),
                ErrorCode::kInvalid, "Passwords cannot contain a NUL character");
}

TEST_F(RoleStatementsTest, ErrorsAndTheirCodes) {
  ExpectErrorAs("cassandra", "ALTER ROLE cassandra WITH SUPERUSER = false",
                ErrorCode::kUnauthorized,
                "You aren't allowed to alter your own superuser status or "
                "that of a role granted to you");
  ExpectErrorAs("cassandra", "ALTER ROLE ghost WITH LOGIN = true",
                ErrorCode::kInvalid, "ghost doesn't exist");
  ExpectErrorAs("cassandra", "ALTER ROLE cassandra", ErrorCode::kInvalid,
                "ALTER [ROLE|USER] can't be empty");
  ExpectErrorAs("cassandra", "CREATE ROLE r WITH OPTIONS = {'a': 'b'}",
                ErrorCode::kInvalid,
                "org.apache.cassandra.auth.CassandraRoleManager doesn't "
                "support OPTIONS");
  ExpectErrorAs("cassandra", "CREATE ROLE ''", ErrorCode::kInvalid,
                "Role name can't be an empty string");
  ExpectErrorAs("cassandra", "DROP ROLE cassandra", ErrorCode::kInvalid,
                "Cannot DROP primary role for current login");
  ExpectErrorAs("cassandra", "DROP ROLE ghost", ErrorCode::kInvalid,
                "ghost doesn't exist");
  EXPECT_TRUE(IsVoid(OkAs("cassandra", "DROP ROLE IF EXISTS ghost")));
  ExpectErrorAs("cassandra", "CREATE ROLE r WITH LOGIN = true AND LOGIN = true",
                ErrorCode::kSyntaxError,
                "Multiple definition for property 'LOGIN'");
  // Anonymous (AllowAllAuthenticator): nothing runs.
  Result<QueryResult> anonymous = RunAs(std::nullopt, "LIST ROLES");
  EXPECT_EQ(anonymous.status().code(), ErrorCode::kUnauthorized);
  EXPECT_EQ(anonymous.status().message(),
            "You have to be logged in and not anonymous to perform this "
            "request");
}

TEST_F(RoleStatementsTest, GrantRevokeAndListRolesOf) {
  OkAs("cassandra", "CREATE ROLE base");
  OkAs("cassandra", "CREATE ROLE team");
  OkAs("cassandra", "CREATE ROLE \"Mike\" WITH LOGIN = true");
  EXPECT_TRUE(IsVoid(OkAs("cassandra", "GRANT base TO team")));
  EXPECT_TRUE(IsVoid(OkAs("cassandra", "GRANT team TO 'Mike'")));
  ExpectErrorAs("cassandra", "GRANT base TO \"Mike\"", ErrorCode::kInvalid,
                "Mike is a member of base");
  ExpectErrorAs("cassandra", "GRANT \"Mike\" TO base", ErrorCode::kInvalid,
                "Mike is a member of base");
  ExpectErrorAs("cassandra", "REVOKE base FROM \"Mike\"", ErrorCode::kInvalid,
                "Mike is not a member of base");
  ExpectErrorAs("cassandra", "GRANT mike TO base", ErrorCode::kInvalid,
                "mike doesn't exist");
  EXPECT_EQ(Cells(OkAs("cassandra", "LIST ROLES OF \"Mike\"")),
            (Rows{{"Mike", "False", "True", "{}", "ALL"},
                  {"base", "False", "False", "{}", "ALL"},
                  {"team", "False", "False", "{}", "ALL"}}));
  EXPECT_EQ(Cells(OkAs("cassandra", "LIST ROLES OF 'Mike' NORECURSIVE")),
            (Rows{{"Mike", "False", "True", "{}", "ALL"},
                  {"team", "False", "False", "{}", "ALL"}}));
  // Without DESCRIBE: its own roles only, and the trailing space.
  EXPECT_EQ(Cells(OkAs("Mike", "LIST ROLES NORECURSIVE")).size(), 2u);
  ExpectErrorAs("Mike", "LIST ROLES OF cassandra", ErrorCode::kUnauthorized,
                "You are not authorized to view roles granted to cassandra ");
  ExpectErrorAs("cassandra", "LIST ROLES OF ghost", ErrorCode::kInvalid,
                "<role ghost> doesn't exist");
  EXPECT_TRUE(IsVoid(OkAs("cassandra", "REVOKE team FROM \"Mike\"")));
  EXPECT_TRUE(Find("Mike")->member_of.empty());
  // DROP removes memberships and grants on the role.
  OkAs("cassandra", "DROP ROLE base");
  EXPECT_TRUE(Find("team")->member_of.empty());
  EXPECT_FALSE(Find("cassandra")->permissions.contains("roles/base"));
  // A caller whose role is gone lists nothing: a Void result.
  EXPECT_TRUE(IsVoid(OkAs("gone", "LIST ROLES")));
}

TEST_F(RoleStatementsTest, UserForms) {
  EXPECT_TRUE(IsVoid(OkAs("cassandra", "CREATE USER Bob WITH PASSWORD 'pw'")));
  const auth::Role* bob = Find("Bob");
  ASSERT_NE(bob, nullptr);
  EXPECT_TRUE(bob->login);
  EXPECT_FALSE(bob->superuser);
  OkAs("cassandra", "CREATE USER IF NOT EXISTS Bob SUPERUSER");
  EXPECT_FALSE(Find("Bob")->superuser);
  OkAs("cassandra", "ALTER USER Bob SUPERUSER");
  EXPECT_TRUE(Find("Bob")->superuser);
  OkAs("cassandra", "CREATE ROLE quiet");
  QueryResult users = OkAs("cassandra", "LIST USERS");
  EXPECT_EQ(ColumnNames(users), (std::vector<std::string>{
                                    "system_auth.users.name text",
                                    "system_auth.users.super boolean",
                                    "system_auth.users.datacenters text"}));
  EXPECT_EQ(Cells(users),
            (Rows{{"Bob", "True", "ALL"}, {"cassandra", "True", "ALL"}}));
  EXPECT_TRUE(IsVoid(OkAs("cassandra", "DROP USER Bob")));
  EXPECT_EQ(Find("Bob"), nullptr);
}

TEST_F(RoleStatementsTest, PasswordNeedsPasswordAuthenticator) {
  processor_->SetAuth(&store_, Options(/*password_authenticator=*/false));
  ExpectErrorAs("cassandra", "CREATE ROLE r WITH PASSWORD = 'p'",
                ErrorCode::kInvalid,
                "org.apache.cassandra.auth.CassandraRoleManager doesn't "
                "support PASSWORD");
  EXPECT_TRUE(IsVoid(OkAs("cassandra", "CREATE ROLE r WITH LOGIN = true")));
}

TEST_F(RoleStatementsTest, RefusedWithoutAStore) {
  QueryProcessor bare(engine_.get());
  ClientState client;
  client.user = "cassandra";
  Result<QueryResult> r = bare.Process("LIST ROLES", QueryOptions{}, &client);
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalid);
  EXPECT_EQ(r.status().message(), kRolesDisabledMessage);
}

TEST_F(RoleStatementsTest, PreparedRoleStatementsRunOnAWorker) {
  ClientState client;
  client.user = "cassandra";
  Result<PreparedPtr> prepared =
      processor_->Prepare("CREATE ROLE r WITH PASSWORD = 'p'", client);
  ASSERT_TRUE(prepared.ok()) << prepared.status().ToString();
  EXPECT_FALSE((*prepared)->IsQuick(QueryOptions{}));
  EXPECT_EQ(Find("r"), nullptr);  // preparing reads and writes nothing
  ASSERT_TRUE(processor_->Execute(*prepared, QueryOptions{}, &client).ok());
  EXPECT_NE(Find("r"), nullptr);
  Result<QueryResult> again =
      processor_->Execute(*prepared, QueryOptions{}, &client);
  EXPECT_EQ(again.status().message(), "r already exists");
}

}  // namespace
}  // namespace keywise::query
