// Authorization through QueryProcessor (docs/security.md, 3): GRANT /
// REVOKE / LIST PERMISSIONS, the check before every execution (prepared
// statements and batch entries too), the tables everyone may read, the
// creator's grants and the revokes on drop. The pure checks are
// auth/permission_statements_test.
#include <gtest/gtest.h>

#include "query/auth_statements_test_util.h"
#include "query/statements/access.h"

namespace keywise::query {
namespace {

using Rows = std::vector<std::vector<std::string>>;

class AuthorizationTest : public AuthStatementsTest {
 protected:
  void SetUp() override {
    AuthStatementsTest::SetUp();
    OkAs("cassandra",
         "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', "
         "'replication_factor': 1}");
    OkAs("cassandra", "CREATE TABLE ks.t (k int PRIMARY KEY, v int)");
    OkAs("cassandra", "CREATE ROLE bob WITH LOGIN = true AND PASSWORD = 'b'");
  }
  void ExpectNo(const std::string& user, const std::string& cql,
                const std::string& permission, const std::string& resource) {
    ExpectErrorAs(user, cql, ErrorCode::kUnauthorized,
                  "User " + user + " has no " + permission +
                      " permission on " + resource + " or any of its parents");
  }
};

TEST_F(AuthorizationTest, StatementsNeedTheirPermissions) {
  ExpectNo("bob", "SELECT * FROM ks.t", "SELECT", "<table ks.t>");
  ExpectNo("bob", "INSERT INTO ks.t (k, v) VALUES (1, 1)", "MODIFY",
           "<table ks.t>");
  ExpectNo("bob", "TRUNCATE ks.t", "MODIFY", "<table ks.t>");
  ExpectNo("bob", "EXPLAIN SELECT * FROM ks.t WHERE k = 1", "SELECT",
           "<table ks.t>");
  ExpectNo("bob", "CREATE TABLE ks.u (k int PRIMARY KEY)", "CREATE",
           "<keyspace ks>");
  ExpectNo("bob", "ALTER TABLE ks.t ADD w int", "ALTER", "<table ks.t>");
  ExpectNo("bob", "DROP TABLE ks.t", "DROP", "<table ks.t>");
  ExpectNo("bob", "CREATE INDEX ON ks.t (v)", "ALTER", "<table ks.t>");
  ExpectNo("bob",
           "CREATE KEYSPACE ks2 WITH replication = {'class': "
           "'SimpleStrategy', 'replication_factor': 1}",
           "CREATE", "<all keyspaces>");
  ExpectNo("bob", "DROP KEYSPACE ks", "DROP", "<keyspace ks>");
  // A grant on the keyspace covers its tables.
  OkAs("cassandra", "GRANT SELECT ON KEYSPACE ks TO bob");
  OkAs("bob", "SELECT * FROM ks.t");
  ExpectNo("bob", "INSERT INTO ks.t (k, v) VALUES (1, 1)", "MODIFY",
           "<table ks.t>");
  OkAs("cassandra", "GRANT MODIFY ON ks.t TO bob");
  OkAs("bob", "INSERT INTO ks.t (k, v) VALUES (1, 1)");
  OkAs("bob", "USE ks");
  // A conditional write also needs SELECT (it reads).
  OkAs("cassandra", "REVOKE SELECT ON KEYSPACE ks FROM bob");
  ExpectNo("bob", "INSERT INTO ks.t (k, v) VALUES (2, 2) IF NOT EXISTS",
           "SELECT", "<table ks.t>");
  ExpectNo("bob", "UPDATE ks.t SET v = 3 WHERE k = 1 IF v = 1", "SELECT",
           "<table ks.t>");
}

TEST_F(AuthorizationTest, SystemTablesEveryoneMayRead) {
  // (A bare engine has no system tables: test_authorization.py reads them
  // through a node.)
  EXPECT_TRUE(ReadableByEveryone("system", "local"));
  EXPECT_TRUE(ReadableByEveryone("system", "peers_v2"));
  EXPECT_TRUE(ReadableByEveryone("system", "tablets"));
  EXPECT_TRUE(ReadableByEveryone("system_schema", "tables"));
  EXPECT_TRUE(ReadableByEveryone("system_virtual_schema", "columns"));
  EXPECT_FALSE(ReadableByEveryone("system", "paxos"));
  EXPECT_FALSE(ReadableByEveryone("system_auth", "roles"));
  EXPECT_FALSE(ReadableByEveryone("system_views", "settings"));
  EXPECT_FALSE(ReadableByEveryone("system_traces", "sessions"));
  // Internal clients (the console, the node's own) are not checked.
  ClientState internal;
  internal.internal = true;
  EXPECT_TRUE(processor_->Process("SELECT * FROM ks.t", QueryOptions{},
                                  &internal)
                  .ok());
}

TEST_F(AuthorizationTest, ARevokeStopsThePreparedStatementsNextExecution) {
  OkAs("cassandra", "GRANT SELECT ON ks.t TO bob");
  ClientState bob;
  bob.user = "bob";
  Result<PreparedPtr> prepared =
      processor_->Prepare("SELECT * FROM ks.t WHERE k = ?", bob);
  ASSERT_TRUE(prepared.ok());
  QueryOptions options;
  options.values.push_back(Value::Of(EncodeInt(1)));
  EXPECT_TRUE(processor_->Execute(*prepared, options, &bob).ok());
  OkAs("cassandra", "REVOKE SELECT ON ks.t FROM bob");
  Result<QueryResult> again = processor_->Execute(*prepared, options, &bob);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), ErrorCode::kUnauthorized);
  // Preparing alone checks nothing.
  EXPECT_TRUE(processor_->Prepare("SELECT * FROM ks.t", bob).ok());
}

TEST_F(AuthorizationTest, EveryStatementOfABatchIsChecked) {
  OkAs("cassandra", "CREATE TABLE ks.u (k int PRIMARY KEY, v int)");
  OkAs("cassandra", "GRANT MODIFY ON ks.t TO bob");
  ExpectNo("bob",
           "BEGIN BATCH INSERT INTO ks.t (k, v) VALUES (1, 1); INSERT INTO "
           "ks.u (k, v) VALUES (1, 1); APPLY BATCH",
           "MODIFY", "<table ks.u>");
  ClientState bob;
  bob.user = "bob";
  Result<PreparedPtr> t =
      processor_->Prepare("INSERT INTO ks.t (k, v) VALUES (1, 1)", bob);
  Result<PreparedPtr> u =
      processor_->Prepare("INSERT INTO ks.u (k, v) VALUES (1, 1)", bob);
  ASSERT_TRUE(t.ok() && u.ok());
  Result<QueryResult> batch = processor_->ExecuteBatch(
      cql::BatchType::kLogged, {{*t, {}}, {*u, {}}}, QueryOptions{}, &bob);
  ASSERT_FALSE(batch.ok());
  EXPECT_EQ(batch.status().code(), ErrorCode::kUnauthorized);
  // Nothing of the refused batch was written.
  Rows rows = Cells(OkAs("cassandra", "SELECT k FROM ks.t"));
  EXPECT_TRUE(rows.empty());
}

TEST_F(AuthorizationTest, MaterializedViewsNeedTheBaseAndTheViews) {
  OkAs("cassandra",
       "CREATE MATERIALIZED VIEW ks.by_v AS SELECT * FROM ks.t WHERE v IS "
       "NOT NULL AND k IS NOT NULL PRIMARY KEY (v, k)");
  OkAs("cassandra", "GRANT MODIFY ON ks.t TO bob");
  // Writing the base reads it and writes the view.
  ExpectNo("bob", "INSERT INTO ks.t (k, v) VALUES (1, 1)", "SELECT",
           "<table ks.t>");
  OkAs("cassandra", "GRANT SELECT ON ks.t TO bob");
  ExpectNo("bob", "INSERT INTO ks.t (k, v) VALUES (1, 1)", "MODIFY",
           "<table ks.by_v>");
  OkAs("cassandra", "GRANT MODIFY ON ks.by_v TO bob");
  OkAs("bob", "INSERT INTO ks.t (k, v) VALUES (1, 1)");
  // Reading the view needs SELECT on the base.
  OkAs("bob", "SELECT * FROM ks.by_v");
}

TEST_F(AuthorizationTest, DdlIsCheckedAgainstTheSchemaWhenItRuns) {
  // Prepared before the view exists, its base is unknown then: the check
  // at execution still finds it (Cassandra's authorize looks it up).
  ClientState bob;
  bob.user = "bob";
  Result<PreparedPtr> drop =
      processor_->Prepare("DROP MATERIALIZED VIEW ks.later", bob);
  ASSERT_TRUE(drop.ok()) << drop.status().ToString();
  OkAs("cassandra",
       "CREATE MATERIALIZED VIEW ks.later AS SELECT * FROM ks.t WHERE v IS "
       "NOT NULL AND k IS NOT NULL PRIMARY KEY (v, k)");
  Result<QueryResult> r = processor_->Execute(*drop, QueryOptions{}, &bob);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "User bob has no ALTER permission on <table ks.t> or any of its "
            "parents");
  EXPECT_NE(engine_->catalog().snapshot()->FindTable("ks", "later"), nullptr);
}

TEST_F(AuthorizationTest, CreateIfNotExistsOfAnExistingTableGrantsNothing) {
  OkAs("cassandra", "GRANT CREATE ON KEYSPACE ks TO bob");
  QueryResult r =
      OkAs("bob", "CREATE TABLE IF NOT EXISTS ks.t (k int PRIMARY KEY)");
  EXPECT_TRUE(IsVoid(r));
  EXPECT_FALSE(Find("bob")->permissions.contains("data/ks/t"));
}

TEST_F(AuthorizationTest, ListPermissionsAsCassandra) {
  OkAs("cassandra", "GRANT SELECT ON KEYSPACE ks TO bob");
  OkAs("cassandra", "GRANT MODIFY ON TABLE ks.t TO bob");
  QueryResult r = OkAs("cassandra", "LIST ALL PERMISSIONS OF bob");
  EXPECT_EQ(ColumnNames(r), (std::vector<std::string>{
                                "system_auth.permissions.role text",
                                "system_auth.permissions.username text",
                                "system_auth.permissions.resource text",
                                "system_auth.permissions.permission text"}));
  EXPECT_EQ(Cells(r), (Rows{{"bob", "bob", "<keyspace ks>", "SELECT"},
                            {"bob", "bob", "<table ks.t>", "MODIFY"}}));
  // ON a table also lists its parents; NORECURSIVE only the table.
  EXPECT_EQ(Cells(OkAs("cassandra", "LIST ALL ON ks.t OF bob")).size(), 2u);
  EXPECT_EQ(Cells(OkAs("cassandra", "LIST ALL ON ks.t OF bob NORECURSIVE")),
            (Rows{{"bob", "bob", "<table ks.t>", "MODIFY"}}));
  EXPECT_TRUE(IsVoid(OkAs("cassandra", "LIST ALTER OF bob")));
  // A role may list its own.
  EXPECT_EQ(Cells(OkAs("bob", "LIST ALL OF bob")).size(), 2u);
  ExpectErrorAs("bob", "LIST ALL", ErrorCode::kUnauthorized,
                "You are not authorized to view everyone's permissions");
  ExpectErrorAs("cassandra", "LIST ALL ON ks.nope", ErrorCode::kInvalid,
                "<table ks.nope> doesn't exist");
}

TEST_F(AuthorizationTest, GrantErrors) {
  ExpectErrorAs("cassandra", "GRANT SELECT ON ks.t TO nobody",
                ErrorCode::kInvalid, "Role nobody doesn't exist");
  ExpectErrorAs("cassandra", "GRANT SELECT ON ks.nope TO bob",
                ErrorCode::kInvalid, "Resource <table ks.nope> doesn't exist");
  ExpectErrorAs("cassandra", "GRANT SELECT ON KEYSPACE nope TO bob",
                ErrorCode::kInvalid, "Resource <keyspace nope> doesn't exist");
  ExpectErrorAs("cassandra", "GRANT CREATE ON ks.t TO bob",
                ErrorCode::kSyntaxError,
                "Resource type DataResource does not support any of the "
                "requested permissions");
  ExpectErrorAs("cassandra", "GRANT SELECT ON t TO bob", ErrorCode::kInvalid,
                "No keyspace has been specified. USE a keyspace, or "
                "explicitly specify keyspace.tablename");
  ExpectErrorAs("bob", "GRANT SELECT ON ks.t TO bob",
                ErrorCode::kUnauthorized,
                "User bob has no AUTHORIZE permission on <table ks.t> or any "
                "of its parents");
  // ALL is cut to what the resource accepts.
  OkAs("cassandra", "GRANT ALL ON ks.t TO bob");
  EXPECT_EQ(Find("bob")->permissions.at("data/ks/t"),
            auth::Resource::Table("ks", "t").Applicable());
}

TEST_F(AuthorizationTest, CreatorsAreGrantedAndDropsRevoke) {
  OkAs("cassandra", "GRANT CREATE ON ALL KEYSPACES TO bob");
  OkAs("bob",
       "CREATE KEYSPACE bobs WITH replication = {'class': 'SimpleStrategy', "
       "'replication_factor': 1}");
  EXPECT_EQ(Find("bob")->permissions.at("data/bobs"),
            auth::Resource::Keyspace("bobs").Applicable());
  OkAs("bob", "CREATE TABLE bobs.t (k int PRIMARY KEY)");
  OkAs("bob", "INSERT INTO bobs.t (k) VALUES (1)");
  EXPECT_EQ(Find("bob")->permissions.at("data/bobs/t"),
            auth::Resource::Table("bobs", "t").Applicable());
  // Another role's grant on the table goes with it too.
  OkAs("cassandra", "CREATE ROLE ann");
  OkAs("bob", "GRANT SELECT ON bobs.t TO ann");
  OkAs("bob", "DROP TABLE bobs.t");
  EXPECT_FALSE(Find("bob")->permissions.contains("data/bobs/t"));
  EXPECT_TRUE(Find("ann")->permissions.empty());
  // A table created again with the same name starts without grants.
  OkAs("cassandra", "CREATE TABLE bobs.t (k int PRIMARY KEY)");
  EXPECT_FALSE(Find("bob")->permissions.contains("data/bobs/t"));
  OkAs("bob", "DROP KEYSPACE bobs");
  EXPECT_FALSE(Find("bob")->permissions.contains("data/bobs"));
}

TEST_F(AuthorizationTest, AllowAllAuthorizerChecksNothing) {
  auth::AuthOptions options = Options(/*password_authenticator=*/true);
  options.cassandra_authorizer = false;
  processor_->SetAuth(&store_, options);
  OkAs("bob", "SELECT * FROM ks.t");
  OkAs("bob", "INSERT INTO ks.t (k, v) VALUES (1, 1)");
  ExpectErrorAs("cassandra", "GRANT SELECT ON ks.t TO bob",
                ErrorCode::kInvalid,
                "GRANT operation is not supported by AllowAllAuthorizer");
  ExpectErrorAs("cassandra", "LIST ALL", ErrorCode::kInvalid,
                "LIST PERMISSIONS operation is not supported by "
                "AllowAllAuthorizer");
}

}  // namespace
}  // namespace keywise::query
