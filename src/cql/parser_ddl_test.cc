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

TEST(ParserDdl, CreateIndexForms) {
  auto s = ParseAs<CreateIndexStatement>("CREATE INDEX ON t (v)");
  EXPECT_EQ(s.table.name, "t");
  EXPECT_EQ(s.index_name, "");
  EXPECT_FALSE(s.if_not_exists);
  EXPECT_FALSE(s.custom);
  EXPECT_TRUE(s.local_partition_key.empty());
  ASSERT_EQ(s.targets.size(), 1u);
  EXPECT_EQ(s.targets[0].column, "v");
  EXPECT_EQ(s.targets[0].kind, IndexTargetKind::kSimple);
  EXPECT_EQ(s.using_class, "");
  EXPECT_TRUE(s.options.empty());

  s = ParseAs<CreateIndexStatement>(
      "create index if not exists \"ByV\" on ks.t (\"V\");");
  EXPECT_TRUE(s.if_not_exists);
  EXPECT_EQ(s.index_name, "ByV");
  EXPECT_EQ(s.table.keyspace, "ks");
  ASSERT_EQ(s.targets.size(), 1u);
  EXPECT_EQ(s.targets[0].column, "V");

  s = ParseAs<CreateIndexStatement>("CREATE INDEX IF NOT EXISTS ON t (v)");
  EXPECT_TRUE(s.if_not_exists);
  EXPECT_EQ(s.index_name, "");
}

TEST(ParserDdl, CreateIndexTargets) {
  auto s = ParseAs<CreateIndexStatement>(
      "CREATE INDEX i ON t (keys(m), values(l), entries(m2), full(f), c)");
  ASSERT_EQ(s.targets.size(), 5u);
  EXPECT_EQ(s.targets[0].kind, IndexTargetKind::kKeys);
  EXPECT_EQ(s.targets[0].column, "m");
  EXPECT_EQ(s.targets[1].kind, IndexTargetKind::kValues);
  EXPECT_EQ(s.targets[1].column, "l");
  EXPECT_EQ(s.targets[2].kind, IndexTargetKind::kEntries);
  EXPECT_EQ(s.targets[3].kind, IndexTargetKind::kFull);
  EXPECT_EQ(s.targets[3].column, "f");
  EXPECT_EQ(s.targets[4].kind, IndexTargetKind::kSimple);
  // KEYS and VALUES are unreserved: alone they are column (and index) names.
  s = ParseAs<CreateIndexStatement>("CREATE INDEX keys ON t (keys, values)");
  EXPECT_EQ(s.index_name, "keys");
  ASSERT_EQ(s.targets.size(), 2u);
  EXPECT_EQ(s.targets[0].column, "keys");
  EXPECT_EQ(s.targets[0].kind, IndexTargetKind::kSimple);
  EXPECT_EQ(s.targets[1].column, "values");
  EXPECT_EQ(s.targets[1].kind, IndexTargetKind::kSimple);
  // Cassandra's grammar allows an empty list; the query layer rejects it.
  EXPECT_TRUE(
      ParseAs<CreateIndexStatement>("CREATE INDEX ON t ()").targets.empty());
}

TEST(ParserDdl, CreateLocalIndex) {
  auto s = ParseAs<CreateIndexStatement>("CREATE INDEX ON t ((p1, p2), v)");
  EXPECT_EQ(s.local_partition_key, (std::vector<std::string>{"p1", "p2"}));
  ASSERT_EQ(s.targets.size(), 1u);
  EXPECT_EQ(s.targets[0].column, "v");
  s = ParseAs<CreateIndexStatement>("CREATE INDEX ON t ((p), v)");
  EXPECT_EQ(s.local_partition_key, std::vector<std::string>{"p"});
  s = ParseAs<CreateIndexStatement>("CREATE INDEX ON t ((p))");
  EXPECT_EQ(s.local_partition_key, std::vector<std::string>{"p"});
  EXPECT_TRUE(s.targets.empty());
}

TEST(ParserDdl, CreateCustomIndex) {
  auto s = ParseAs<CreateIndexStatement>(
      "CREATE CUSTOM INDEX IF NOT EXISTS i ON ks.t (v) USING "
      "'org.apache.cassandra.index.sasi.SASIIndex' WITH OPTIONS = "
      "{'mode': 'CONTAINS'}");
  EXPECT_TRUE(s.custom);
  EXPECT_TRUE(s.if_not_exists);
  EXPECT_EQ(s.index_name, "i");
  EXPECT_EQ(s.using_class, "org.apache.cassandra.index.sasi.SASIIndex");
  ASSERT_EQ(s.options.size(), 1u);
  EXPECT_EQ(s.options[0].name, "options");
  EXPECT_EQ(s.options[0].value.kind, TermKind::kMap);
  ASSERT_EQ(s.options[0].value.elements.size(), 2u);
  EXPECT_EQ(s.options[0].value.elements[1].text, "CONTAINS");
  // USING without WITH, and WITH without USING (Cassandra's grammar takes
  // both; the query layer rejects options on a non-custom index).
  s = ParseAs<CreateIndexStatement>(
      "CREATE CUSTOM INDEX ON t (v) USING 'StorageAttachedIndex'");
  EXPECT_EQ(s.using_class, "StorageAttachedIndex");
  EXPECT_TRUE(s.options.empty());
  s = ParseAs<CreateIndexStatement>(
      "CREATE INDEX ON t (v) WITH options = {'a': 'b'}");
  EXPECT_FALSE(s.custom);
  EXPECT_EQ(s.options.size(), 1u);
}

TEST(ParserDdl, CreateIndexErrors) {
  EXPECT_EQ(ParseError("CREATE INDEX i t (v)"),
            "line 1:15 mismatched input 't' expecting K_ON "
            "(CREATE INDEX i [t] (...)");
  EXPECT_EQ(ParseError("CREATE INDEX ks.i ON t (v)"),
            "line 1:15 mismatched input '.' expecting K_ON "
            "(CREATE INDEX ks[.]i ...)");
  EXPECT_EQ(ParseError("CREATE INDEX ON t (foo(v))"),
            "line 1:22 mismatched input '(' expecting ')' "
            "(CREATE INDEX ON t (foo[(]v)...)");
  EXPECT_EQ(ParseError("CREATE INDEX ON t (keys(v)"),
            "line 1:26 mismatched input '<EOF>' expecting ')'");
  EXPECT_EQ(ParseError("CREATE INDEX ON t (v, (p))"),
            "line 1:22 no viable alternative at input '(' "
            "(...INDEX ON t (v, [(]p)...)");
  EXPECT_EQ(ParseError("CREATE INDEX ON t ((p) v)"),
            "line 1:23 mismatched input 'v' expecting ')' "
            "(... ON t ((p) [v])...)");
  // ENTRIES and FULL are reserved: they always start `entries(c)`.
  EXPECT_EQ(ParseError("CREATE INDEX ON t (entries)"),
            "line 1:26 mismatched input ')' expecting '(' "
            "(CREATE INDEX ON t (entries[)]...)");
  EXPECT_EQ(ParseError("CREATE CUSTOM INDEX ON t (v) USING Foo"),
            "line 1:35 mismatched input 'Foo' expecting STRING_LITERAL "
            "(...ON t (v) USING [Foo]...)");
  EXPECT_EQ(ParseError("CREATE CUSTOM TABLE t (a int PRIMARY KEY)"),
            "line 1:14 mismatched input 'TABLE' expecting K_INDEX "
            "(CREATE CUSTOM [TABLE] t...)");
}

TEST(ParserDdl, DropIndex) {
  auto d = ParseAs<DropIndexStatement>("DROP INDEX IF EXISTS ks.i");
  EXPECT_TRUE(d.if_exists);
  EXPECT_EQ(d.index.keyspace, "ks");
  EXPECT_EQ(d.index.name, "i");
  d = ParseAs<DropIndexStatement>("drop index \"MyIdx\"");
  EXPECT_FALSE(d.if_exists);
  EXPECT_EQ(d.index.keyspace, "");
  EXPECT_EQ(d.index.name, "MyIdx");
}

TEST(ParserDdl, CreateView) {
  auto s = ParseAs<CreateViewStatement>(
      "CREATE MATERIALIZED VIEW IF NOT EXISTS ks.by_v AS\n"
      "  SELECT k, c, v FROM ks.t\n"
      "  WHERE v IS NOT NULL  AND k IS NOT NULL AND c IS NOT NULL\n"
      "  PRIMARY KEY ((v, k), c)\n"
      "  WITH CLUSTERING ORDER BY (c DESC) AND comment = 'x'\n"
      "  AND gc_grace_seconds = 10");
  EXPECT_TRUE(s.if_not_exists);
  EXPECT_EQ(s.view.keyspace, "ks");
  EXPECT_EQ(s.view.name, "by_v");
  EXPECT_EQ(s.base.keyspace, "ks");
  EXPECT_EQ(s.base.name, "t");
  EXPECT_FALSE(s.select_all);
  EXPECT_EQ(s.columns, (std::vector<std::string>{"k", "c", "v"}));
  EXPECT_EQ(s.rejected_selector, "");
  ASSERT_EQ(s.where.size(), 3u);
  EXPECT_EQ(s.where[0].columns, std::vector<std::string>{"v"});
  EXPECT_EQ(s.where[0].op, RelationOp::kIsNotNull);
  EXPECT_EQ(s.where_text, "v IS NOT NULL  AND k IS NOT NULL AND c IS NOT NULL");
  EXPECT_EQ(s.partition_key, (std::vector<std::string>{"v", "k"}));
  EXPECT_EQ(s.clustering_columns, std::vector<std::string>{"c"});
  ASSERT_EQ(s.clustering_order.size(), 1u);
  EXPECT_EQ(s.clustering_order[0].first, "c");
  EXPECT_EQ(s.clustering_order[0].second, Order::kDesc);
  ASSERT_EQ(s.options.size(), 2u);
  EXPECT_EQ(s.options[0].name, "comment");
  EXPECT_EQ(s.options[1].name, "gc_grace_seconds");
}

TEST(ParserDdl, CreateViewForms) {
  auto s = ParseAs<CreateViewStatement>(
      "create materialized view v as select * from t where k is not null "
      "and c = 'a''b' primary key (c, k)");
  EXPECT_FALSE(s.if_not_exists);
  EXPECT_TRUE(s.select_all);
  EXPECT_TRUE(s.columns.empty());
  EXPECT_EQ(s.base.keyspace, "");
  ASSERT_EQ(s.where.size(), 2u);
  EXPECT_EQ(s.where[1].op, RelationOp::kEq);
  // Kept as written: case, quoting and escapes.
  EXPECT_EQ(s.where_text, "k is not null and c = 'a''b'");
  EXPECT_EQ(s.partition_key, std::vector<std::string>{"c"});
  EXPECT_EQ(s.clustering_columns, std::vector<std::string>{"k"});
  EXPECT_TRUE(s.options.empty());
  // WHERE is optional in the grammar (the query layer requires it).
  s = ParseAs<CreateViewStatement>(
      "CREATE MATERIALIZED VIEW v AS SELECT \"K\" FROM t PRIMARY KEY (\"K\")");
  EXPECT_EQ(s.columns, std::vector<std::string>{"K"});
  EXPECT_TRUE(s.where.empty());
  EXPECT_EQ(s.where_text, "");
  EXPECT_EQ(s.partition_key, std::vector<std::string>{"K"});
}

TEST(ParserDdl, CreateViewRejectedSelectors) {
  // Parsed as Cassandra does; the query layer quotes the first bad one.
  auto s = ParseAs<CreateViewStatement>(
      "CREATE MATERIALIZED VIEW v AS SELECT k, ttl( v ), writetime(w) FROM t "
      "WHERE k IS NOT NULL PRIMARY KEY (k)");
  EXPECT_EQ(s.columns, std::vector<std::string>{"k"});
  EXPECT_EQ(s.rejected_selector, "ttl( v )");
  EXPECT_FALSE(s.rejected_selector_aliased);
  s = ParseAs<CreateViewStatement>(
      "CREATE MATERIALIZED VIEW v AS SELECT k, v AS w FROM t "
      "WHERE k IS NOT NULL PRIMARY KEY (k)");
  EXPECT_EQ(s.columns, std::vector<std::string>{"k"});
  EXPECT_EQ(s.rejected_selector, "v");
  EXPECT_TRUE(s.rejected_selector_aliased);
}

TEST(ParserDdl, CreateViewErrors) {
  EXPECT_EQ(ParseError("CREATE MATERIALIZED VIEW v SELECT * FROM t "
                       "PRIMARY KEY (k)"),
            "line 1:27 mismatched input 'SELECT' expecting K_AS "
            "(CREATE MATERIALIZED VIEW v [SELECT] *...)");
  EXPECT_EQ(ParseError("CREATE MATERIALIZED VIEW v AS SELECT * FROM t "
                       "WHERE k IS NOT NULL"),
            "line 1:65 mismatched input '<EOF>' expecting K_PRIMARY");
  EXPECT_EQ(ParseError("CREATE MATERIALIZED VIEW v AS SELECT * FROM t "
                       "WHERE k IS NULL PRIMARY KEY (k)"),
            "line 1:57 mismatched input 'NULL' expecting K_NOT "
            "(...FROM t WHERE k IS [NULL] PRIMARY...)");
  EXPECT_EQ(ParseError("CREATE MATERIALIZED VIEW v AS SELECT * FROM t "
                       "PRIMARY KEY (k) WITH COMPACT STORAGE"),
            "COMPACT STORAGE tables are not allowed starting with version 4.0");
  EXPECT_EQ(ParseError("CREATE VIEW v AS SELECT * FROM t PRIMARY KEY (k)"),
            "line 1:7 no viable alternative at input 'VIEW' "
            "(CREATE [VIEW] v...)");
  // MATERIALIZED is reserved, as in Cassandra.
  EXPECT_EQ(ParseError("CREATE TABLE t (materialized int PRIMARY KEY)"),
            "line 1:16 mismatched input 'materialized' expecting IDENT "
            "(CREATE TABLE t ([materialized] int...)");
}

TEST(ParserDdl, AlterAndDropView) {
  auto a = ParseAs<AlterViewStatement>(
      "ALTER MATERIALIZED VIEW ks.v WITH comment = 'x' AND "
      "compaction = {'class': 'LeveledCompactionStrategy'}");
  EXPECT_EQ(a.view.keyspace, "ks");
  EXPECT_EQ(a.view.name, "v");
  ASSERT_EQ(a.options.size(), 2u);
  EXPECT_EQ(a.options[1].value.kind, TermKind::kMap);
  EXPECT_EQ(ParseError("ALTER MATERIALIZED VIEW v"),
            "line 1:25 mismatched input '<EOF>' expecting K_WITH");

  auto d = ParseAs<DropViewStatement>("DROP MATERIALIZED VIEW IF EXISTS ks.v");
  EXPECT_TRUE(d.if_exists);
  EXPECT_EQ(d.view.keyspace, "ks");
  EXPECT_EQ(d.view.name, "v");
  d = ParseAs<DropViewStatement>("drop materialized view v");
  EXPECT_FALSE(d.if_exists);
  EXPECT_EQ(d.view.name, "v");
  EXPECT_EQ(ParseError("DROP MATERIALIZED v"),
            "line 1:18 mismatched input 'v' expecting K_VIEW "
            "(DROP MATERIALIZED [v]...)");
}

TEST(ParserDdl, UserTypes) {
  auto c = ParseAs<CreateTypeStatement>(
      "CREATE TYPE IF NOT EXISTS ks.\"Addr\" (street text, "
      "\"Zip\" frozen<list<int>>, other ks.t,)");
  EXPECT_TRUE(c.if_not_exists);
  EXPECT_EQ(c.name.keyspace, "ks");
  EXPECT_EQ(c.name.name, "Addr");
  ASSERT_EQ(c.fields.size(), 3u);
  EXPECT_EQ(c.fields[1].first, "Zip");
  EXPECT_EQ(c.fields[1].second.ToString(), "frozen<list<int>>");
  EXPECT_EQ(c.fields[2].second.ToString(), "ks.t");

  auto add = ParseAs<AlterTypeStatement>(
      "ALTER TYPE IF EXISTS t ADD IF NOT EXISTS f map<int, text>");
  EXPECT_TRUE(add.if_exists);
  EXPECT_EQ(add.kind, AlterTypeKind::kAdd);
  EXPECT_TRUE(add.if_field_exists);
  EXPECT_EQ(add.field, "f");
  EXPECT_EQ(add.type.ToString(), "map<int, text>");
  auto rename =
      ParseAs<AlterTypeStatement>("ALTER TYPE t RENAME a TO b AND c TO d");
  EXPECT_EQ(rename.kind, AlterTypeKind::kRename);
  ASSERT_EQ(rename.renames.size(), 2u);
  EXPECT_EQ(rename.renames[1], (std::pair<std::string, std::string>{"c", "d"}));
  auto alter = ParseAs<AlterTypeStatement>("ALTER TYPE t ALTER a TYPE blob");
  EXPECT_EQ(alter.kind, AlterTypeKind::kAlterField);

  auto d = ParseAs<DropTypeStatement>("DROP TYPE IF EXISTS ks.t");
  EXPECT_TRUE(d.if_exists);
  EXPECT_EQ(d.name.name, "t");

  auto drop = ParseAs<AlterTableStatement>(
      "ALTER TABLE t DROP (a, b) USING TIMESTAMP 1234");
  EXPECT_EQ(drop.drop_timestamp, "1234");
}

}  // namespace
}  // namespace keywise::cql
