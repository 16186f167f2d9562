// INSERT, UPDATE, DELETE and BATCH through the QueryProcessor, checked
// against what storage holds (tables are created through the catalog so
// these tests do not depend on DDL or SELECT).
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "query/cql_script_test_util.h"
#include "query/expr/multi_cell.h"
#include "schema/value_codec.h"
#include "storage/row_fragment.h"

namespace keywise::query {
namespace {

using ::keywise::query::ScriptNode;

struct TestColumn {
  std::string name;
  CqlTypePtr type;
  ColumnKind kind = ColumnKind::kRegular;
  SortOrder order = SortOrder::kAsc;
};

CqlTypePtr IntType() {
  return CqlType::Of(TypeKind::kInt);
}
CqlTypePtr TextType() {
  return CqlType::Of(TypeKind::kVarchar);
}

class WriteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(
        node_.engine()
            .catalog()
            .CreateKeyspace(KeyspaceDef{"ks",
                                        {{"class",
                                          "org.apache.cassandra.locator."
                                          "SimpleStrategy"},
                                         {"replication_factor", "1"}},
                                        true},
                            IfNotExists::kYes)
            .ok());
    client_.keyspace = "ks";
    Create("t", {{"k", IntType(), ColumnKind::kPartitionKey},
                 {"c", IntType(), ColumnKind::kClustering},
                 {"v", IntType()},
                 {"w", TextType()},
                 {"s", IntType(), ColumnKind::kStatic},
                 {"l", CqlType::List(IntType(), false)},
                 {"st", CqlType::Set(TextType(), false)},
                 {"m", CqlType::Map(TextType(), IntType(), false)},
                 {"fl", CqlType::List(IntType(), true)},
                 {"ss", CqlType::Set(IntType(), false), ColumnKind::kStatic}});
    Create("t2", {{"k", IntType(), ColumnKind::kPartitionKey},
                  {"c1", IntType(), ColumnKind::kClustering},
                  {"c2", IntType(), ColumnKind::kClustering, SortOrder::kDesc},
                  {"v", IntType()}});
    Create("kv", {{"a", TextType(), ColumnKind::kPartitionKey},
                  {"b", IntType(), ColumnKind::kPartitionKey},
                  {"v", IntType()}});
    Create("ct", {{"k", IntType(), ColumnKind::kPartitionKey},
                  {"n", CqlType::Of(TypeKind::kCounter)}});
    Create("ttl",
           {{"k", IntType(), ColumnKind::kPartitionKey}, {"v", IntType()}},
           /*default_ttl=*/100);
  }

  void Create(const std::string& name, const std::vector<TestColumn>& columns,
              int default_ttl = 0) {
    TableDef def;
    def.keyspace = "ks";
    def.name = name;
    int pk = 0, ck = 0;
    for (const TestColumn& c : columns) {
      ColumnDef col;
      col.name = c.name;
      col.type = c.type;
      col.kind = c.kind;
      col.order = c.order;
      if (c.kind == ColumnKind::kPartitionKey) col.position = pk++;
      if (c.kind == ColumnKind::kClustering) col.position = ck++;
      def.columns.push_back(col);
    }
    def.options.default_time_to_live = default_ttl;
    Status st = node_.engine().catalog().CreateTable(def, IfNotExists::kNo);
    ASSERT_TRUE(st.ok()) << st.ToString();
  }

  TableDefPtr Table(const std::string& name) {
    return *node_.engine().catalog().GetTable("ks", name);
  }

  Status Exec(const std::string& cql, std::vector<Value> values = {},
              std::optional<int64_t> timestamp = std::nullopt) {
    QueryOptions options;
    options.values = std::move(values);
    options.timestamp = timestamp;
    return node_.processor().Process(cql, options, &client_).status();
  }
  void Ok(const std::string& cql, std::vector<Value> values = {}) {
    Status st = Exec(cql, std::move(values));
    EXPECT_TRUE(st.ok()) << cql << ": " << st.ToString();
  }
  void Err(const std::string& cql, const std::string& message,
           std::vector<Value> values = {}) {
    Status st = Exec(cql, std::move(values));
    EXPECT_FALSE(st.ok()) << cql;
    EXPECT_EQ(st.message(), message) << cql;
    EXPECT_EQ(st.code(), ErrorCode::kInvalid) << cql;
  }

  int32_t Now() { return node_.engine().clock().NowSeconds(); }

  // The live row, if any (`now` defaults to the clock).
  std::optional<LiveRow> Row(const std::string& table,
                             std::vector<std::string> pk,
                             std::vector<std::string> clustering,
                             std::optional<int32_t> now = std::nullopt,
                             std::vector<Cell>* statics = nullptr) {
    ReadOptions options;
    options.now_seconds = now.value_or(Now());
    LiveRow row;
    bool found = false;
    Status st = node_.engine().GetRow(*Table(table), pk, clustering, options,
                                      &row, &found, statics);
    EXPECT_TRUE(st.ok()) << st.ToString();
    if (!found) return std::nullopt;
    return row;
  }

  ColumnId Id(const std::string& table, const std::string& column) {
    return Table(table)->FindColumn(column)->id;
  }

  // The value of a column of a live row as the protocol serializes it.
  std::optional<std::string> ValueOf(const std::string& table,
                                     const LiveRow& row,
                                     const std::string& column) {
    const ColumnDef* def = Table(table)->FindColumn(column);
    if (!def->type->IsMultiCell()) {
      const Cell* c = row.Find(def->id);
      if (c == nullptr) return std::nullopt;
      return c->value;
    }
    std::vector<const Cell*> cells;
    for (const Cell& c : row.cells)
      if (c.column == def->id) cells.push_back(&c);
    return AssembleMultiCell(*def->type, cells);
  }
  std::string Formatted(const std::string& table, const LiveRow& row,
                        const std::string& column) {
    std::optional<std::string> v = ValueOf(table, row, column);
    if (!v) return "null";
    return FormatValue(*Table(table)->FindColumn(column)->type, *v);
  }

  ScriptNode node_;
  ClientState client_;
};

std::string IntBytes(int32_t v) {
  return EncodeInt(v);
}

TEST_F(WriteTest, InsertWritesRowMarkerAndCells) {
  Ok("INSERT INTO t (k, c, v, w) VALUES (1, 2, 3, 'x')");
  auto row = Row("t", {IntBytes(1)}, {IntBytes(2)});
  ASSERT_TRUE(row);
  EXPECT_FALSE(row->liveness.IsEmpty());
  EXPECT_EQ(Formatted("t", *row, "v"), "3");
  EXPECT_EQ(Formatted("t", *row, "w"), "x");
  // A primary key only INSERT makes the row exist.
  Ok("INSERT INTO t (k, c) VALUES (1, 3)");
  EXPECT_TRUE(Row("t", {IntBytes(1)}, {IntBytes(3)}));
}

TEST_F(WriteTest, UpdateWritesNoRowMarker) {
  Ok("UPDATE t SET v = 5 WHERE k = 1 AND c = 1");
  auto row = Row("t", {IntBytes(1)}, {IntBytes(1)});
  ASSERT_TRUE(row);
  EXPECT_TRUE(row->liveness.IsEmpty());
  // Setting the only cell to null leaves nothing alive.
  Ok("UPDATE t SET v = null WHERE k = 1 AND c = 1");
  EXPECT_FALSE(Row("t", {IntBytes(1)}, {IntBytes(1)}));
}

TEST_F(WriteTest, NullWritesTombstoneUnsetWritesNothing) {
  Ok("INSERT INTO t (k, c, v, w) VALUES (1, 1, 1, 'a')");
  Ok("UPDATE t SET v = ?, w = ? WHERE k = 1 AND c = 1",
     {Value::Null(), Value::Unset()});
  auto row = Row("t", {IntBytes(1)}, {IntBytes(1)});
  ASSERT_TRUE(row);
  EXPECT_EQ(Formatted("t", *row, "v"), "null");
  EXPECT_EQ(Formatted("t", *row, "w"), "a");
}

TEST_F(WriteTest, TtlAndTimestamp) {
  Ok("INSERT INTO t (k, c, v) VALUES (1, 1, 1) USING TTL 10 AND TIMESTAMP 42");
  auto row = Row("t", {IntBytes(1)}, {IntBytes(1)});
  ASSERT_TRUE(row);
  const Cell* v = row->Find(Id("t", "v"));
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->timestamp, 42);
  EXPECT_EQ(v->ttl, 10);
  EXPECT_EQ(v->local_deletion_time, Now() + 10);
  EXPECT_EQ(row->liveness.ttl, 10);
  EXPECT_FALSE(Row("t", {IntBytes(1)}, {IntBytes(1)}, Now() + 10));
  // An older timestamp loses.
  Ok("UPDATE t USING TIMESTAMP 41 SET v = 7 WHERE k = 1 AND c = 1");
  EXPECT_EQ(Formatted("t", *Row("t", {IntBytes(1)}, {IntBytes(1)}), "v"), "1");
  // Client-supplied default timestamp.
  ASSERT_TRUE(Exec("UPDATE t SET v = 8 WHERE k = 1 AND c = 1", {}, 43).ok());
  EXPECT_EQ(
      Row("t", {IntBytes(1)}, {IntBytes(1)})->Find(Id("t", "v"))->timestamp,
      43);
}

TEST_F(WriteTest, TtlErrorsAndMarkers) {
  Err("INSERT INTO t (k, c, v) VALUES (1, 1, 1) USING TTL -1",
      "A TTL must be greater or equal to 0, but was -1");
  Err("INSERT INTO t (k, c, v) VALUES (1, 1, 1) USING TTL 630720001",
      "ttl is too large. requested (630720001) maximum (630720000)");
  Err("INSERT INTO t (k, c, v) VALUES (1, 1, 1) USING TIMESTAMP ?",
      "Invalid null value of timestamp", {Value::Null()});
  auto prepared = node_.processor().Prepare(
      "INSERT INTO t (k, c, v) VALUES (?, ?, ?) USING TTL ? AND TIMESTAMP ?",
      client_);
  ASSERT_TRUE(prepared.ok()) << prepared.status().ToString();
  const auto& specs = (*prepared)->bind_specs;
  ASSERT_EQ(specs.size(), 5u);
  EXPECT_EQ(specs[3].name, "[ttl]");
  EXPECT_EQ(specs[3].type->kind(), TypeKind::kInt);
  EXPECT_EQ(specs[4].name, "[timestamp]");
  EXPECT_EQ(specs[4].type->kind(), TypeKind::kBigint);
  EXPECT_EQ((*prepared)->partition_key_bind_indexes, std::vector<uint16_t>{0});
  // Null TTL: none; unset TTL: the table default.
  Ok("INSERT INTO ttl (k, v) VALUES (1, 1) USING TTL ?", {Value::Null()});
  EXPECT_EQ(Row("ttl", {IntBytes(1)}, {})->Find(Id("ttl", "v"))->ttl, 0);
  Ok("INSERT INTO ttl (k, v) VALUES (2, 1) USING TTL ?", {Value::Unset()});
  EXPECT_EQ(Row("ttl", {IntBytes(2)}, {})->Find(Id("ttl", "v"))->ttl, 100);
  Ok("INSERT INTO ttl (k, v) VALUES (3, 1)");
  EXPECT_EQ(Row("ttl", {IntBytes(3)}, {})->Find(Id("ttl", "v"))->ttl, 100);
  Ok("INSERT INTO ttl (k, v) VALUES (4, 1) USING TTL 0");
  EXPECT_EQ(Row("ttl", {IntBytes(4)}, {})->Find(Id("ttl", "v"))->ttl, 0);
}

TEST_F(WriteTest, PrimaryKeyErrors) {
  Err("INSERT INTO t (c, v) VALUES (1, 1)",
      "Some partition key parts are missing: k");
  Err("INSERT INTO t (k, v) VALUES (1, 1)",
      "Some clustering keys are missing: c");
  Err("UPDATE t SET v = 1 WHERE k = 1", "Some clustering keys are missing: c");
  Err("UPDATE t2 SET v = 1 WHERE k = 1",
      "Some clustering keys are missing: c1, c2");
  Err("UPDATE kv SET v = 1 WHERE b = 1",
      "Some partition key parts are missing: a");
  Err("UPDATE t SET k = 1 WHERE k = 1 AND c = 1",
      "PRIMARY KEY part k found in SET part");
  Err("UPDATE t SET v = 1 WHERE k = 1 AND c = 1 AND v = 2",
      "Non PRIMARY KEY columns found in where clause: v ");
  Err("UPDATE t SET v = 1 WHERE k = 1 AND c > 1",
      "Slice restrictions are not supported on the clustering columns in "
      "UPDATE statements");
  Err("UPDATE t SET v = 1 WHERE k > 1 AND c = 1",
      "Only EQ and IN relation are supported on the partition key (unless you "
      "use the token() function) for UPDATE statements");
  Err("UPDATE t SET v = 1 WHERE token(k) = 1 AND c = 1",
      "The token function cannot be used in WHERE clauses for UPDATE "
      "statements");
  Err("UPDATE t SET v = 1 WHERE k = 1 AND c = 1 AND c = 2",
      "c cannot be restricted by more than one relation if it includes an "
      "Equal");
  Err("UPDATE t SET nope = 1 WHERE k = 1 AND c = 1",
      "Undefined column name nope");
  Err("INSERT INTO t (k, c, v) VALUES (?, 1, 1)",
      "Invalid null value in condition for column k", {Value::Null()});
  Err("INSERT INTO t (k, c, v) VALUES (1, ?, 1)",
      "Invalid unset value for column c", {Value::Unset()});
  Err("INSERT INTO t (k, c, v, v) VALUES (1, 1, 1, 1)",
      "The column names contains duplicates");
  Err("INSERT INTO t (k, c) VALUES (?, 1)", "Key may not be empty",
      {Value::Of("")});
  // Composite partition keys may have empty components (as in Cassandra).
  Ok("INSERT INTO kv (a, b, v) VALUES ('', 1, 1)");
  Err("INSERT INTO ct (k, n) VALUES (1, 1)",
      "INSERT statements are not allowed on counter tables, use UPDATE "
      "instead");
  Err("UPDATE ct SET n = 1 WHERE k = 1",
      "Cannot set the value of counter column n (counters can only be "
      "incremented/decremented, not set)");
  Err("UPDATE ct USING TTL 1 SET n = n + 1 WHERE k = 1",
      "Cannot provide custom TTL for counter updates");
  Err("UPDATE t SET v = v + 1 WHERE k = 1 AND c = 1",
      "Invalid operation (v = v + 1) for non counter column v");
  Err("UPDATE t SET s = 1 WHERE k = 1 AND c = 1",
      "Invalid restrictions on clustering columns since the UPDATE statement "
      "modifies only static columns");
  Err("DELETE FROM t2 WHERE k = 1 AND c2 = 1",
      "PRIMARY KEY column \"c2\" cannot be restricted as preceding column "
      "\"c1\" is not restricted");
  Err("DELETE v FROM t2 WHERE k = 1 AND c1 = 1",
      "Range deletions are not supported for specific columns");
  Err("DELETE k FROM t WHERE k = 1",
      "Invalid identifier k for deletion "
      "(should not be a PRIMARY KEY part)");
}

TEST_F(WriteTest, InAndMultiplePartitions) {
  Ok("UPDATE t2 SET v = 7 WHERE k IN (1, 2) AND c1 IN (3, 4) AND c2 = 5");
  for (int k : {1, 2})
    for (int c1 : {3, 4})
      EXPECT_TRUE(Row("t2", {IntBytes(k)}, {IntBytes(c1), IntBytes(5)}));
  Ok("UPDATE t2 SET v = 8 WHERE k IN ? AND c1 = 1 AND c2 = 1",
     {Value::Of(EncodeList({IntBytes(5), IntBytes(6)}))});
  EXPECT_TRUE(Row("t2", {IntBytes(6)}, {IntBytes(1), IntBytes(1)}));
  // An empty IN writes nothing.
  Ok("UPDATE t2 SET v = 8 WHERE k IN () AND c1 = 1 AND c2 = 1");
}

TEST_F(WriteTest, StaticColumns) {
  Ok("INSERT INTO t (k, s) VALUES (1, 10)");
  std::vector<Cell> statics;
  EXPECT_FALSE(Row("t", {IntBytes(1)}, {IntBytes(0)}, std::nullopt, &statics));
  ASSERT_EQ(statics.size(), 1u);
  EXPECT_EQ(statics[0].value, IntBytes(10));
  Ok("UPDATE t SET s = 11 WHERE k = 1");
  Ok("INSERT INTO t (k, c, s, v) VALUES (1, 2, 12, 3)");
  statics.clear();
  EXPECT_TRUE(Row("t", {IntBytes(1)}, {IntBytes(2)}, std::nullopt, &statics));
  ASSERT_EQ(statics.size(), 1u);
  EXPECT_EQ(statics[0].value, IntBytes(12));
  Ok("DELETE s FROM t WHERE k = 1");
  statics.clear();
  EXPECT_TRUE(Row("t", {IntBytes(1)}, {IntBytes(2)}, std::nullopt, &statics));
  EXPECT_TRUE(statics.empty());
}

TEST_F(WriteTest, DeleteKinds) {
  for (int c1 = 0; c1 < 3; ++c1)
    for (int c2 = 0; c2 < 3; ++c2)
      Ok("INSERT INTO t2 (k, c1, c2, v) VALUES (1, " + std::to_string(c1) +
         ", " + std::to_string(c2) + ", 1)");
  // A column, then a row.
  Ok("DELETE v FROM t2 WHERE k = 1 AND c1 = 0 AND c2 = 0");
  auto row = Row("t2", {IntBytes(1)}, {IntBytes(0), IntBytes(0)});
  ASSERT_TRUE(row);
  EXPECT_EQ(row->Find(Id("t2", "v")), nullptr);
  Ok("DELETE FROM t2 WHERE k = 1 AND c1 = 0 AND c2 = 0");
  EXPECT_FALSE(Row("t2", {IntBytes(1)}, {IntBytes(0), IntBytes(0)}));
  // A slice on the DESC column: c2 > 0 within c1 = 0.
  Ok("DELETE FROM t2 WHERE k = 1 AND c1 = 0 AND c2 > 1");
  EXPECT_TRUE(Row("t2", {IntBytes(1)}, {IntBytes(0), IntBytes(1)}));
  EXPECT_FALSE(Row("t2", {IntBytes(1)}, {IntBytes(0), IntBytes(2)}));
  // A prefix.
  Ok("DELETE FROM t2 WHERE k = 1 AND c1 = 1");
  for (int c2 = 0; c2 < 3; ++c2)
    EXPECT_FALSE(Row("t2", {IntBytes(1)}, {IntBytes(1), IntBytes(c2)}));
  EXPECT_TRUE(Row("t2", {IntBytes(1)}, {IntBytes(2), IntBytes(0)}));
  // A slice on the first clustering column.
  Ok("DELETE FROM t2 WHERE k = 1 AND c1 >= 2 AND c1 < 5");
  EXPECT_FALSE(Row("t2", {IntBytes(1)}, {IntBytes(2), IntBytes(0)}));
  EXPECT_TRUE(Row("t2", {IntBytes(1)}, {IntBytes(0), IntBytes(1)}));
  // The partition.
  Ok("DELETE FROM t2 WHERE k = 1");
  EXPECT_FALSE(Row("t2", {IntBytes(1)}, {IntBytes(0), IntBytes(1)}));
  // Newer writes survive the deletions.
  Ok("INSERT INTO t2 (k, c1, c2, v) VALUES (1, 1, 1, 1)");
  EXPECT_TRUE(Row("t2", {IntBytes(1)}, {IntBytes(1), IntBytes(1)}));
}

TEST_F(WriteTest, Collections) {
  Ok("INSERT INTO t (k, c, st, m, l) VALUES (1, 1, {'b', 'a'}, {'x': 1}, "
     "[1, 2])");
  Ok("UPDATE t SET st = st + {'c'}, m = m + {'y': 2}, l = l + [3], "
     "l = [0] + l WHERE k = 1 AND c = 1");
  auto row = Row("t", {IntBytes(1)}, {IntBytes(1)});
  ASSERT_TRUE(row);
  EXPECT_EQ(Formatted("t", *row, "st"), "{'a', 'b', 'c'}");
  EXPECT_EQ(Formatted("t", *row, "m"), "{'x': 1, 'y': 2}");
  EXPECT_EQ(Formatted("t", *row, "l"), "[0, 1, 2, 3]");
  Ok("UPDATE t SET st = st - {'a'}, m = m - {'x'}, m['z'] = 3 "
     "WHERE k = 1 AND c = 1");
  Ok("UPDATE t SET l = [-2, -1] + l WHERE k = 1 AND c = 1");
  row = Row("t", {IntBytes(1)}, {IntBytes(1)});
  EXPECT_EQ(Formatted("t", *row, "st"), "{'b', 'c'}");
  EXPECT_EQ(Formatted("t", *row, "m"), "{'y': 2, 'z': 3}");
  EXPECT_EQ(Formatted("t", *row, "l"), "[-2, -1, 0, 1, 2, 3]");
  // Overwriting replaces every element.
  Ok("UPDATE t SET st = {'q'}, m = {'k': 9}, l = [7] WHERE k = 1 AND c = 1");
  row = Row("t", {IntBytes(1)}, {IntBytes(1)});
  EXPECT_EQ(Formatted("t", *row, "st"), "{'q'}");
  EXPECT_EQ(Formatted("t", *row, "m"), "{'k': 9}");
  EXPECT_EQ(Formatted("t", *row, "l"), "[7]");
  Ok("DELETE st['q'], m['k'] FROM t WHERE k = 1 AND c = 1");
  Ok("DELETE l FROM t WHERE k = 1 AND c = 1");
  row = Row("t", {IntBytes(1)}, {IntBytes(1)});
  ASSERT_TRUE(row);  // the row marker
  EXPECT_EQ(Formatted("t", *row, "st"), "null");
  EXPECT_EQ(Formatted("t", *row, "m"), "null");
  EXPECT_EQ(Formatted("t", *row, "l"), "null");
  // Static multi-cell column overwrite.
  Ok("UPDATE t SET ss = {1, 2} WHERE k = 1");
  Ok("UPDATE t SET ss = {3} WHERE k = 1");
  std::vector<Cell> statics;
  Row("t", {IntBytes(1)}, {IntBytes(1)}, std::nullopt, &statics);
  ASSERT_EQ(statics.size(), 1u);
  EXPECT_EQ(statics[0].path, IntBytes(3));
  // Frozen collections are one cell.
  Ok("UPDATE t SET fl = [3, 2] WHERE k = 1 AND c = 1");
  EXPECT_EQ(Formatted("t", *Row("t", {IntBytes(1)}, {IntBytes(1)}), "fl"),
            "[3, 2]");
  Err("UPDATE t SET fl = fl + [1] WHERE k = 1 AND c = 1",
      "Invalid operation (fl = fl + [1]) for frozen collection column fl");
  Err("UPDATE t SET st['a'] = 'b' WHERE k = 1 AND c = 1",
      "Invalid operation (st['a'] = 'b') for set column st");
  Err("UPDATE t SET m[?] = 1 WHERE k = 1 AND c = 1", "Invalid null map key",
      {Value::Null()});
  Err("UPDATE t SET l[0] = 1 WHERE k = 9 AND c = 9",
      "Attempted to set an element on a list which is null");
  Err("DELETE v[1] FROM t WHERE k = 1 AND c = 1",
      "Invalid deletion operation for non collection column v");
}

TEST_F(WriteTest, Batches) {
  Ok("BEGIN BATCH INSERT INTO t (k, c, v) VALUES (1, 1, 1); "
     "UPDATE t2 SET v = 2 WHERE k = 1 AND c1 = 1 AND c2 = 1; "
     "DELETE FROM kv WHERE a = 'x' AND b = 1; APPLY BATCH");
  EXPECT_TRUE(Row("t", {IntBytes(1)}, {IntBytes(1)}));
  EXPECT_TRUE(Row("t2", {IntBytes(1)}, {IntBytes(1), IntBytes(1)}));
  Ok("BEGIN UNLOGGED BATCH USING TIMESTAMP 99 INSERT INTO t (k, c, v) VALUES "
     "(?, 2, ?); INSERT INTO t (k, c, v) VALUES (?, 3, ?) APPLY BATCH",
     {Value::Of(IntBytes(1)), Value::Of(IntBytes(5)), Value::Of(IntBytes(1)),
      Value::Of(IntBytes(6))});
  EXPECT_EQ(
      Row("t", {IntBytes(1)}, {IntBytes(2)})->Find(Id("t", "v"))->timestamp,
      99);
  EXPECT_EQ(Row("t", {IntBytes(1)}, {IntBytes(3)})->Find(Id("t", "v"))->value,
            IntBytes(6));
  Ok("BEGIN BATCH APPLY BATCH");
  Err("BEGIN BATCH USING TIMESTAMP 1 INSERT INTO t (k, c) VALUES (1, 1) "
      "USING TIMESTAMP 2 APPLY BATCH",
      "Timestamp must be set either on BATCH or individual statements");
  Err("BEGIN BATCH USING TTL 1 INSERT INTO t (k, c) VALUES (1, 1) APPLY BATCH",
      "Global TTL on the BATCH statement is not supported.");
  Err("BEGIN COUNTER BATCH INSERT INTO t (k, c) VALUES (1, 1) APPLY BATCH",
      "Cannot include non-counter statement in a counter batch");
  Err("BEGIN UNLOGGED BATCH UPDATE ct SET n = n + 1 WHERE k = 1; "
      "INSERT INTO t (k, c) VALUES (1, 1) APPLY BATCH",
      "Counter and non-counter mutations cannot exist in the same batch");
  Err("BEGIN BATCH UPDATE ct SET n = n + 1 WHERE k = 1 APPLY BATCH",
      "Cannot include a counter statement in a logged batch");
  // A failing statement leaves the whole batch unapplied.
  Err("BEGIN BATCH INSERT INTO t (k, c, v) VALUES (7, 1, 1); "
      "INSERT INTO t (k, c, v) VALUES (?, 1, 1) APPLY BATCH",
      "Invalid null value in condition for column k", {Value::Null()});
  EXPECT_FALSE(Row("t", {IntBytes(7)}, {IntBytes(1)}));
}

TEST_F(WriteTest, ProtocolBatch) {
  auto insert = node_.processor().Prepare(
      "INSERT INTO t (k, c, v) VALUES (?, ?, ?)", client_);
  ASSERT_TRUE(insert.ok());
  std::vector<QueryProcessor::BatchEntry> entries;
  entries.push_back({*insert,
                     {Value::Of(IntBytes(3)), Value::Of(IntBytes(1)),
                      Value::Of(IntBytes(1))}});
  entries.push_back({*insert,
                     {Value::Of(IntBytes(3)), Value::Of(IntBytes(2)),
                      Value::Of(IntBytes(2))}});
  QueryOptions options;
  options.timestamp = 1234;
  auto result = node_.processor().ExecuteBatch(cql::BatchType::kLogged, entries,
                                               options, &client_);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(
      Row("t", {IntBytes(3)}, {IntBytes(2)})->Find(Id("t", "v"))->timestamp,
      1234);
}

}  // namespace
}  // namespace keywise::query
