#include "query/selection/selection.h"

#include <gtest/gtest.h>

#include "cql/parser.h"
#include "schema/value_codec.h"

namespace keywise::query {
namespace {

CqlTypePtr TypeOf(TypeKind k) {
  return CqlType::Of(k);
}

// ks.t (k int, c int, v int, s text static, b text, l list<int>,
//       f frozen<list<int>>, t timestamp, PRIMARY KEY (k, c))
class SelectionTest : public ::testing::Test {
 protected:
  SelectionTest() {
    table_.keyspace = "ks";
    table_.name = "t";
    auto add = [&](const char* name, CqlTypePtr type, ColumnKind kind) {
      ColumnDef c;
      c.name = name;
      c.type = std::move(type);
      c.kind = kind;
      c.id = static_cast<ColumnId>(table_.columns.size());
      table_.columns.push_back(c);
    };
    add("k", TypeOf(TypeKind::kInt), ColumnKind::kPartitionKey);
    add("c", TypeOf(TypeKind::kInt), ColumnKind::kClustering);
    add("v", TypeOf(TypeKind::kInt), ColumnKind::kRegular);
    add("s", TypeOf(TypeKind::kVarchar), ColumnKind::kStatic);
    add("b", TypeOf(TypeKind::kVarchar), ColumnKind::kRegular);
    add("l", CqlType::List(TypeOf(TypeKind::kInt), false),
        ColumnKind::kRegular);
    add("f", CqlType::List(TypeOf(TypeKind::kInt), true), ColumnKind::kRegular);
    add("t", TypeOf(TypeKind::kTimestamp), ColumnKind::kRegular);
  }

  Result<std::shared_ptr<const Selection>> Prepare(const std::string& select,
                                                   BindSpecs* binds = nullptr) {
    int markers = 0;
    auto st = cql::ParseStatement(select, &markers);
    EXPECT_TRUE(st.ok()) << st.status().ToString();
    statement_ = std::get<cql::SelectStatement>(*st);
    BindSpecs local(static_cast<size_t>(markers));
    if (binds == nullptr) binds = &local;
    binds->resize(static_cast<size_t>(markers));
    return Selection::Prepare(table_, statement_, binds);
  }

  std::string Error(const std::string& select) {
    auto s = Prepare(select);
    return s.ok() ? "OK" : s.status().message();
  }

  std::vector<std::string> Names(const Selection& s) {
    std::vector<std::string> out;
    for (const ColumnSpec& c : s.columns()) out.push_back(c.name);
    return out;
  }

  Cell MakeCell(const char* column, std::string value, int64_t ts = 1000,
                int32_t ttl = 0, int32_t expiry = kNoDeletionTime) {
    Cell c;
    c.column = table_.FindColumn(column)->id;
    c.value = std::move(value);
    c.timestamp = ts;
    c.ttl = ttl;
    c.local_deletion_time = expiry;
    return c;
  }

  // Runs `rows` (k, c, v) through the selection; one EndGroup at the end.
  std::vector<std::vector<std::string>> Run(const Selection& s,
                                            std::vector<LiveRow> rows,
                                            int64_t now_micros = 0) {
    RowsResult out;
    auto acc = s.NewAccumulator(EvalContext{nullptr, now_micros}, &out);
    std::vector<std::string> pk = {EncodeInt(1)};
    for (const LiveRow& r : rows) {
      RowView view{&table_, &pk, &statics_, &r};
      Status st = acc->AddRow(view);
      EXPECT_TRUE(st.ok()) << st.ToString();
    }
    EXPECT_TRUE(acc->EndGroup().ok());
    auto decoded = DecodeRows(out);
    EXPECT_TRUE(decoded.ok());
    std::vector<std::vector<std::string>> formatted;
    for (const auto& row : *decoded) {
      std::vector<std::string> f;
      for (size_t i = 0; i < row.size(); ++i) {
        f.push_back(row[i] ? FormatValue(*out.columns[i].type, *row[i])
                           : "null");
      }
      formatted.push_back(f);
    }
    return formatted;
  }

  LiveRow Row(int c, int v) {
    LiveRow r;
    r.clustering = {EncodeInt(c)};
    r.cells.push_back(MakeCell("v", EncodeInt(v), 1000 + c));
    return r;
  }

  TableDef table_;
  cql::SelectStatement statement_;
  std::vector<Cell> statics_;
};

TEST_F(SelectionTest, WildcardOrder) {
  auto s = Prepare("SELECT * FROM ks.t");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(Names(**s),
            (std::vector<std::string>{"k", "c", "b", "f", "l", "s", "t", "v"}));
  EXPECT_FALSE((*s)->IsAggregate());
  EXPECT_EQ((*s)->read_columns().size(), 8u);
  EXPECT_EQ((*s)->columns()[0].keyspace, "ks");
  EXPECT_EQ((*s)->columns()[0].table, "t");
}

TEST_F(SelectionTest, ColumnNamesAsCassandra) {
  auto s = Prepare(
      "SELECT k, v AS value, writetime(v), ttl(b), count(*), count(v), "
      "toUnixTimestamp(t), cast(v as text), token(k), CAST(v AS int), "
      "intAsBlob(v), blobAsInt(intAsBlob(v)) FROM ks.t");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(Names(**s), (std::vector<std::string>{
                            "k", "value", "writetime(v)", "ttl(b)", "count",
                            "system.count(v)", "system.tounixtimestamp(t)",
                            "cast(v as text)", "system.token(k)", "v",
                            "system.intasblob(v)",
                            "system.blobasint(system.intasblob(v))"}));
  EXPECT_EQ((*s)->columns()[2].type->kind(), TypeKind::kBigint);
  EXPECT_EQ((*s)->columns()[3].type->kind(), TypeKind::kInt);
  EXPECT_TRUE((*s)->IsAggregate());
  EXPECT_TRUE((*s)->NeedsCellMetadata());
}

TEST_F(SelectionTest, Errors) {
  EXPECT_EQ(Error("SELECT nope FROM ks.t"), "Undefined column name nope");
  EXPECT_EQ(Error("SELECT \"Nope\" FROM ks.t"),
            "Undefined column name \"Nope\"");
  EXPECT_EQ(Error("SELECT writetime(k) FROM ks.t"),
            "Cannot use selection function writeTime on PRIMARY KEY part k");
  EXPECT_EQ(Error("SELECT ttl(c) FROM ks.t"),
            "Cannot use selection function ttl on PRIMARY KEY part c");
  // A non-frozen collection gives a list per element (Cassandra 5).
  EXPECT_EQ(Error("SELECT writetime(l) FROM ks.t"), "OK");
  EXPECT_EQ(Error("SELECT writetime(f) FROM ks.t"), "OK");
  EXPECT_EQ(Error("SELECT foo(v) FROM ks.t"), "Unknown function 'foo'");
  EXPECT_EQ(Error("SELECT CAST(v AS boolean) FROM ks.t"),
            "v cannot be cast to boolean");
  EXPECT_EQ(Error("SELECT max(count(v)) FROM ks.t"),
            "aggregate functions cannot be used as arguments of aggregate "
            "functions");
  EXPECT_EQ(Error("SELECT toTimestamp(v) FROM ks.t"),
            "Invalid call to function totimestamp, none of its type "
            "signatures match (known type signatures: system.totimestamp : "
            "(timeuuid) -> timestamp, system.totimestamp : (date) -> "
            "timestamp)");
  EXPECT_EQ(Error("SELECT intAsBlob(b) FROM ks.t"),
            "Type error: b cannot be passed as argument 0 of function "
            "system.intasblob of type int");
  EXPECT_EQ(Error("SELECT now(v) FROM ks.t"),
            "Invalid number of arguments in call to function system.now: 0 "
            "required but 1 provided");
  EXPECT_EQ(Error("SELECT token(k, c) FROM ks.t"),
            "Invalid number of arguments in call to function system.token: 1 "
            "required but 2 provided");
}

TEST_F(SelectionTest, PlainRows) {
  auto s = Prepare("SELECT k, c, v, s FROM ks.t");
  ASSERT_TRUE(s.ok());
  statics_.push_back(MakeCell("s", EncodeText("st")));
  auto rows = Run(**s, {Row(1, 10), Row(2, 20)});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"1", "1", "10", "st"}));
  EXPECT_EQ(rows[1], (std::vector<std::string>{"1", "2", "20", "st"}));
}

TEST_F(SelectionTest, StaticOnlyPartition) {
  auto s = Prepare("SELECT k, c, v, s FROM ks.t");
  ASSERT_TRUE(s.ok());
  statics_.push_back(MakeCell("s", EncodeText("st")));
  RowsResult out;
  auto acc = (*s)->NewAccumulator(EvalContext{}, &out);
  std::vector<std::string> pk = {EncodeInt(3)};
  ASSERT_TRUE(acc->AddRow(RowView{&table_, &pk, &statics_, nullptr}).ok());
  auto rows = *DecodeRows(out);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(*rows[0][0], EncodeInt(3));
  EXPECT_FALSE(rows[0][1].has_value());
  EXPECT_FALSE(rows[0][2].has_value());
  EXPECT_EQ(*rows[0][3], "st");
}

TEST_F(SelectionTest, WritetimeAndTtl) {
  auto s =
      Prepare("SELECT writetime(v), ttl(v), ttl(b), writetime(b) FROM ks.t");
  ASSERT_TRUE(s.ok());
  LiveRow r;
  r.clustering = {EncodeInt(1)};
  r.cells.push_back(MakeCell("v", EncodeInt(5), 1234, 100, 1100));
  auto rows = Run(**s, {r}, int64_t{1000} * 1000000 + 500);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"1234", "100", "null", "null"}));
}

TEST_F(SelectionTest, AggregatesWithPlainColumns) {
  auto s = Prepare(
      "SELECT k, c, count(*), count(v), sum(v), avg(v), min(v), max(v), "
      "tounixtimestamp(max(t)) FROM ks.t");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_TRUE((*s)->IsAggregate());
  LiveRow with_t = Row(3, 7);
  with_t.cells.push_back(MakeCell("t", EncodeTimestamp(42)));
  LiveRow no_v;
  no_v.clustering = {EncodeInt(4)};
  auto rows = Run(**s, {Row(2, 10), with_t, no_v});
  ASSERT_EQ(rows.size(), 1u);
  // Plain columns come from the first row of the group.
  EXPECT_EQ(rows[0], (std::vector<std::string>{"1", "2", "3", "2", "17", "8",
                                               "7", "10", "42"}));
}

TEST_F(SelectionTest, AggregateOverNoRows) {
  auto s = Prepare("SELECT k, count(*), sum(v), max(v) FROM ks.t");
  ASSERT_TRUE(s.ok());
  auto rows = Run(**s, {});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"null", "0", "0", "null"}));
}

TEST_F(SelectionTest, CountOfConstantCountsRows) {
  auto s = Prepare("SELECT count(1), COUNT(*) AS n FROM ks.t");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(Names(**s), (std::vector<std::string>{"count", "n"}));
  auto rows = Run(**s, {Row(1, 1), Row(2, 2)});
  EXPECT_EQ(rows[0], (std::vector<std::string>{"2", "2"}));
}

TEST_F(SelectionTest, TermsAndMarkers) {
  EXPECT_EQ(Error("SELECT 1 FROM ks.t"),
            "Cannot infer type for term 1 in selection clause (try using a "
            "cast to force a type)");
  BindSpecs binds;
  auto s = Prepare(
      "SELECT intAsBlob(1), blobAsInt(?), bigintAsBlob(5) FROM ks.t", &binds);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(Names(**s), (std::vector<std::string>{"system.intasblob(1)",
                                                  "system.blobasint(?)",
                                                  "system.bigintasblob(5)"}));
  ASSERT_EQ(binds.size(), 1u);
  EXPECT_EQ(binds[0].name, "[selection]");
  EXPECT_EQ(binds[0].type->kind(), TypeKind::kBlob);
  QueryOptions options;
  options.values = {Value::Of(EncodeInt(9))};
  RowsResult out;
  auto acc = (*s)->NewAccumulator(EvalContext{&options, 0}, &out);
  std::vector<std::string> pk = {EncodeInt(1)};
  LiveRow r = Row(1, 1);
  ASSERT_TRUE(acc->AddRow(RowView{&table_, &pk, &statics_, &r}).ok());
  auto rows = *DecodeRows(out);
  EXPECT_EQ(*rows[0][0], EncodeInt(1));
  EXPECT_EQ(*rows[0][1], EncodeInt(9));
  EXPECT_EQ(*rows[0][2], EncodeBigint(5));
}

TEST_F(SelectionTest, CastsAndTokens) {
  auto s = Prepare(
      "SELECT CAST(v AS text), CAST(v AS double), token(k), "
      "CAST(CAST(v AS tinyint) AS smallint) FROM ks.t");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(Names(**s).back(), "cast(cast(v as tinyint) as smallint)");
  auto rows = Run(**s, {Row(1, 300)});
  EXPECT_EQ(rows[0], (std::vector<std::string>{"300", "300",
                                               "-4069959284402364209", "44"}));
}

TEST_F(SelectionTest, MultiCellCollections) {
  auto s = Prepare("SELECT l FROM ks.t");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ((*s)->read_columns().front()->name, "l");
}

}  // namespace
}  // namespace keywise::query
