// SelectStatement: what the .test scripts cannot express: bind metadata of
// prepared SELECTs, paging states (malformed ones, writes between pages,
// no state after the last page), and early stops.
#include <gtest/gtest.h>

#include <string>
#include <variant>
#include <vector>

#include "common/coding.h"
#include "query/cql_script_test_util.h"
#include "query/exec/paging_state.h"

namespace keywise::query {
namespace {

std::string IntValue(int32_t v) {
  std::string s;
  PutFixed32BE(&s, static_cast<uint32_t>(v));
  return s;
}

class SelectTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Exec(
        "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', "
        "'replication_factor': 1}");
    Exec("USE ks");
    Exec("CREATE TABLE t (k int, c int, v int, PRIMARY KEY (k, c))");
    for (int k = 0; k < 3; ++k) {
      for (int c = 0; c < 10; ++c) {
        Exec("INSERT INTO t (k, c, v) VALUES (" + std::to_string(k) + ", " +
             std::to_string(c) + ", " + std::to_string(k * 100 + c) + ")");
      }
    }
  }
  QueryResult Exec(const std::string& cql, QueryOptions options = {}) {
    Result<QueryResult> r = node_.processor().Process(cql, options, &client_);
    EXPECT_TRUE(r.ok()) << cql << ": " << r.status().ToString();
    return r.ok() ? std::move(r).value() : QueryResult{};
  }
  static const RowsResult& Rows(const QueryResult& r) {
    return std::get<RowsResult>(r.result);
  }
  // The int values of column `col` of every row.
  static std::vector<int> Column(const RowsResult& rows, size_t col) {
    std::vector<int> out;
    auto decoded = DecodeRows(rows);
    EXPECT_TRUE(decoded.ok());
    for (const auto& row : *decoded) {
      out.push_back(
          row[col] ? static_cast<int>(DecodeFixed32BE(row[col]->data())) : -1);
    }
    return out;
  }

  ScriptNode node_;
  ClientState client_;
};

// Quick statements run on the transport's I/O threads: only bounded reads
// of one partition qualify.
TEST_F(SelectTest, QuickStatementsAreBoundedReadsOfOnePartition) {
  auto quick = [&](const std::string& cql, QueryOptions options) {
    auto p = node_.processor().Prepare(cql, client_);
    EXPECT_TRUE(p.ok()) << cql << ": " << p.status().ToString();
    return p.ok() && (*p)->IsQuick(options);
  };
  QueryOptions unpaged;
  QueryOptions paged;
  paged.page_size = 100;
  QueryOptions big_page;
  big_page.page_size = 5000;
  EXPECT_TRUE(quick("SELECT v FROM t WHERE k = 1 AND c = 2", unpaged));
  EXPECT_TRUE(quick("SELECT v FROM t WHERE k = 1", paged));
  EXPECT_FALSE(quick("SELECT v FROM t WHERE k = 1", unpaged));
  EXPECT_FALSE(quick("SELECT v FROM t WHERE k = 1", big_page));
  EXPECT_TRUE(quick("SELECT v FROM t WHERE k = 1 LIMIT 100", big_page));
  EXPECT_TRUE(
      quick("SELECT v FROM t WHERE k = 1 AND c > 3 LIMIT 100", unpaged));
  EXPECT_FALSE(quick("SELECT v FROM t WHERE k = 1 LIMIT 100000", unpaged));
  QueryOptions bound_limit;
  bound_limit.values = {Value::Of(IntValue(1)), Value::Of(IntValue(10))};
  EXPECT_TRUE(quick("SELECT v FROM t WHERE k = ? LIMIT ?", bound_limit));
  bound_limit.values[1] = Value::Of(IntValue(1000000));
  EXPECT_FALSE(quick("SELECT v FROM t WHERE k = ? LIMIT ?", bound_limit));
  EXPECT_FALSE(quick("SELECT v FROM t WHERE k IN (1, 2) LIMIT 10", unpaged));
  EXPECT_FALSE(quick("SELECT v FROM t LIMIT 10", unpaged));
  EXPECT_FALSE(
      quick("SELECT v FROM t WHERE k = 1 AND v = 3 LIMIT 10 "
            "ALLOW FILTERING",
            unpaged));
  EXPECT_FALSE(quick("SELECT count(*) FROM t WHERE k = 1", paged));
  EXPECT_TRUE(quick("INSERT INTO t (k, c, v) VALUES (1, 2, 3)", unpaged));
  EXPECT_TRUE(quick("DELETE FROM t WHERE k = 1", unpaged));
  EXPECT_FALSE(quick("CREATE TABLE t2 (k int PRIMARY KEY)", unpaged));
  EXPECT_FALSE(quick("USE ks", unpaged));
}

TEST_F(SelectTest, PreparedMetadata) {
  auto p = node_.processor().Prepare(
      "SELECT v FROM t WHERE k = ? AND c IN ? LIMIT ? PER PARTITION LIMIT ?",
      client_);
  ASSERT_FALSE(p.ok());  // PER PARTITION LIMIT comes before LIMIT
  p = node_.processor().Prepare(
      "SELECT v FROM t WHERE k = ? AND c IN ? PER PARTITION LIMIT ? LIMIT ?",
      client_);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  const PreparedStatement& s = **p;
  EXPECT_EQ(s.kind, StatementKind::kSelect);
  ASSERT_NE(s.table, nullptr);
  EXPECT_EQ(s.table->name, "t");
  ASSERT_EQ(s.bind_specs.size(), 4u);
  EXPECT_EQ(s.bind_specs[0].name, "k");
  EXPECT_EQ(s.bind_specs[1].name, "in(c)");
  EXPECT_EQ(s.bind_specs[1].type->ToCql(), "list<int>");
  EXPECT_EQ(s.bind_specs[2].name, "[per_partition_limit]");
  EXPECT_EQ(s.bind_specs[3].name, "[limit]");
  EXPECT_EQ(s.partition_key_bind_indexes, std::vector<uint16_t>{0});
  ASSERT_EQ(s.result_columns.size(), 1u);
  EXPECT_EQ(s.result_columns[0].name, "v");

  p = node_.processor().Prepare(
      "SELECT * FROM t WHERE token(k) > ? AND (c) IN ? ALLOW FILTERING",
      client_);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ((*p)->bind_specs[0].name, "partition key token");
  EXPECT_EQ((*p)->bind_specs[0].type->ToCql(), "bigint");
  EXPECT_EQ((*p)->bind_specs[1].name, "in(c)");
  EXPECT_TRUE((*p)->partition_key_bind_indexes.empty());

  p = node_.processor().Prepare("SELECT * FROM t WHERE k = 1 AND (c) > ?",
                                client_);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ((*p)->bind_specs[0].name, "(c)");
}

TEST_F(SelectTest, BoundValues) {
  QueryOptions o;
  o.values = {Value::Of(IntValue(1)), Value::Of(IntValue(3))};
  auto p = node_.processor().Prepare("SELECT v FROM t WHERE k = ? AND c = ?",
                                     client_);
  ASSERT_TRUE(p.ok());
  auto r = node_.processor().Execute(*p, o, &client_);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Column(Rows(*r), 0), std::vector<int>{103});

  o.values = {Value::Null(), Value::Of(IntValue(3))};
  r = node_.processor().Execute(*p, o, &client_);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "Invalid null value in condition for column k");
  o.values = {Value::Of(IntValue(1)), Value::Unset()};
  r = node_.processor().Execute(*p, o, &client_);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "Invalid unset value for column c");

  p = node_.processor().Prepare("SELECT v FROM t WHERE k = 1 LIMIT ?", client_);
  ASSERT_TRUE(p.ok());
  o.values = {Value::Unset()};  // unset LIMIT = no limit
  r = node_.processor().Execute(*p, o, &client_);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Rows(*r).row_count, 10);
  o.values = {Value::Null()};
  r = node_.processor().Execute(*p, o, &client_);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "Invalid null value of limit");
}

TEST_F(SelectTest, PagingStateOnlyWhileRowsMayRemain) {
  QueryOptions o;
  o.page_size = 4;
  QueryResult r = Exec("SELECT c FROM t WHERE k = 1", o);
  EXPECT_EQ(Column(Rows(r), 0), (std::vector<int>{0, 1, 2, 3}));
  ASSERT_TRUE(Rows(r).paging_state.has_value());
  // LIMIT reached: nothing more, no state.
  r = Exec("SELECT c FROM t WHERE k = 1 LIMIT 4", o);
  EXPECT_FALSE(Rows(r).paging_state.has_value());
  r = Exec("SELECT c FROM t WHERE k = 1 LIMIT 3", o);
  EXPECT_FALSE(Rows(r).paging_state.has_value());
  // GET: at most one row.
  o.page_size = 1;
  r = Exec("SELECT c FROM t WHERE k = 1 AND c = 1", o);
  EXPECT_FALSE(Rows(r).paging_state.has_value());
}

TEST_F(SelectTest, WritesBetweenPagesNeitherRepeatNorSkip) {
  QueryOptions o;
  o.page_size = 3;
  QueryResult r = Exec("SELECT c FROM t WHERE k = 1", o);
  EXPECT_EQ(Column(Rows(r), 0), (std::vector<int>{0, 1, 2}));
  // Rows before the position and at it change; one after is added.
  Exec("DELETE FROM t WHERE k = 1 AND c = 2");
  Exec("INSERT INTO t (k, c, v) VALUES (1, -5, 0)");
  Exec("INSERT INTO t (k, c, v) VALUES (1, 4, 999)");
  Exec("DELETE FROM t WHERE k = 1 AND c = 3");
  o.paging_state = *Rows(r).paging_state;
  r = Exec("SELECT c FROM t WHERE k = 1", o);
  EXPECT_EQ(Column(Rows(r), 0), (std::vector<int>{4, 5, 6}));

  // Reversed, and across partitions of a scan.
  o.paging_state.clear();
  r = Exec("SELECT c FROM t WHERE k = 2 ORDER BY c DESC", o);
  EXPECT_EQ(Column(Rows(r), 0), (std::vector<int>{9, 8, 7}));
  Exec("INSERT INTO t (k, c, v) VALUES (2, 8, 1)");
  o.paging_state = *Rows(r).paging_state;
  r = Exec("SELECT c FROM t WHERE k = 2 ORDER BY c DESC", o);
  EXPECT_EQ(Column(Rows(r), 0), (std::vector<int>{6, 5, 4}));
}

TEST_F(SelectTest, MalformedPagingStateIsInvalid) {
  std::vector<std::string> bad = {"x", std::string(1, '\1'),
                                  std::string("\1\0\0\0", 4),
                                  std::string(40, '\xff')};
  PagingState wrong_clustering;
  wrong_clustering.partition_key = IntValue(1);
  wrong_clustering.clustering = {"abc"};  // not an int
  bad.push_back(wrong_clustering.Encode());
  PagingState too_many;
  too_many.partition_key = IntValue(1);
  too_many.clustering = {IntValue(1), IntValue(2)};
  bad.push_back(too_many.Encode());
  for (const char* q : {"SELECT c FROM t WHERE k = 1", "SELECT c FROM t",
                        "SELECT c FROM t WHERE k = 1 AND c = 1",
                        "SELECT c FROM t WHERE k IN (1, 2)"}) {
    for (const std::string& state : bad) {
      QueryOptions o;
      o.page_size = 2;
      o.paging_state = state;
      auto r = node_.processor().Process(q, o, &client_);
      ASSERT_FALSE(r.ok()) << q;
      EXPECT_EQ(r.status().code(), ErrorCode::kInvalid) << q;
      EXPECT_EQ(r.status().message(), "Invalid value for the paging state");
    }
  }
}

TEST(PagingStateCodec, RoundTrips) {
  PagingState s;
  s.partition_done = true;
  s.rows_counted = 7;
  s.partition_rows_counted = 3;
  s.partition_key = "key";
  s.clustering = {"a", "", "ccc"};
  auto d = PagingState::Decode(s.Encode());
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d->partition_done);
  EXPECT_EQ(d->rows_counted, 7u);
  EXPECT_EQ(d->partition_rows_counted, 3u);
  EXPECT_EQ(d->partition_key, "key");
  EXPECT_EQ(d->clustering, s.clustering);
  std::string enc = s.Encode();
  for (size_t n = 0; n < enc.size(); ++n) {
    EXPECT_FALSE(PagingState::Decode(enc.substr(0, n)).ok()) << n;
  }
  EXPECT_FALSE(PagingState::Decode(enc + "x").ok());
}

TEST_F(SelectTest, PostOrderedInRefusesPaging) {
  QueryOptions o;
  o.page_size = 100;
  auto r = node_.processor().Process(
      "SELECT c FROM t WHERE k IN (1, 2) ORDER BY c DESC LIMIT 5", o, &client_);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(
      r.status().message(),
      "Cannot page queries with both ORDER BY and a IN restriction on the "
      "partition key; you must either remove the ORDER BY or the IN and "
      "sort client side, or disable paging for this query");
}

TEST_F(SelectTest, AggregateWarnings) {
  QueryResult r = Exec("SELECT count(*) FROM t");
  EXPECT_EQ(r.warnings, std::vector<std::string>{
                            "Aggregation query used without partition key"});
  r = Exec("SELECT count(*) FROM t WHERE k IN (1, 2)");
  EXPECT_EQ(r.warnings,
            std::vector<std::string>{"Aggregation query used on multiple "
                                     "partition keys (IN restriction)"});
  r = Exec("SELECT count(*) FROM t WHERE k = 1");
  EXPECT_TRUE(r.warnings.empty());
}

}  // namespace
}  // namespace keywise::query
