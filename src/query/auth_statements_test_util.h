// AuthStatementsTest: a QueryProcessor over a fresh engine with a
// MemoryAuthStore holding the default superuser, PasswordAuthenticator and
// CassandraAuthorizer; statements run as a given user, with helpers for
// results and errors. Shared by the role and authorization tests.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "auth/memory_auth_store.h"
#include "auth/password_hash.h"
#include "common/clock.h"
#include "query/query_processor.h"
#include "schema/value_codec.h"
#include "storage/engine.h"
#include "testing/temp_dir.h"

namespace keywise::query {

class AuthStatementsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    EngineOptions options;
    options.data_dir = dir_.str() + "/data";
    options.memtable_bytes = 4 << 20;
    auto opened = Engine::Open(options, clock_);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    engine_ = std::move(opened).value();
    processor_ = std::make_unique<QueryProcessor>(engine_.get());
    ASSERT_TRUE(auth::EnsureDefaultSuperuser(store_, auth::kMinBcryptRounds)
                    .ok());
    processor_->SetAuth(&store_, Options(/*password_authenticator=*/true));
  }

  static auth::AuthOptions Options(bool password_authenticator) {
    auth::AuthOptions options;
    options.password_authenticator = password_authenticator;
    options.cassandra_authorizer = true;
    options.bcrypt_rounds = auth::kMinBcryptRounds;
    return options;
  }

  Result<QueryResult> RunAs(std::optional<std::string> user,
                            const std::string& cql) {
    ClientState client;
    client.user = std::move(user);
    return processor_->Process(cql, QueryOptions{}, &client);
  }
  QueryResult OkAs(const std::string& user, const std::string& cql) {
    Result<QueryResult> r = RunAs(user, cql);
    EXPECT_TRUE(r.ok()) << cql << ": " << r.status().ToString();
    return r.ok() ? *r : QueryResult{};
  }
  void ExpectErrorAs(const std::string& user, const std::string& cql,
                     ErrorCode code, const std::string& message) {
    Result<QueryResult> r = RunAs(user, cql);
    ASSERT_FALSE(r.ok()) << cql;
    EXPECT_EQ(r.status().code(), code) << cql;
    EXPECT_EQ(r.status().message(), message) << cql;
  }
  const auth::Role* Find(const std::string& name) const {
    return store_.Current()->Find(name);
  }
  static bool IsVoid(const QueryResult& r) {
    return std::holds_alternative<VoidResult>(r.result);
  }
  // Each row's cells as cqlsh prints them ("True", "{}").
  static std::vector<std::vector<std::string>> Cells(const QueryResult& r) {
    const RowsResult* rows = std::get_if<RowsResult>(&r.result);
    EXPECT_NE(rows, nullptr);
    std::vector<std::vector<std::string>> out;
    if (rows == nullptr) return out;
    auto decoded = DecodeRows(*rows);
    EXPECT_TRUE(decoded.ok());
    for (const auto& row : *decoded) {
      std::vector<std::string> cells;
      for (size_t i = 0; i < row.size(); ++i) {
        cells.push_back(FormatValue(*rows->columns[i].type, *row[i]));
      }
      out.push_back(std::move(cells));
    }
    return out;
  }
  static std::vector<std::string> ColumnNames(const QueryResult& r) {
    std::vector<std::string> out;
    if (const RowsResult* rows = std::get_if<RowsResult>(&r.result)) {
      for (const ColumnSpec& c : rows->columns) {
        out.push_back(c.keyspace + "." + c.table + "." + c.name + " " +
                      c.type->ToCql());
      }
    }
    return out;
  }

  ::keywise::testing::TempDir dir_;
  ManualClock clock_{1767225600LL * 1000000};
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<QueryProcessor> processor_;
  auth::MemoryAuthStore store_;
};

}  // namespace keywise::query
