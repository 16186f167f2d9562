#include <gtest/gtest.h>

#include "cql/parser.h"
#include "cql/parser_test_util.h"

namespace keywise::cql {
namespace {

TEST(ParserDdl, Use) {
  EXPECT_EQ(ParseAs<UseStatement>("USE ks").keyspace, "ks");
  EXPECT_EQ(ParseAs<UseStatement>("use \"MyKs\";").keyspace, "MyKs");
}

TEST(ParserDdl, CreateKeyspace) {
  auto s = ParseAs<CreateKeyspaceStatement>(
      "CREATE KEYSPACE IF NOT EXISTS ks WITH replication = {'class': "
      "'SimpleStrategy', 'replication_factor': 1} AND durable_writes = false");
  EXPECT_EQ(s.keyspace, "ks");
  EXPECT_TRUE(s.if_not_exists);
  ASSERT_EQ(s.options.size(), 2u);
  EXPECT_EQ(s.options[0].name, "replication");
  EXPECT_EQ(s.options[0].value.kind, TermKind::kMap);
  ASSERT_EQ(s.options[0].value.elements.size(), 4u);
  EXPECT_EQ(s.options[0].value.elements[1].text, "SimpleStrategy");
  EXPECT_EQ(s.options[0].value.elements[3].literal_kind, LiteralKind::kInteger);
  EXPECT_EQ(s.options[1].name, "durable_writes");
  EXPECT_EQ(s.options[1].value.literal_kind, LiteralKind::kBoolean);
  EXPECT_EQ(s.options[1].value.text, "false");
  EXPECT_FALSE(ParseAs<CreateKeyspaceStatement>(
                   "create keyspace k with replication = {'class': 'x'}")
                   .if_not_exists);
}

TEST(ParserDdl, AlterAndDropKeyspace) {
  auto a = ParseAs<AlterKeyspaceStatement>(
      "ALTER KEYSPACE ks WITH replication = {'class': "
      "'NetworkTopologyStrategy', 'dc1': 3}");
  EXPECT_EQ(a.keyspace, "ks");
  ASSERT_EQ(a.options.size(), 1u);
  auto d = ParseAs<DropKeyspaceStatement>("DROP KEYSPACE IF EXISTS ks");
  EXPECT_TRUE(d.if_exists);
  EXPECT_EQ(d.keyspace, "ks");
  EXPECT_FALSE(ParseAs<DropKeyspaceStatement>("DROP KEYSPACE ks").if_exists);
}

TEST(ParserDdl, CreateTableInlineKey) {
  auto s = ParseAs<CreateTableStatement>(
      "CREATE TABLE t (id uuid PRIMARY KEY, v text)");
  EXPECT_EQ(s.table.keyspace, "");
  EXPECT_EQ(s.table.name, "t");
  ASSERT_EQ(s.columns.size(), 2u);
  EXPECT_TRUE(s.columns[0].primary_key);
  EXPECT_EQ(s.columns[0].type.ToString(), "uuid");
  EXPECT_EQ(s.partition_key, std::vector<std::string>{"id"});
  EXPECT_TRUE(s.clustering_columns.empty());
  EXPECT_EQ(s.primary_key_declarations, 1);
}

TEST(ParserDdl, CreateTableCompositeKeyAndOptions) {
  auto s = ParseAs<CreateTableStatement>(
      "CREATE TABLE IF NOT EXISTS ks.\"Events\" (\n"
      "  a int, b text, c timestamp, d bigint, s int STATIC,\n"
      "  m map<text, frozen<list<int>>>, tup tuple<int, text>,\n"
      "  addr frozen<\"Address\">, other ks2.udt,\n"
      "  PRIMARY KEY ((a, b), c, d)\n"
      ") WITH CLUSTERING ORDER BY (c DESC, d ASC)\n"
      "  AND default_time_to_live = 3600 AND comment = 'hi'\n"
      "  AND compaction = {'class': 'SizeTieredCompactionStrategy'}\n"
      "  AND caching = {'keys': 'ALL'} AND versions = 3\n"
      "  AND COMPACT STORAGE");
  EXPECT_TRUE(s.if_not_exists);
  EXPECT_EQ(s.table.keyspace, "ks");
  EXPECT_EQ(s.table.name, "Events");
  ASSERT_EQ(s.columns.size(), 9u);
  EXPECT_TRUE(s.columns[4].is_static);
  EXPECT_EQ(s.columns[5].type.ToString(), "map<text, frozen<list<int>>>");
  EXPECT_EQ(s.columns[6].type.ToString(), "tuple<int, text>");
  EXPECT_EQ(s.columns[7].type.ToString(), "frozen<\"Address\">");
  EXPECT_EQ(s.columns[8].type.keyspace, "ks2");
  EXPECT_EQ(s.columns[8].type.name, "udt");
  EXPECT_EQ(s.partition_key, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(s.clustering_columns, (std::vector<std::string>{"c", "d"}));
  ASSERT_EQ(s.clustering_order.size(), 2u);
  EXPECT_EQ(s.clustering_order[0].first, "c");
  EXPECT_EQ(s.clustering_order[0].second, Order::kDesc);
  EXPECT_EQ(s.clustering_order[1].second, Order::kAsc);
  EXPECT_TRUE(s.compact_storage);
  ASSERT_EQ(s.options.size(), 5u);
  EXPECT_EQ(s.options[0].name, "default_time_to_live");
  EXPECT_EQ(s.options[2].value.kind, TermKind::kMap);
  EXPECT_EQ(s.options[4].name, "versions");
}

TEST(ParserDdl, CreateTableKeyForms) {
  auto s = ParseAs<CreateTableStatement>(
      "create table t (a int, b int, primary key (a))");
  EXPECT_EQ(s.partition_key, std::vector<std::string>{"a"});
  s = ParseAs<CreateTableStatement>(
      "create table t (a int, b int, c int, primary key (a, b, c))");
  EXPECT_EQ(s.partition_key, std::vector<std::string>{"a"});
  EXPECT_EQ(s.clustering_columns, (std::vector<std::string>{"b", "c"}));
  s = ParseAs<CreateTableStatement>(
      "create table t (a int primary key, b int, primary key (b))");
  EXPECT_EQ(s.primary_key_declarations, 2);
  s = ParseAs<CreateTableStatement>("create table t (a int, b int)");
  EXPECT_EQ(s.primary_key_declarations, 0);
}

TEST(ParserDdl, AlterTable) {
  auto a = ParseAs<AlterTableStatement>("ALTER TABLE ks.t ADD x int");
  EXPECT_EQ(a.kind, AlterTableKind::kAdd);
  ASSERT_EQ(a.added.size(), 1u);
  EXPECT_EQ(a.added[0].name, "x");
  a = ParseAs<AlterTableStatement>(
      "ALTER TABLE t ADD (x int, y set<text> static)");
  ASSERT_EQ(a.added.size(), 2u);
  EXPECT_TRUE(a.added[1].is_static);
  a = ParseAs<AlterTableStatement>("ALTER TABLE t ADD x int, y text");
  EXPECT_EQ(a.added.size(), 2u);
  a = ParseAs<AlterTableStatement>("ALTER TABLE t DROP x");
  EXPECT_EQ(a.kind, AlterTableKind::kDrop);
  EXPECT_EQ(a.dropped, std::vector<std::string>{"x"});
  a = ParseAs<AlterTableStatement>("ALTER TABLE t DROP (x, y)");
  EXPECT_EQ(a.dropped, (std::vector<std::string>{"x", "y"}));
  a = ParseAs<AlterTableStatement>("ALTER TABLE t RENAME a TO b AND c TO d");
  EXPECT_EQ(a.kind, AlterTableKind::kRename);
  ASSERT_EQ(a.renames.size(), 2u);
  EXPECT_EQ(a.renames[1].first, "c");
  EXPECT_EQ(a.renames[1].second, "d");
  a = ParseAs<AlterTableStatement>(
      "ALTER TABLE t WITH gc_grace_seconds = 10 AND comment = 'x'");
  EXPECT_EQ(a.kind, AlterTableKind::kWith);
  EXPECT_EQ(a.options.size(), 2u);
}

TEST(ParserDdl, DropAndTruncate) {
  auto d = ParseAs<DropTableStatement>("DROP TABLE IF EXISTS ks.t");
  EXPECT_TRUE(d.if_exists);
  EXPECT_EQ(d.table.keyspace, "ks");
  EXPECT_EQ(ParseAs<TruncateStatement>("TRUNCATE t").table.name, "t");
  EXPECT_EQ(ParseAs<TruncateStatement>("TRUNCATE TABLE ks.t").table.keyspace,
            "ks");
}

}  // namespace
}  // namespace keywise::cql
