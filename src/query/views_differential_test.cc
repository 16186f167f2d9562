// Randomized differential test of secondary indexes and materialized views.
//
// Per seed: one base table (composite partition key, two clustering
// columns in random orders, a set; in some seeds a static column, a default
// TTL, a column added by ALTER TABLE part way); global indexes (on regular
// columns, a clustering column, a partition key component, the set's
// values, the static column), local indexes, and views (keyed by a regular
// column, by base key columns only, by a text column in a composite
// partition key; one with SELECT *), some created before any data and some
// later (backfill). Then a long random sequence of INSERT / UPDATE / DELETE
// of cells, rows, clustering ranges and partitions (IN on keys too),
// BATCHes, TTLs, USING TIMESTAMP in the past and future, clock advances
// that expire TTLs, flushes, compactions, restarts, TRUNCATE, and indexes
// and views dropped and made again.
//
// After every step the base table's own SELECT (tested elsewhere) is the
// truth:
//   - an index query `col = value` or `s CONTAINS e` (alone, within one
//     partition, with a filtered extra restriction, a token range, LIMIT,
//     PER PARTITION LIMIT, other columns, count(*), paged) returns exactly
//     the base rows that match, in the base's order;
//   - a view holds exactly the projection of the base rows whose view key
//     columns are all set (compared as sets), and a read of one view
//     partition returns them in the view's clustering order.
// TTL() and WRITETIME() of view rows are not compared here (view rows keep
// their base cells' timestamps and TTLs: views_convergence_test checks them
// cell for cell); their expiry is, as reads after each clock advance see it.
//
// KEYWISE_SEED=n runs only seed n; KEYWISE_OPS=n changes the number of
// steps per seed; KEYWISE_DUMP=path writes the steps of the last seed run
// as a testdata/ script (format: testdata/README.md) to path.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "query/cql_script_test_util.h"
#include "query/views_differential_test_util.h"

namespace keywise::query {
namespace {

// Two differences from Cassandra, kept out of the comparison until they
// are fixed (then set these to true):
// - Cassandra indexes an empty text value (a value, not null) under a
//   global index or a view key; Keywise leaves such view rows out (storage
//   keeps no empty partition key) and refuses an index lookup of the empty
//   value, so empty text is only written where no global index would make
//   it a whole index partition key.
// - Cassandra indexes static rows under partition key indexes, so a
//   partition holding only its static row is found by `p2 = v`; Keywise
//   does not return it.
constexpr bool kEmptyTextIndexed = false;
constexpr bool kStaticRowsInPartitionKeyIndexes = false;

using namespace views_differential;  // NOLINT: the test's own model

class ViewsDifferential : public ::testing::Test {
 protected:
  std::mt19937 rng_;
  std::unique_ptr<ScriptNode> node_;
  uint32_t seed_ = 0;
  int step_ = 0;
  std::vector<int> base_columns_;  // the base's columns, in Col order
  std::string select_all_;         // ... as a select list
  int add_v4_at_ = -1;             // the step of ALTER TABLE t ADD v4
  std::vector<IndexSpec> indexes_;
  std::vector<ViewSpec> views_;
  std::vector<std::vector<std::string>> domains_;  // literals, per column
  std::vector<Line> base_;        // the base table, as last read
  std::vector<std::string> log_;  // the seed's steps, in script form
  int checked_ = 0;               // index/view reads compared
  int non_empty_ = 0;             // ... of which expected some rows

  int R(int n) { return static_cast<int>(rng_() % static_cast<unsigned>(n)); }
  bool P(int percent) { return R(100) < percent; }
  template <typename T>
  const T& Pick(const std::vector<T>& v) {
    return v[static_cast<size_t>(R(static_cast<int>(v.size())))];
  }
  static bool Fatal() { return ::testing::Test::HasFatalFailure(); }
  bool Has(int col) const {
    return std::find(base_columns_.begin(), base_columns_.end(), col) !=
           base_columns_.end();
  }

  // --- running steps -------------------------------------------------------

  void RunRecord(ScriptRecord::Kind kind, const std::string& cql,
                 int64_t seconds, const std::string& script) {
    log_.push_back(script);
    ScriptRecord r;
    r.kind = kind;
    r.cql = cql;
    r.seconds = seconds;
    std::string failure = node_->Run(r);
    ASSERT_EQ(failure, "") << Context() << script;
  }
  void Exec(const std::string& cql) {
    RunRecord(ScriptRecord::Kind::kStatementOk, cql, 0, "statement ok\n" + cql);
  }
  void Advance(int64_t seconds) {
    RunRecord(ScriptRecord::Kind::kClockAdvance, "", seconds,
              "clock advance " + std::to_string(seconds));
  }
  void Storage(ScriptRecord::Kind kind, const std::string& name) {
    RunRecord(kind, "", 0, name);
  }

  std::string Context() {
    std::string s =
        "seed " + std::to_string(seed_) + " step " + std::to_string(step_) +
        " (KEYWISE_SEED=" + std::to_string(seed_) + "; last steps:\n";
    size_t from = log_.size() > 25 ? log_.size() - 25 : 0;
    for (size_t i = from; i < log_.size(); ++i) s += "  " + log_[i] + "\n";
    return s + ")\n";
  }

  // --- random statements ---------------------------------------------------

  int64_t NowMicros() { return node_->engine().clock().NowMicros(); }

  const std::vector<std::string>& Domain(int col) {
    return domains_[static_cast<size_t>(col)];
  }
  std::string Lit(int col) { return Pick(Domain(col)); }
  std::string SetLit() {
    std::string s;
    for (int e = 1; e <= 3; ++e) {
      if (P(40)) s += (s.empty() ? "" : ", ") + std::to_string(e);
    }
    return "{" + s + "}";
  }
  std::string ValueOrNull(int col) {
    if (P(15)) return "null";
    return col == kS ? SetLit() : Lit(col);
  }
  // The regular (and static, if any) columns, shuffled.
  std::vector<int> ShuffledValueColumns() {
    std::vector<int> cols;
    for (int c : base_columns_) {
      if (c >= kV1) cols.push_back(c);
    }
    std::shuffle(cols.begin(), cols.end(), rng_);
    return cols;
  }

  // " USING ..." with a TTL (if allowed) and/or a timestamp in the past or
  // future (if allowed), or nothing.
  std::string Using(bool ttl_ok, bool timestamp_ok) {
    std::vector<std::string> parts;
    if (ttl_ok && P(25)) {  // TTL 0: none, whatever the table's default
      parts.push_back("TTL " + std::to_string(P(15) ? 0 : 1 + R(6)));
    }
    if (timestamp_ok && P(25)) {
      int64_t now = NowMicros();
      int64_t ts = P(65) ? now - (1 + R(20)) * 1000000LL + R(1000)
                         : now + (1 + R(8)) * 1000000LL;
      if (P(3)) ts = 1;
      parts.push_back("TIMESTAMP " + std::to_string(ts));
    }
    std::string s;
    for (const std::string& p : parts) {
      s += (s.empty() ? " USING " : " AND ") + p;
    }
    return s;
  }

  // `col = v`, or now and then `col IN (...)` when allowed.
  std::string Eq(int col, bool in_ok) {
    if (in_ok && P(12)) {
      std::string a = Lit(col), b = Lit(col);
      return Name(col) + " IN (" + a + ", " + b + ")";
    }
    return Name(col) + " = " + Lit(col);
  }
  std::string PartitionWhere(bool in_ok) {
    return Eq(kP1, in_ok) + " AND " + Eq(kP2, in_ok);
  }
  std::string RowWhere(bool in_ok) {
    return PartitionWhere(in_ok) + " AND " + Eq(kC1, false) + " AND " +
           Eq(kC2, in_ok);
  }

  std::string RandomInsert(bool timestamp_ok) {
    std::string names = "p1, p2";
    std::string values = Lit(kP1) + ", " + Lit(kP2);
    if (Has(kSt) && P(10)) {  // the static row alone
      return "INSERT INTO t (p1, p2, st) VALUES (" + values + ", " +
             ValueOrNull(kSt) + ")" + Using(true, timestamp_ok);
    }
    names += ", c1, c2";
    values += ", " + Lit(kC1) + ", " + Lit(kC2);
    for (int c : base_columns_) {
      if (c < kV1 || P(c == kSt ? 80 : 35)) continue;
      names += ", " + Name(c);
      values += ", " + ValueOrNull(c);
    }
    return "INSERT INTO t (" + names + ") VALUES (" + values + ")" +
           Using(true, timestamp_ok);
  }

  std::string RandomUpdate(bool timestamp_ok) {
    std::string set;
    std::vector<int> cols = ShuffledValueColumns();
    const size_t n = static_cast<size_t>(1 + R(2));
    for (size_t i = 0; i < n; ++i) {
      int c = cols[i];
      std::string a;
      if (c == kS && P(60)) {
        a = std::string("s = s ") + (P(60) ? "+ " : "- ") + SetLit();
      } else {
        a = Name(c) + " = " + ValueOrNull(c);
      }
      set += (set.empty() ? "" : ", ") + a;
    }
    // Static columns alone are set with the partition key only.
    const bool only_static = n == 1 && cols[0] == kSt;
    return "UPDATE t" + Using(true, timestamp_ok) + " SET " + set + " WHERE " +
           (only_static ? PartitionWhere(true) : RowWhere(true));
  }

  std::string RandomDeleteCells(bool timestamp_ok) {
    std::vector<int> cols = ShuffledValueColumns();
    std::string names = Name(cols[0]);
    if (cols[0] == kSt) {  // static columns alone: the partition key only
      return "DELETE st FROM t" + Using(false, timestamp_ok) + " WHERE " +
             PartitionWhere(true);
    }
    if (P(30)) names += ", " + Name(cols[1]);
    return "DELETE " + names + " FROM t" + Using(false, timestamp_ok) +
           " WHERE " + RowWhere(true);
  }

  std::string RandomDeleteRange(bool timestamp_ok) {
    std::string where = PartitionWhere(true) + " AND ";
    auto bound = [&](int col, bool lower) {
      std::string op =
          lower ? (P(50) ? " > " : " >= ") : (P(50) ? " < " : " <= ");
      return Name(col) + op + Lit(col);
    };
    const std::string c1 = Eq(kC1, false) + " AND ";
    const std::string shapes[] = {
        Eq(kC1, false), c1 + bound(kC2, P(50)),
        c1 + bound(kC2, true) + " AND " + bound(kC2, false), bound(kC1, P(50)),
        bound(kC1, true) + " AND " + bound(kC1, false)};
    where += shapes[R(5)];
    return "DELETE FROM t" + Using(false, timestamp_ok) + " WHERE " + where;
  }

  // One write statement; `timestamp_ok` is false inside a batch with its
  // own timestamp.
  std::string RandomWrite(bool timestamp_ok) {
    int op = R(100);
    if (op < 38) return RandomInsert(timestamp_ok);
    if (op < 63) return RandomUpdate(timestamp_ok);
    if (op < 74) return RandomDeleteCells(timestamp_ok);
    if (op < 85) {
      return "DELETE FROM t" + Using(false, timestamp_ok) + " WHERE " +
             RowWhere(true);
    }
    if (op < 95) return RandomDeleteRange(timestamp_ok);
    return "DELETE FROM t" + Using(false, timestamp_ok) + " WHERE " +
           PartitionWhere(true);
  }

  std::string RandomBatch() {
    bool batch_timestamp = P(25);
    std::string cql = P(30) ? "BEGIN UNLOGGED BATCH" : "BEGIN BATCH";
    if (batch_timestamp) cql += Using(false, true);
    for (int i = 0, n = 2 + R(3); i < n; ++i) {
      cql += "\n" + RandomWrite(!batch_timestamp) + ";";
    }
    return cql + "\nAPPLY BATCH";
  }

  // Drops one index or view and makes it again (a backfill of what the
  // base holds now).
  void Recreate() {
    std::vector<IndexSpec*> indexes;
    std::vector<ViewSpec*> views;
    for (IndexSpec& i : indexes_) {
      if (i.exists) indexes.push_back(&i);
    }
    for (ViewSpec& v : views_) {
      if (v.exists) views.push_back(&v);
    }
    if (!indexes.empty() && P(50)) {
      IndexSpec* i = Pick(indexes);
      Exec("DROP INDEX " + i->name);
      if (!Fatal()) CreateIndex(i);
    } else if (!views.empty()) {
      ViewSpec* v = Pick(views);
      Exec("DROP MATERIALIZED VIEW " + v->name);
      if (!Fatal()) Exec(v->CreateCql());
    }
  }

  void RandomStep() {
    int op = R(1000);
    if (op < 700) {
      Exec(RandomWrite(true));
    } else if (op < 830) {
      Exec(RandomBatch());
    } else if (op < 960) {
      Advance(1 + R(4));
    } else if (op < 975) {
      Storage(ScriptRecord::Kind::kFlush, "flush");
    } else if (op < 982) {
      Storage(ScriptRecord::Kind::kCompact, "compact");
    } else if (op < 988) {
      // Write timestamps are strictly increasing within one process only;
      // a second passes so that those after the restart are later.
      Advance(1);
      if (!Fatal()) Storage(ScriptRecord::Kind::kRestart, "restart");
    } else if (op < 998) {
      Recreate();
    } else {
      Exec("TRUNCATE t");
    }
  }

  // --- schema --------------------------------------------------------------

  // The seed's low bits choose the table's shape, so that seeds 1 to 4
  // cover each with and without: a static column, ALTER TABLE ADD part
  // way, a default TTL.
  void MakeSchema(int ops) {
    const bool has_static = (seed_ & 1) != 0;
    base_columns_ = {kP1, kP2, kC1, kC2, kV1, kV2, kV3, kS};
    if (has_static) base_columns_.push_back(kSt);
    SetSelectAll();
    const std::string ttl =
        ((seed_ + 1) & 2) != 0
            ? " AND default_time_to_live = " + std::to_string(3 + R(8))
            : "";
    std::string order = std::string("c1 ") + (P(40) ? "DESC" : "ASC") +
                        ", c2 " + (P(40) ? "DESC" : "ASC");
    Exec(
        "CREATE KEYSPACE ks WITH replication = {'class': "
        "'SimpleStrategy', 'replication_factor': 1}");
    Exec("USE ks");
    Exec(
        "CREATE TABLE t (p1 int, p2 text, c1 int, c2 int, v1 int, v2 int, "
        "v3 text, s set<int>, " +
        std::string(has_static ? "st int static, " : "") +
        "PRIMARY KEY ((p1, p2), c1, c2)) WITH CLUSTERING ORDER BY (" + order +
        ")" + ttl);
    add_v4_at_ = (seed_ & 2) != 0 ? ops / 4 + R(std::max(1, ops / 2)) : -1;
    auto when = [&]() { return P(40) ? 0 : 1 + R(std::max(1, ops / 2)); };
    indexes_ = {{"i_v1", kV1, false, when()},
                {"i_ck", P(50) ? kC1 : kC2, false, when()},
                {"i_pk", P(50) ? kP1 : kP2, false, when()},
                {"i_local_v2", kV2, true, when()}};
    if (P(50)) indexes_.push_back({"i_v3", kV3, false, when()});
    if (P(50)) indexes_.push_back({"i_local_v1", kV1, true, when()});
    if (P(50)) indexes_.push_back({"i_s", kS, false, when()});
    if (has_static && P(70)) indexes_.push_back({"i_st", kSt, false, when()});
    if (add_v4_at_ >= 0 && P(50)) {
      indexes_.push_back({"i_v4", kV4, false, add_v4_at_ + R(20)});
    }
    domains_.clear();
    for (const ColumnInfo& c : kColumns)
      domains_.push_back(Split(c.domain, " "));
    for (const IndexSpec& i : indexes_) {
      if (kEmptyTextIndexed || i.local || !IsText(i.column)) continue;
      std::vector<std::string>& d = domains_[static_cast<size_t>(i.column)];
      d.erase(std::remove(d.begin(), d.end(), "''"), d.end());
    }
    auto view = [&](const char* name, std::vector<int> partition_key,
                    std::vector<std::pair<int, bool>> clustering,
                    std::vector<int> others, bool star) {
      views_.push_back({name, std::move(partition_key), std::move(clustering),
                        std::move(others), star, when()});
    };
    views_.clear();
    view("mv_v1", {kV1},
         {{kP1, false}, {kP2, P(30)}, {kC1, false}, {kC2, P(50)}},
         {kV2, kV3, kS}, !has_static);
    view("mv_c1", {kC1}, {{kP1, P(50)}, {kP2, false}, {kC2, P(50)}}, {kV2},
         false);
    // Only the base rows whose kP2 is one of two values (a key restriction
    // of the WHERE clause).
    views_.back().filter_column = kP2;
    for (int i = 0; i < 2; ++i) {
      views_.back().filter_literals.push_back(Lit(kP2));
      views_.back().filter_values.push_back(
          Formatted(views_.back().filter_literals.back()));
    }
    view("mv_v3", {kP2, kV3}, {{kC2, P(50)}, {kP1, false}, {kC1, P(50)}}, {kV1},
         false);
    // At least one of each is built by backfill from existing rows.
    Pick(std::vector<IndexSpec*>{&indexes_[0], &indexes_[1], &indexes_[2],
                                 &indexes_[3]})
        ->create_at = 1 + R(std::max(1, ops / 2));
    views_[static_cast<size_t>(R(3))].create_at = 1 + R(std::max(1, ops / 2));
    // A view of the base key reordered, with every column: kept by
    // copying base rows (view_rows.h), as a key change is.
    if (!has_static) {
      view("mv_all", {kP2, kC1}, {{kP1, P(50)}, {kC2, P(50)}},
           {kV1, kV2, kV3, kS}, true);
    }
  }

  void SetSelectAll() {
    select_all_.clear();
    for (int c : base_columns_) {
      select_all_ += (select_all_.empty() ? "" : ", ") + Name(c);
    }
  }

  // ALTER TABLE t ADD v4: a view with SELECT * gains it.
  void AddV4() {
    Exec("ALTER TABLE t ADD v4 int");
    if (Fatal()) return;
    base_columns_.push_back(kV4);
    SetSelectAll();
    for (ViewSpec& v : views_) {
      if (v.select_star) v.others.push_back(kV4);
    }
  }

  void CreateIndex(IndexSpec* i) {
    Exec(i->CreateCql());
    if (Fatal()) return;
    i->exists = true;
    // The index must be what answers, or the comparison proves nothing.
    std::string where = Restriction(i->column, Lit(i->column));
    if (i->local) where = "p1 = 0 AND p2 = 'a' AND " + where;
    Result<std::vector<std::string>> plan =
        node_->Query("EXPLAIN SELECT * FROM t WHERE " + where, -1);
    ASSERT_TRUE(plan.ok()) << Context() << plan.status().ToString();
    bool uses = false;
    std::string lines;
    for (const std::string& l : *plan) {
      uses = uses || (l.rfind("INDEX | ", 0) == 0 &&
                      l.find(" index " + i->name + " ") != std::string::npos);
      lines += "  " + l + "\n";
    }
    ASSERT_TRUE(uses) << Context() << "plan of " << where << ":\n" << lines;
  }

  void CreateDue() {
    for (IndexSpec& i : indexes_) {
      if (!i.exists && i.create_at <= step_ && Has(i.column)) CreateIndex(&i);
      if (Fatal()) return;
    }
    for (ViewSpec& v : views_) {
      if (v.exists || v.create_at > step_) continue;
      Exec(v.CreateCql());
      if (Fatal()) return;
      v.exists = true;
    }
  }

  // --- checks --------------------------------------------------------------

  void ReadBase() {
    Result<std::vector<std::string>> got =
        node_->Query("SELECT " + select_all_ + ", token(p1, p2) FROM t", -1);
    ASSERT_TRUE(got.ok()) << Context() << got.status().ToString();
    base_.clear();
    for (size_t i = 1; i < got->size(); ++i) {
      const std::string& text = (*got)[i];
      std::vector<std::string> values = Split(text, " | ");
      ASSERT_EQ(values.size(), base_columns_.size() + 1) << text;
      Line l;
      l.fields.assign(kColumnCount, "null");
      for (size_t c = 0; c < base_columns_.size(); ++c) {
        l.fields[static_cast<size_t>(base_columns_[c])] = values[c];
      }
      l.token = std::stoll(values.back());
      l.text = text.substr(0, text.rfind(" | "));
      base_.push_back(std::move(l));
    }
  }

  static std::string Show(const std::vector<std::string>& lines) {
    std::string s;
    for (const std::string& l : lines) s += "    " + l + "\n";
    return s.empty() ? "    (none)\n" : s;
  }

  enum class Order { kSame, kAny };

  // Runs `cql` unpaged or at a small page size and compares its rows with
  // `expected`.
  void Expect(const std::string& cql, std::vector<std::string> expected,
              Order order = Order::kSame) {
    ++checked_;
    non_empty_ += !expected.empty();
    const int page_size = P(60) ? -1 : 1 + R(3);
    Result<std::vector<std::string>> got = node_->Query(cql, page_size);
    ASSERT_TRUE(got.ok()) << Context() << cql << "\n  "
                          << got.status().ToString();
    std::vector<std::string> actual(got->begin() + 1, got->end());
    if (order == Order::kAny) {
      std::sort(actual.begin(), actual.end());
      std::sort(expected.begin(), expected.end());
    }
    ASSERT_EQ(actual, expected)
        << Context() << cql << " (page size " << page_size << ")\n"
        << "  expected:\n"
        << Show(expected) << "  actual:\n"
        << Show(actual);
  }

  // The base rows (in base order) that satisfy `keep`.
  template <typename F>
  std::vector<const Line*> BaseWhere(F keep) {
    std::vector<const Line*> out;
    for (const Line& l : base_) {
      if (keep(l)) out.push_back(&l);
    }
    return out;
  }
  static std::vector<std::string> Texts(const std::vector<const Line*>& rows) {
    std::vector<std::string> out;
    for (const Line* l : rows) out.push_back(l->text);
    return out;
  }
  static bool Is(const Line& l, int col, const std::string& literal) {
    return l.fields[static_cast<size_t>(col)] == Formatted(literal);
  }
  // What an index on `col` is asked, and which base rows match it.
  static std::string Restriction(int col, const std::string& literal) {
    return Name(col) + (col == kS ? " CONTAINS " : " = ") + literal;
  }
  static bool Matches(const Line& l, int col, const std::string& literal) {
    if (col != kS) return Is(l, col, literal);
    const std::string& set = l.fields[kS];  // "{1, 3}" or "null"
    if (set == "null") return false;
    const std::vector<std::string> elements =
        Split(set.substr(1, set.size() - 2), ", ");
    return std::find(elements.begin(), elements.end(), literal) !=
           elements.end();
  }

  // Whether the index on `col` is expected to name base row `l`.
  static bool Indexed(const Line& l, int col) {
    const bool static_row = l.fields[kC1] == "null";
    return kStaticRowsInPartitionKeyIndexes || !static_row ||
           (col != kP1 && col != kP2);
  }

  // `col = v` through the global index on col, and its variants.
  void CheckGlobalIndexValue(int col, const std::string& v) {
    const std::string select = "SELECT " + select_all_ + " FROM t WHERE ";
    const std::string eq = Restriction(col, v);
    const std::vector<const Line*> rows = BaseWhere(
        [&](const Line& l) { return Matches(l, col, v) && Indexed(l, col); });
    Expect(select + eq, Texts(rows));
    if (Fatal()) return;
    int variant = R(100);
    if (variant < 15) {  // LIMIT
      size_t n = static_cast<size_t>(1 + R(4));
      std::vector<std::string> expected = Texts(rows);
      if (expected.size() > n) expected.resize(n);
      Expect(select + eq + " LIMIT " + std::to_string(n), expected);
    } else if (variant < 25) {  // PER PARTITION LIMIT
      int n = 1 + R(2);
      std::vector<std::string> expected;
      int in_partition = 0;
      for (size_t i = 0; i < rows.size(); ++i) {
        bool same = i > 0 && rows[i - 1]->fields[kP1] == rows[i]->fields[kP1] &&
                    rows[i - 1]->fields[kP2] == rows[i]->fields[kP2];
        in_partition = same ? in_partition + 1 : 0;
        if (in_partition < n) expected.push_back(rows[i]->text);
      }
      Expect(select + eq + " PER PARTITION LIMIT " + std::to_string(n),
             expected);
    } else if (variant < 40) {  // a token range
      int64_t bound = base_.empty() ? 0 : Pick(base_).token;
      bool greater = P(50);
      std::vector<std::string> expected;
      for (const Line* l : rows) {
        if (greater ? l->token > bound : l->token <= bound) {
          expected.push_back(l->text);
        }
      }
      Expect(select + "token(p1, p2) " + (greater ? "> " : "<= ") +
                 std::to_string(bound) + " AND " + eq,
             expected);
    } else if (variant < 55) {  // columns other than the indexed one
      std::vector<std::string> expected;
      for (const Line* l : rows) {
        expected.push_back(l->fields[kC2] + " | " + l->fields[kV2]);
      }
      Expect("SELECT c2, v2 FROM t WHERE " + eq, expected);
    } else if (variant < 62) {
      Expect("SELECT count(*) FROM t WHERE " + eq,
             {std::to_string(rows.size())});
    }
  }

  void CheckGlobalIndex(const IndexSpec& i) {
    const int col = i.column;
    for (const std::string& v : Domain(col)) {
      CheckGlobalIndexValue(col, v);
      if (Fatal()) return;
    }
    // With the whole partition key (the index read within one partition).
    if (col != kP1 && col != kP2 && P(50)) {
      CheckInPartition(col, Lit(kP1), Lit(kP2));
      if (Fatal()) return;
    }
    const std::string select = "SELECT " + select_all_ + " FROM t WHERE ";
    // With another restriction, filtered on the rows the index names.
    if (P(40)) {
      std::vector<int> others = {kP1, kC1, kC2, kV1, kV2, kV3};
      if (Has(kSt)) others.push_back(kSt);
      if (Has(kV4)) others.push_back(kV4);
      int other = Pick(others);
      if (other == col) return;
      std::string v = Lit(col), w = Lit(other);
      bool greater = !IsText(other) && P(50);
      Expect(select + Restriction(col, v) + " AND " + Name(other) +
                 (greater ? " > " : " = ") + w + " ALLOW FILTERING",
             Texts(BaseWhere([&](const Line& l) {
               // Both partition key columns: a partition read, no index.
               const bool read = !greater && ((col == kP1 && other == kP2) ||
                                              (col == kP2 && other == kP1));
               if (!Matches(l, col, v) || !(read || Indexed(l, col))) {
                 return false;
               }
               if (!greater) return Is(l, other, w);
               const std::string& f = l.fields[static_cast<size_t>(other)];
               return f != "null" && ValueLess(other, Formatted(w), f);
             })));
    }
  }

  // `col = v` within partition (p1, p2): through a local index on col, or
  // a global one read within the partition.
  void CheckInPartition(int col, const std::string& p1, const std::string& p2) {
    const std::string v = Lit(col);
    Expect("SELECT " + select_all_ + " FROM t WHERE p1 = " + p1 +
               " AND p2 = " + p2 + " AND " + Restriction(col, v),
           Texts(BaseWhere([&](const Line& l) {
             return Is(l, kP1, p1) && Is(l, kP2, p2) && Matches(l, col, v);
           })));
  }

  void CheckLocalIndex(const IndexSpec& i) {
    for (const std::string& p1 : Domain(kP1)) {
      for (const std::string& p2 : Domain(kP2)) {
        if (P(50)) continue;  // half of the partitions each time
        CheckInPartition(i.column, p1, p2);
        if (Fatal()) return;
      }
    }
  }

  // Whether base row `l` has a view row: all view key columns set (a
  // static row alone has no clustering values, so it never has one).
  static bool InView(const ViewSpec& v, const Line& l) {
    std::vector<int> key = v.partition_key;
    for (const auto& [c, desc] : v.clustering) key.push_back(c);
    if (v.filter_column >= 0 &&
        std::find(v.filter_values.begin(), v.filter_values.end(),
                  l.fields[static_cast<size_t>(v.filter_column)]) ==
            v.filter_values.end()) {
      return false;
    }
    return std::none_of(key.begin(), key.end(), [&](int c) {
      return l.fields[static_cast<size_t>(c)] == "null";
    });
  }
  static std::string Project(const ViewSpec& v, const Line& l) {
    std::string s;
    const std::vector<int> cols = v.Columns();
    for (size_t i = 0; i < cols.size(); ++i) {
      s += (i == 0 ? "" : " | ") + l.fields[static_cast<size_t>(cols[i])];
    }
    return s;
  }

  void CheckView(const ViewSpec& v) {
    const std::string select = "SELECT " + v.SelectList() + " FROM " + v.name;
    std::vector<std::string> all;
    for (const Line& l : base_) {
      if (InView(v, l)) all.push_back(Project(v, l));
    }
    Expect(select, all, Order::kAny);
    if (Fatal()) return;
    // One view partition, in the view's clustering order.
    std::vector<std::string> key;
    std::string where;
    for (int c : v.partition_key) {
      key.push_back(Lit(c));
      where +=
          (where.empty() ? " WHERE " : " AND ") + Name(c) + " = " + key.back();
    }
    std::vector<const Line*> rows = BaseWhere([&](const Line& l) {
      bool match = InView(v, l);
      for (size_t k = 0; match && k < key.size(); ++k) {
        match = Is(l, v.partition_key[k], key[k]);
      }
      return match;
    });
    std::sort(rows.begin(), rows.end(), [&](const Line* a, const Line* b) {
      for (const auto& [c, desc] : v.clustering) {
        const std::string& x = a->fields[static_cast<size_t>(c)];
        const std::string& y = b->fields[static_cast<size_t>(c)];
        if (x != y) return ValueLess(c, x, y) != desc;
      }
      return false;
    });
    std::vector<std::string> expected;
    for (const Line* l : rows) expected.push_back(Project(v, *l));
    Expect(select + where, expected);
  }

  void CheckAll() {
    ReadBase();
    for (const IndexSpec& i : indexes_) {
      if (Fatal()) return;
      if (!i.exists) continue;
      if (i.local) {
        CheckLocalIndex(i);
      } else {
        CheckGlobalIndex(i);
      }
    }
    for (const ViewSpec& v : views_) {
      if (Fatal()) return;
      if (v.exists) CheckView(v);
    }
  }

  void Dump() {
    const char* path = std::getenv("KEYWISE_DUMP");
    if (path == nullptr) return;
    std::ofstream out(path);
    for (const std::string& s : log_) out << s << "\n\n";
  }

  void RunSeed(uint32_t seed, int ops) {
    seed_ = seed;
    rng_.seed(seed);
    node_ = std::make_unique<ScriptNode>();
    log_.clear();
    step_ = 0;
    MakeSchema(ops);
    for (step_ = 0; step_ < ops && !Fatal(); ++step_) {
      if (step_ == add_v4_at_) AddV4();
      if (!Fatal()) CreateDue();
      if (!Fatal()) CheckAll();
      if (!Fatal()) RandomStep();
    }
    if (!Fatal()) CheckAll();
    Dump();
  }
};

TEST_F(ViewsDifferential, RandomWritesKeepIndexesAndViewsInStep) {
  const char* seed_env = std::getenv("KEYWISE_SEED");
  const char* ops_env = std::getenv("KEYWISE_OPS");
  const int ops = ops_env ? std::atoi(ops_env) : 250;
  std::vector<uint32_t> seeds = {1, 2, 3, 4};
  if (seed_env != nullptr) {
    seeds = {static_cast<uint32_t>(std::strtoul(seed_env, nullptr, 10))};
  }
  for (uint32_t seed : seeds) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    RunSeed(seed, ops);
    if (HasFailure()) return;
  }
  // Most reads must expect rows, or the comparisons prove little.
  EXPECT_GT(non_empty_, checked_ / 3) << non_empty_ << " of " << checked_;
  RecordProperty("reads_compared", checked_);
  RecordProperty("reads_with_rows", non_empty_);
}

}  // namespace
}  // namespace keywise::query
