#include <gtest/gtest.h>

#include "cql/parser.h"
#include "cql/parser_test_util.h"

namespace keywise::cql {
namespace {

TEST(ParserSelect, StarAndClauses) {
  auto s = ParseAs<SelectStatement>(
      "SELECT * FROM ks.t WHERE a = 1 AND b IN ? AND c > 2 AND c <= 10 "
      "GROUP BY a, b ORDER BY b DESC, c PER PARTITION LIMIT 2 LIMIT ? "
      "ALLOW FILTERING");
  EXPECT_TRUE(s.select_all);
  EXPECT_EQ(s.table.keyspace, "ks");
  ASSERT_EQ(s.where.size(), 4u);
  EXPECT_EQ(s.where[1].op, RelationOp::kIn);
  EXPECT_FALSE(s.where[1].in_list);
  EXPECT_TRUE(s.where[1].value.IsBindMarker());
  EXPECT_EQ(s.where[3].op, RelationOp::kLtEq);
  EXPECT_EQ(s.group_by, (std::vector<std::string>{"a", "b"}));
  ASSERT_EQ(s.order_by.size(), 2u);
  EXPECT_EQ(s.order_by[0].second, Order::kDesc);
  EXPECT_EQ(s.order_by[1].second, Order::kAsc);
  EXPECT_EQ(s.per_partition_limit->text, "2");
  EXPECT_TRUE(s.limit->IsBindMarker());
  EXPECT_EQ(s.limit->bind_index, 1);
  EXPECT_TRUE(s.allow_filtering);
}

TEST(ParserSelect, VersionsExtension) {
  auto s = ParseAs<SelectStatement>(
      "SELECT * FROM t WHERE k = 1 LIMIT 5 WITH VERSIONS 3");
  ASSERT_TRUE(s.versions.has_value());
  EXPECT_EQ(s.versions->text, "3");
  auto m = ParseAs<SelectStatement>(
      "SELECT v FROM t WHERE k = ? ALLOW FILTERING WITH VERSIONS ?");
  ASSERT_TRUE(m.versions.has_value());
  EXPECT_EQ(m.versions->bind_index, 1);
  EXPECT_FALSE(ParseAs<SelectStatement>("SELECT * FROM t").versions);
  EXPECT_FALSE(ParseStatement("SELECT * FROM t WITH VERSIONS").ok());
  EXPECT_FALSE(ParseStatement("SELECT * FROM t WITH 3").ok());
}

TEST(ParserSelect, Selectors) {
  auto s = ParseAs<SelectStatement>(
      "SELECT a AS x, count(*), COUNT(1), count(b), writetime(c), ttl(c), "
      "token(a, b), cast(a AS text), toTimestamp(now()), ks.f(a), "
      "\"Quoted\", u.street, max(v) AS m FROM t");
  ASSERT_EQ(s.items.size(), 13u);
  EXPECT_EQ(s.items[0].selector.kind, SelectorKind::kColumn);
  EXPECT_EQ(s.items[0].alias, "x");
  EXPECT_EQ(s.items[1].selector.kind, SelectorKind::kCountRows);
  EXPECT_EQ(s.items[2].selector.kind, SelectorKind::kCountRows);
  EXPECT_EQ(s.items[3].selector.kind, SelectorKind::kFunction);
  EXPECT_EQ(s.items[3].selector.function.name, "count");
  EXPECT_EQ(s.items[4].selector.kind, SelectorKind::kWriteTime);
  EXPECT_EQ(s.items[4].selector.column, "c");
  EXPECT_EQ(s.items[5].selector.kind, SelectorKind::kTtl);
  EXPECT_EQ(s.items[6].selector.function.name, "token");
  EXPECT_EQ(s.items[6].selector.args.size(), 2u);
  EXPECT_EQ(s.items[7].selector.kind, SelectorKind::kCast);
  EXPECT_EQ(s.items[7].selector.cast_type.name, "text");
  EXPECT_EQ(s.items[8].selector.function.name, "totimestamp");
  EXPECT_EQ(s.items[8].selector.args[0].function.name, "now");
  EXPECT_EQ(s.items[9].selector.function.keyspace, "ks");
  EXPECT_EQ(s.items[10].selector.column, "Quoted");
  EXPECT_EQ(s.items[11].selector.kind, SelectorKind::kField);
  EXPECT_EQ(s.items[11].selector.column, "street");
  EXPECT_EQ(s.items[11].selector.args[0].column, "u");
  EXPECT_EQ(s.items[12].alias, "m");
}

TEST(ParserSelect, TuplesCollectionsAndTypeHintsOfSelectors) {
  auto s = ParseAs<SelectStatement>(
      "SELECT (a, b), [a, f(b)], {a, b}, {a: b, 'k': c}, (int) a, "
      "(frozen<list<int>>) [a], [1, 2], (a) AS x, (a) * 2, (m)[1] FROM t");
  ASSERT_EQ(s.items.size(), 10u);
  EXPECT_EQ(s.items[0].selector.kind, SelectorKind::kTuple);
  EXPECT_EQ(s.items[0].selector.args.size(), 2u);
  EXPECT_EQ(s.items[1].selector.kind, SelectorKind::kList);
  EXPECT_EQ(s.items[1].selector.args[1].kind, SelectorKind::kFunction);
  EXPECT_EQ(s.items[2].selector.kind, SelectorKind::kSet);
  EXPECT_EQ(s.items[3].selector.kind, SelectorKind::kMap);
  ASSERT_EQ(s.items[3].selector.args.size(), 4u);
  EXPECT_EQ(s.items[3].selector.args[2].kind, SelectorKind::kTerm);
  EXPECT_EQ(s.items[4].selector.kind, SelectorKind::kTypeHint);
  EXPECT_EQ(s.items[4].selector.cast_type.name, "int");
  EXPECT_EQ(s.items[4].selector.args[0].column, "a");
  EXPECT_EQ(s.items[5].selector.kind, SelectorKind::kTypeHint);
  EXPECT_EQ(s.items[5].selector.args[0].kind, SelectorKind::kList);
  // A literal collection stays a term.
  EXPECT_EQ(s.items[6].selector.kind, SelectorKind::kTerm);
  // `(a) AS x` and `(a) * 2` group a column; `(m)[1]`, as in Cassandra's
  // grammar, hints type m on the literal [1] (a term).
  EXPECT_EQ(s.items[7].selector.kind, SelectorKind::kColumn);
  EXPECT_EQ(s.items[7].alias, "x");
  EXPECT_EQ(s.items[8].selector.kind, SelectorKind::kFunction);
  EXPECT_EQ(s.items[9].selector.kind, SelectorKind::kTerm);
  EXPECT_FALSE(ParseStatement("SELECT {a: } FROM t").ok());
  EXPECT_FALSE(ParseStatement("SELECT [a, FROM t").ok());
  EXPECT_FALSE(ParseStatement("SELECT {a, b: c} FROM t").ok());
}

TEST(ParserSelect, JsonDistinctAndNonReservedNames) {
  auto s = ParseAs<SelectStatement>("SELECT JSON DISTINCT a FROM t");
  EXPECT_TRUE(s.json);
  EXPECT_TRUE(s.distinct);
  // json / distinct / key / ttl as plain column names.
  s = ParseAs<SelectStatement>("SELECT json, key FROM t WHERE ttl = 1");
  EXPECT_FALSE(s.json);
  EXPECT_EQ(s.items.size(), 2u);
  s = ParseAs<SelectStatement>("select distinct from t");
  EXPECT_FALSE(s.distinct);
  EXPECT_EQ(s.items[0].selector.column, "distinct");
}

TEST(ParserSelect, Relations) {
  auto s = ParseAs<SelectStatement>(
      "SELECT * FROM t WHERE token(a, b) > token(1, 2) AND (c1, c2) > (1, 2) "
      "AND (c1, c2) IN ((1, 2), (3, 4)) AND (c1) IN ? AND l CONTAINS 3 AND "
      "m CONTAINS KEY 'k' AND m['k'] = 1 AND x IN () AND y != 2 "
      "AND z = -NaN");
  ASSERT_EQ(s.where.size(), 10u);
  EXPECT_EQ(s.where[0].kind, RelationKind::kToken);
  EXPECT_EQ(s.where[0].columns, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(s.where[0].value.kind, TermKind::kFunctionCall);
  EXPECT_EQ(s.where[1].kind, RelationKind::kMultiColumn);
  EXPECT_EQ(s.where[1].op, RelationOp::kGt);
  EXPECT_EQ(s.where[1].value.kind, TermKind::kTuple);
  EXPECT_TRUE(s.where[2].in_list);
  EXPECT_EQ(s.where[2].in_values.size(), 2u);
  EXPECT_EQ(s.where[3].value.bind_index, 0);
  EXPECT_EQ(s.where[4].op, RelationOp::kContains);
  EXPECT_EQ(s.where[5].op, RelationOp::kContainsKey);
  EXPECT_TRUE(s.where[6].map_key.has_value());
  EXPECT_TRUE(s.where[7].in_list);
  EXPECT_TRUE(s.where[7].in_values.empty());
  EXPECT_EQ(s.where[8].op, RelationOp::kNotEq);
  EXPECT_EQ(s.where[9].value.text, "-NaN");
}

TEST(ParserSelect, CaseInsensitiveKeywordsAndQuotedNames) {
  auto s = ParseAs<SelectStatement>(
      "sElEcT \"A\", b FrOm \"Ks\".\"T\" wHeRe \"A\" = 'x' lImIt 5;");
  EXPECT_EQ(s.items[0].selector.column, "A");
  EXPECT_EQ(s.items[1].selector.column, "b");
  EXPECT_EQ(s.table.keyspace, "Ks");
  EXPECT_EQ(s.table.name, "T");
  EXPECT_EQ(s.where[0].columns[0], "A");
  EXPECT_EQ(s.limit->text, "5");
}

}  // namespace
}  // namespace keywise::cql
