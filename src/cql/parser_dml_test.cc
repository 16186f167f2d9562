#include <gtest/gtest.h>

#include "cql/parser.h"
#include "cql/parser_test_util.h"

namespace keywise::cql {
namespace {

TEST(ParserDml, InsertWithEveryLiteralKind) {
  auto s = ParseAs<InsertStatement>(
      "INSERT INTO ks.t (a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p) "
      "VALUES ('s', -3, 1.5e3, true, 550e8400-e29b-41d4-a716-446655440000, "
      "0xff, 1h30m, null, NaN, -Infinity, [1, 2], {1, 2}, {'k': 1}, (1, 'x'), "
      "?, :named) IF NOT EXISTS USING TTL 86400 AND TIMESTAMP 123");
  EXPECT_EQ(s.table.keyspace, "ks");
  ASSERT_EQ(s.columns.size(), 16u);
  ASSERT_EQ(s.values.size(), 16u);
  EXPECT_EQ(s.values[0].literal_kind, LiteralKind::kString);
  EXPECT_EQ(s.values[1].literal_kind, LiteralKind::kInteger);
  EXPECT_EQ(s.values[1].text, "-3");
  EXPECT_EQ(s.values[2].literal_kind, LiteralKind::kFloat);
  EXPECT_EQ(s.values[3].literal_kind, LiteralKind::kBoolean);
  EXPECT_EQ(s.values[4].literal_kind, LiteralKind::kUuid);
  EXPECT_EQ(s.values[5].literal_kind, LiteralKind::kBlob);
  EXPECT_EQ(s.values[6].literal_kind, LiteralKind::kDuration);
  EXPECT_EQ(s.values[7].kind, TermKind::kNull);
  EXPECT_EQ(s.values[8].text, "NaN");
  EXPECT_EQ(s.values[9].text, "-Infinity");
  EXPECT_EQ(s.values[10].kind, TermKind::kList);
  EXPECT_EQ(s.values[11].kind, TermKind::kSet);
  EXPECT_EQ(s.values[12].kind, TermKind::kMap);
  EXPECT_EQ(s.values[13].kind, TermKind::kTuple);
  EXPECT_EQ(s.values[14].kind, TermKind::kBindMarker);
  EXPECT_EQ(s.values[14].bind_index, 0);
  EXPECT_EQ(s.values[15].bind_name, "named");
  EXPECT_EQ(s.values[15].bind_index, 1);
  EXPECT_TRUE(s.if_not_exists);
  ASSERT_TRUE(s.using_clause.ttl.has_value());
  EXPECT_EQ(s.using_clause.ttl->text, "86400");
  ASSERT_TRUE(s.using_clause.timestamp.has_value());
  EXPECT_EQ(s.using_clause.timestamp->text, "123");
}

TEST(ParserDml, InsertTermsCastsFunctionsUdts) {
  auto s = ParseAs<InsertStatement>(
      "insert into t (a, b, c, d, e) values ((bigint) 3, now(), "
      "{street: 'x', zip: 1}, {}, ks.fn(1, ?))");
  EXPECT_EQ(s.values[0].kind, TermKind::kCast);
  EXPECT_EQ(s.values[0].cast_type.name, "bigint");
  EXPECT_EQ(s.values[0].elements[0].text, "3");
  EXPECT_EQ(s.values[1].kind, TermKind::kFunctionCall);
  EXPECT_EQ(s.values[1].function.name, "now");
  EXPECT_EQ(s.values[2].kind, TermKind::kUserType);
  EXPECT_EQ(s.values[2].field_names,
            (std::vector<std::string>{"street", "zip"}));
  EXPECT_EQ(s.values[3].kind, TermKind::kMap);
  EXPECT_TRUE(s.values[3].elements.empty());
  EXPECT_EQ(s.values[4].function.keyspace, "ks");
  EXPECT_EQ(s.values[4].elements[1].bind_index, 0);
}

TEST(ParserDml, InsertJson) {
  auto s =
      ParseAs<InsertStatement>("INSERT INTO t JSON '{\"a\": 1}' DEFAULT UNSET");
  EXPECT_TRUE(s.json);
  EXPECT_EQ(s.json_value.text, "{\"a\": 1}");
  EXPECT_TRUE(s.default_unset);
}

TEST(ParserDml, UpdateAssignments) {
  auto s = ParseAs<UpdateStatement>(
      "UPDATE t USING TIMESTAMP 5 AND TTL 10 SET a = 1, b = b + 2, "
      "c = c - {'x'}, d = [0] + d, m['k'] = 'v', u.f = 3, n = n -1 "
      "WHERE k = 1 AND c1 IN (1, 2) IF a = 1 AND m['k'] != 'z'");
  ASSERT_EQ(s.assignments.size(), 7u);
  EXPECT_EQ(s.assignments[0].kind, AssignmentKind::kSet);
  EXPECT_EQ(s.assignments[1].kind, AssignmentKind::kAdd);
  EXPECT_EQ(s.assignments[1].value.text, "2");
  EXPECT_EQ(s.assignments[2].kind, AssignmentKind::kSubtract);
  EXPECT_EQ(s.assignments[2].value.kind, TermKind::kSet);
  EXPECT_EQ(s.assignments[3].kind, AssignmentKind::kPrepend);
  EXPECT_EQ(s.assignments[4].kind, AssignmentKind::kSetElement);
  EXPECT_EQ(s.assignments[4].key->text, "k");
  EXPECT_EQ(s.assignments[5].kind, AssignmentKind::kSetField);
  EXPECT_EQ(s.assignments[5].field, "f");
  EXPECT_EQ(s.assignments[6].kind, AssignmentKind::kAdd);
  EXPECT_EQ(s.assignments[6].value.text, "-1");
  ASSERT_EQ(s.where.size(), 2u);
  EXPECT_EQ(s.where[1].op, RelationOp::kIn);
  EXPECT_EQ(s.where[1].in_values.size(), 2u);
  ASSERT_EQ(s.conditions.size(), 2u);
  EXPECT_EQ(s.conditions[1].op, RelationOp::kNotEq);
  ASSERT_TRUE(s.conditions[1].element.has_value());
  EXPECT_TRUE(s.using_clause.ttl.has_value());
  EXPECT_TRUE(s.using_clause.timestamp.has_value());
  EXPECT_TRUE(
      ParseAs<UpdateStatement>("UPDATE t SET a = 1 WHERE k = 1 IF EXISTS")
          .if_exists);
}

// * / % bind tighter than + -, both left to right; unary minus tightest;
// `[0] + d` stays a prepend (a bare column is no operand).
TEST(ParserDml, ArithmeticInTerms) {
  auto s = ParseAs<UpdateStatement>(
      "UPDATE t SET a = 1 + 2 * 3 - -x(4), d = [0] + d, e = e + 1 - 2 "
      "WHERE k = 10 % 3");
  const Term& a = s.assignments[0].value;
  ASSERT_EQ(a.op, '-');
  EXPECT_EQ(a.function.name, "_substract");
  ASSERT_EQ(a.elements[0].op, '+');
  EXPECT_EQ(a.elements[0].elements[1].op, '*');
  EXPECT_EQ(a.elements[1].op, 'n');
  EXPECT_EQ(a.elements[1].elements[0].kind, TermKind::kFunctionCall);
  EXPECT_EQ(s.assignments[1].kind, AssignmentKind::kPrepend);
  EXPECT_EQ(s.assignments[2].kind, AssignmentKind::kAdd);
  EXPECT_EQ(s.assignments[2].value.op, '-');  // e + (1 - 2), as Cassandra
  EXPECT_EQ(s.where[0].value.op, '%');
}

TEST(ParserDml, Delete) {
  auto s = ParseAs<DeleteStatement>("DELETE FROM t WHERE k = 1");
  EXPECT_TRUE(s.targets.empty());
  s = ParseAs<DeleteStatement>(
      "DELETE a, m['k'], u.f FROM ks.t USING TIMESTAMP 7 WHERE k = ? AND "
      "c >= 3 AND c < 5 IF EXISTS");
  ASSERT_EQ(s.targets.size(), 3u);
  EXPECT_TRUE(s.targets[1].element.has_value());
  EXPECT_EQ(s.targets[2].field, "f");
  EXPECT_EQ(s.using_clause.timestamp->text, "7");
  EXPECT_EQ(s.where.size(), 3u);
  EXPECT_EQ(s.where[1].op, RelationOp::kGtEq);
  EXPECT_TRUE(s.if_exists);
  s = ParseAs<DeleteStatement>("DELETE FROM t WHERE k = 1 IF v IN (1, 2)");
  ASSERT_EQ(s.conditions.size(), 1u);
  EXPECT_TRUE(s.conditions[0].in_list);
}

TEST(ParserDml, Batch) {
  auto b = ParseAs<BatchStatement>(
      "BEGIN BATCH USING TIMESTAMP 10 "
      "INSERT INTO t (a) VALUES (?); UPDATE t SET v = ? WHERE a = ?; "
      "DELETE FROM t WHERE a = 3 APPLY BATCH;");
  EXPECT_EQ(b.type, BatchType::kLogged);
  ASSERT_EQ(b.statements.size(), 3u);
  EXPECT_TRUE(std::holds_alternative<InsertStatement>(b.statements[0]));
  EXPECT_TRUE(std::holds_alternative<UpdateStatement>(b.statements[1]));
  EXPECT_TRUE(std::holds_alternative<DeleteStatement>(b.statements[2]));
  // Markers are numbered across the whole batch.
  EXPECT_EQ(
      std::get<UpdateStatement>(b.statements[1]).where[0].value.bind_index, 2);
  EXPECT_EQ(ParseAs<BatchStatement>("BEGIN UNLOGGED BATCH APPLY BATCH").type,
            BatchType::kUnlogged);
  auto c = ParseAs<BatchStatement>(
      "begin counter batch update t set c = c + 1 where k = 1 apply batch");
  EXPECT_EQ(c.type, BatchType::kCounter);
  EXPECT_EQ(c.statements.size(), 1u);
  EXPECT_TRUE(
      ParseAs<BatchStatement>("BEGIN BATCH APPLY BATCH").statements.empty());
  EXPECT_TRUE(ParseAs<BatchStatement>("BEGIN BATCH USING TTL 5 APPLY BATCH;;")
                  .using_clause.ttl.has_value());
  EXPECT_FALSE(ParseStatement("BEGIN LOGGED BATCH APPLY BATCH").ok());
}

TEST(ParserDml, Scripts) {
  auto r = ParseStatements(
      "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy'};\n"
      "USE ks;;\n"
      "INSERT INTO t (a) VALUES (1)");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 3u);
  EXPECT_TRUE(std::holds_alternative<UseStatement>((*r)[1]));
  auto empty = ParseStatements("  -- nothing\n ; ");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
  EXPECT_FALSE(ParseStatements("USE a USE b").ok());
}

}  // namespace
}  // namespace keywise::cql
