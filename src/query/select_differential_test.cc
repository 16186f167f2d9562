// Randomized differential test of SELECT: random tables and data written
// through CQL, then random SELECTs (key restrictions of every shape the
// primary-key model allows, ORDER BY, filtering, LIMIT, PER PARTITION
// LIMIT), each compared with a brute-force evaluation over an in-memory
// model of all rows, unpaged and paged.
//
// KEYWISE_SEED=n reproduces one seed; KEYWISE_OPS=n changes the number of
// writes per seed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "common/coding.h"
#include "query/cql_script_test_util.h"
#include "storage/partition_key.h"
#include "common/token.h"

namespace keywise::query {
namespace {

// A value of an int or text column.
struct Val {
  bool is_int = true;
  int32_t i = 0;
  std::string s;

  std::string Literal() const {
    return is_int ? std::to_string(i) : "'" + s + "'";
  }
  std::string Formatted() const { return is_int ? std::to_string(i) : s; }
  std::string Bytes() const {
    if (!is_int) return s;
    std::string b;
    PutFixed32BE(&b, static_cast<uint32_t>(i));
    return b;
  }
  // Type order (Int32Type / UTF8Type).
  int Compare(const Val& o) const {
    if (is_int) return i < o.i ? -1 : (i > o.i ? 1 : 0);
    return s < o.s ? -1 : (s > o.s ? 1 : 0);
  }
  bool operator==(const Val& o) const { return Compare(o) == 0; }
};

struct ModelColumn {
  std::string name;
  bool is_int = true;
  bool desc = false;  // clustering only
};

struct ModelRow {
  bool marker = false;
  std::optional<Val> v0;  // int
  std::optional<Val> v1;  // text
  bool Live() const { return marker || v0 || v1; }
};

using Key = std::vector<Val>;

struct KeyLess {
  const std::vector<ModelColumn>* cols;
  bool operator()(const Key& a, const Key& b) const {
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
      int c = a[i].Compare(b[i]);
      if ((*cols)[i].desc) c = -c;
      if (c != 0) return c < 0;
    }
    return a.size() < b.size();
  }
};

class Model {
 public:
  std::vector<ModelColumn> pk;
  std::vector<ModelColumn> ck;
  // partition key (as literal text joined) -> rows
  std::map<std::string, std::pair<Key, std::vector<std::pair<Key, ModelRow>>>>
      partitions;

  ModelRow* Find(const Key& p, const Key& c, bool create) {
    std::string id = Id(p);
    auto it = partitions.find(id);
    if (it == partitions.end()) {
      if (!create) return nullptr;
      it = partitions
               .emplace(id, std::make_pair(
                                p, std::vector<std::pair<Key, ModelRow>>{}))
               .first;
    }
    for (auto& [k, r] : it->second.second) {
      if (Equal(k, c)) return &r;
    }
    if (!create) return nullptr;
    it->second.second.emplace_back(c, ModelRow{});
    return &it->second.second.back().second;
  }
  static std::string Id(const Key& k) {
    std::string s;
    for (const Val& v : k) s += v.Literal() + ",";
    return s;
  }
  static bool Equal(const Key& a, const Key& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!(a[i] == b[i])) return false;
    }
    return true;
  }
  Token TokenOf(const Key& p) const {
    std::vector<std::string> parts;
    for (const Val& v : p) parts.push_back(v.Bytes());
    return TokenOfKey(parts.size() == 1 ? parts[0]
                                        : SerializePartitionKey(parts));
  }
};

// One generated clustering restriction.
struct CkRestriction {
  size_t eq_prefix = 0;  // columns 0..eq_prefix-1 by EQ/IN
  std::vector<std::vector<Val>>
      eq_values;  // per column: 1 value = EQ, more = IN
  // Slice on column eq_prefix (single column) or on columns 0..multi-1.
  bool has_slice = false;
  size_t multi = 0;  // > 0: multi-column slice on the first `multi` columns
  std::optional<std::pair<Key, bool>> lower;  // value(s), inclusive
  std::optional<std::pair<Key, bool>> upper;
};

class SelectDifferential : public ::testing::Test {
 protected:
  std::mt19937 rng_;
  Model model_;
  std::unique_ptr<ScriptNode> node_ = std::make_unique<ScriptNode>();

  int R(int n) { return static_cast<int>(rng_() % static_cast<unsigned>(n)); }
  bool P(int percent) { return R(100) < percent; }

  Val RandomVal(bool is_int, bool allow_empty = true) {
    Val v;
    v.is_int = is_int;
    if (is_int) {
      v.i = R(4) - 1;  // -1..2: negative values exercise sign handling
    } else {
      static const char* kTexts[] = {"a", "b", "bb", "c", ""};
      v.s = kTexts[R(allow_empty ? 5 : 4)];
    }
    return v;
  }
  Key RandomKey(const std::vector<ModelColumn>& cols, bool allow_empty) {
    Key k;
    for (const ModelColumn& c : cols)
      k.push_back(RandomVal(c.is_int, allow_empty));
    return k;
  }

  std::string Exec(const std::string& cql) {
    ScriptRecord r;
    r.kind = ScriptRecord::Kind::kStatementOk;
    r.cql = cql;
    return node_->Run(r);
  }

  void MakeSchema() {
    model_.pk.clear();
    model_.ck.clear();
    int npk = 1 + R(2);
    for (int i = 0; i < npk; ++i) {
      model_.pk.push_back({"p" + std::to_string(i), P(50), false});
    }
    int nck = R(4);
    for (int i = 0; i < nck; ++i) {
      model_.ck.push_back({"c" + std::to_string(i), P(50), P(40)});
    }
    std::string cols, key, order;
    for (const ModelColumn& c : model_.pk) {
      cols += c.name + (c.is_int ? " int, " : " text, ");
      key += (key.empty() ? "" : ", ") + c.name;
    }
    key = "(" + key + ")";
    for (const ModelColumn& c : model_.ck) {
      cols += c.name + (c.is_int ? " int, " : " text, ");
      key += ", " + c.name;
      order +=
          (order.empty() ? "" : ", ") + c.name + (c.desc ? " DESC" : " ASC");
    }
    std::string cql = "CREATE TABLE t (" + cols +
                      "v0 int, v1 text, PRIMARY KEY (" + key + "))";
    if (!order.empty()) cql += " WITH CLUSTERING ORDER BY (" + order + ")";
    ASSERT_EQ(Exec(cql), "") << cql;
  }

  std::string Where(const Key& p, const Key& c) {
    std::string w;
    for (size_t i = 0; i < p.size(); ++i) {
      w += (w.empty() ? "" : " AND ") + model_.pk[i].name + " = " +
           p[i].Literal();
    }
    for (size_t i = 0; i < c.size(); ++i) {
      w += " AND " + model_.ck[i].name + " = " + c[i].Literal();
    }
    return w;
  }

  void RandomWrite() {
    Key p = RandomKey(model_.pk, false);
    Key c = RandomKey(model_.ck, true);
    int op = R(100);
    if (op < 55) {
      std::optional<Val> v0, v1;
      if (P(80)) v0 = RandomVal(true);
      if (P(80)) v1 = RandomVal(false);
      std::string names, values;
      for (size_t i = 0; i < p.size(); ++i) {
        names += model_.pk[i].name + ", ";
        values += p[i].Literal() + ", ";
      }
      for (size_t i = 0; i < c.size(); ++i) {
        names += model_.ck[i].name + ", ";
        values += c[i].Literal() + ", ";
      }
      names += "v0, v1";
      values +=
          (v0 ? v0->Literal() : "null") + ", " + (v1 ? v1->Literal() : "null");
      ASSERT_EQ(Exec("INSERT INTO t (" + names + ") VALUES (" + values + ")"),
                "");
      ModelRow* row = model_.Find(p, c, true);
      row->marker = true;
      row->v0 = v0;
      row->v1 = v1;
    } else if (op < 70) {
      std::optional<Val> v0;
      if (P(80)) v0 = RandomVal(true);
      ASSERT_EQ(Exec("UPDATE t SET v0 = " + (v0 ? v0->Literal() : "null") +
                     " WHERE " + Where(p, c)),
                "");
      model_.Find(p, c, true)->v0 = v0;
    } else if (op < 82) {
      ASSERT_EQ(Exec("DELETE FROM t WHERE " + Where(p, c)), "");
      if (ModelRow* row = model_.Find(p, c, false)) *row = ModelRow{};
    } else if (op < 88) {
      ASSERT_EQ(Exec("DELETE v1 FROM t WHERE " + Where(p, c)), "");
      if (ModelRow* row = model_.Find(p, c, false)) row->v1.reset();
    } else if (op < 96 && !model_.ck.empty()) {
      // Clustering prefix deletion.
      size_t len = static_cast<size_t>(R(static_cast<int>(model_.ck.size())));
      Key prefix(c.begin(), c.begin() + static_cast<long>(len));
      ASSERT_EQ(Exec("DELETE FROM t WHERE " + Where(p, prefix)), "");
      auto it = model_.partitions.find(Model::Id(p));
      if (it != model_.partitions.end()) {
        for (auto& [k, r] : it->second.second) {
          if (Model::Equal(Key(k.begin(), k.begin() + static_cast<long>(len)),
                           prefix)) {
            r = ModelRow{};
          }
        }
      }
    } else {
      ASSERT_EQ(Exec("DELETE FROM t WHERE " + Where(p, {})), "");
      auto it = model_.partitions.find(Model::Id(p));
      if (it != model_.partitions.end()) {
        for (auto& [k, r] : it->second.second) r = ModelRow{};
      }
    }
  }

  // --- query generation and brute-force evaluation -----------------------

  struct Query {
    std::string cql;
    std::vector<std::string> expected;
  };

  static bool InRange(const Key& row, const CkRestriction& r, size_t col,
                      const std::optional<std::pair<Key, bool>>& bound,
                      bool lower) {
    if (!bound) return true;
    // Lexicographic on type order over bound.first.size() columns from col.
    int cmp = 0;
    for (size_t i = 0; i < bound->first.size(); ++i) {
      cmp = row[col + i].Compare(bound->first[i]);
      if (cmp != 0) break;
    }
    (void)r;
    if (cmp == 0) return bound->second;
    return lower ? cmp > 0 : cmp < 0;
  }

  bool CkMatches(const Key& row, const CkRestriction& r) {
    for (size_t i = 0; i < r.eq_prefix; ++i) {
      bool any = false;
      for (const Val& v : r.eq_values[i]) any = any || row[i] == v;
      if (!any) return false;
    }
    if (!r.has_slice) return true;
    size_t col = r.multi > 0 ? 0 : r.eq_prefix;
    return InRange(row, r, col, r.lower, true) &&
           InRange(row, r, col, r.upper, false);
  }

  Query RandomQuery() {
    Query q;
    std::vector<std::string> where;
    bool allow_filtering = false;
    // Partition key.
    bool pk_restricted = P(75);
    std::vector<std::vector<Val>> pk_values(model_.pk.size());
    bool pk_in = false;
    if (pk_restricted) {
      for (size_t i = 0; i < model_.pk.size(); ++i) {
        int n = (i + 1 == model_.pk.size() && P(30)) ? 1 + R(3) : 1;
        for (int j = 0; j < n; ++j)
          pk_values[i].push_back(RandomVal(model_.pk[i].is_int, false));
        if (n == 1) {
          where.push_back(model_.pk[i].name + " = " +
                          pk_values[i][0].Literal());
        } else {
          pk_in = true;
          std::string list;
          for (const Val& v : pk_values[i])
            list += (list.empty() ? "" : ", ") + v.Literal();
          where.push_back(model_.pk[i].name + " IN (" + list + ")");
        }
      }
    }
    // Clustering.
    CkRestriction ck;
    if (!model_.ck.empty() && P(70)) {
      bool multi =
          P(20) && std::none_of(model_.ck.begin(), model_.ck.end(),
                                [](const ModelColumn& c) { return c.desc; });
      if (multi) {
        ck.multi =
            1 + static_cast<size_t>(R(static_cast<int>(model_.ck.size())));
        ck.has_slice = true;
        std::string names;
        for (size_t i = 0; i < ck.multi; ++i)
          names += (i ? ", " : "") + model_.ck[i].name;
        auto bound = [&](bool lower) {
          Key k;
          std::string lit;
          for (size_t i = 0; i < ck.multi; ++i) {
            k.push_back(RandomVal(model_.ck[i].is_int));
            lit += (i ? ", " : "") + k.back().Literal();
          }
          bool inclusive = P(50);
          where.push_back(
              "(" + names + ") " +
              (lower ? (inclusive ? ">=" : ">") : (inclusive ? "<=" : "<")) +
              " (" + lit + ")");
          return std::make_pair(k, inclusive);
        };
        if (P(70)) ck.lower = bound(true);
        if (P(70) || !ck.lower) ck.upper = bound(false);
      } else {
        ck.eq_prefix =
            static_cast<size_t>(R(static_cast<int>(model_.ck.size()) + 1));
        bool used_in = false;
        for (size_t i = 0; i < ck.eq_prefix; ++i) {
          int n = (!used_in && P(25)) ? 2 + R(2) : 1;
          std::vector<Val> vals;
          for (int j = 0; j < n; ++j)
            vals.push_back(RandomVal(model_.ck[i].is_int));
          if (n == 1) {
            where.push_back(model_.ck[i].name + " = " + vals[0].Literal());
          } else {
            used_in = true;
            std::string list;
            for (const Val& v : vals)
              list += (list.empty() ? "" : ", ") + v.Literal();
            where.push_back(model_.ck[i].name + " IN (" + list + ")");
          }
          ck.eq_values.push_back(vals);
        }
        if (ck.eq_prefix < model_.ck.size() && P(60)) {
          const ModelColumn& col = model_.ck[ck.eq_prefix];
          ck.has_slice = true;
          if (P(70)) {
            bool inc = P(50);
            Val v = RandomVal(col.is_int);
            where.push_back(col.name + (inc ? " >= " : " > ") + v.Literal());
            ck.lower = std::make_pair(Key{v}, inc);
          }
          if (P(60) || !ck.lower) {
            bool inc = P(50);
            Val v = RandomVal(col.is_int);
            where.push_back(col.name + (inc ? " <= " : " < ") + v.Literal());
            ck.upper = std::make_pair(Key{v}, inc);
          }
        }
      }
      if (!pk_restricted) allow_filtering = true;
    }
    // Regular-column filter.
    std::optional<std::pair<int, Val>> filter;  // op: 0 '=', 1 '>', 2 '<='
    if (P(20)) {
      filter = std::make_pair(R(3), RandomVal(true));
      static const char* kOps[] = {" = ", " > ", " <= "};
      where.push_back(std::string("v0") + kOps[filter->first] +
                      filter->second.Literal());
      allow_filtering = true;
    }
    // ORDER BY: single partition only (IN + ORDER BY cannot be paged).
    bool reversed = false;
    std::string order_by;
    if (pk_restricted && !pk_in && !model_.ck.empty() && P(35)) {
      reversed = P(60);
      size_t m = 1 + static_cast<size_t>(R(static_cast<int>(model_.ck.size())));
      for (size_t i = 0; i < m; ++i) {
        bool desc = model_.ck[i].desc != reversed;
        order_by +=
            (i ? ", " : "") + model_.ck[i].name + (desc ? " DESC" : " ASC");
      }
    }
    std::optional<int> per_partition_limit, limit;
    if (P(15)) per_partition_limit = 1 + R(3);
    if (P(35)) limit = 1 + R(6);

    std::string select = "SELECT ";
    std::vector<std::string> names;
    for (const ModelColumn& c : model_.pk) names.push_back(c.name);
    for (const ModelColumn& c : model_.ck) names.push_back(c.name);
    names.push_back("v0");
    names.push_back("v1");
    for (size_t i = 0; i < names.size(); ++i)
      select += (i ? ", " : "") + names[i];
    q.cql = select + " FROM t";
    for (size_t i = 0; i < where.size(); ++i)
      q.cql += (i ? " AND " : " WHERE ") + where[i];
    if (!order_by.empty()) q.cql += " ORDER BY " + order_by;
    if (per_partition_limit)
      q.cql += " PER PARTITION LIMIT " + std::to_string(*per_partition_limit);
    if (limit) q.cql += " LIMIT " + std::to_string(*limit);
    if (allow_filtering) q.cql += " ALLOW FILTERING";

    // Brute force. Partitions: IN values in key order, deduplicated
    // (Cassandra builds the key set sorted), scans in token order.
    std::vector<Key> partitions;
    if (pk_restricted) {
      std::vector<Key> keys{{}};
      for (size_t i = 0; i < model_.pk.size(); ++i) {
        std::vector<Key> next;
        for (const Key& k : keys) {
          for (const Val& v : pk_values[i]) {
            Key n = k;
            n.push_back(v);
            next.push_back(n);
          }
        }
        keys = next;
      }
      KeyLess less{&model_.pk};
      std::sort(keys.begin(), keys.end(), less);
      keys.erase(std::unique(keys.begin(), keys.end(), Model::Equal),
                 keys.end());
      partitions = keys;
    } else {
      for (const auto& [id, part] : model_.partitions)
        partitions.push_back(part.first);
      std::sort(partitions.begin(), partitions.end(),
                [&](const Key& a, const Key& b) {
                  Token ta = model_.TokenOf(a), tb = model_.TokenOf(b);
                  if (ta.value != tb.value) return ta.value < tb.value;
                  // Same token: by serialized key bytes.
                  std::string sa, sb;
                  for (const Val& v : a) sa += v.Bytes();
                  for (const Val& v : b) sb += v.Bytes();
                  return sa < sb;
                });
    }
    int total = 0;
    for (const Key& p : partitions) {
      auto it = model_.partitions.find(Model::Id(p));
      if (it == model_.partitions.end()) continue;
      std::vector<std::pair<Key, ModelRow>> rows;
      for (const auto& [k, r] : it->second.second) {
        if (r.Live() && CkMatches(k, ck)) rows.emplace_back(k, r);
      }
      KeyLess less{&model_.ck};
      std::sort(rows.begin(), rows.end(), [&](const auto& a, const auto& b) {
        return less(a.first, b.first);
      });
      if (reversed) std::reverse(rows.begin(), rows.end());
      int in_partition = 0;
      for (const auto& [k, r] : rows) {
        if (filter) {
          if (!r.v0) continue;
          int c = r.v0->Compare(filter->second);
          bool ok = filter->first == 0 ? c == 0
                                       : (filter->first == 1 ? c > 0 : c <= 0);
          if (!ok) continue;
        }
        if (per_partition_limit && in_partition >= *per_partition_limit) break;
        if (limit && total >= *limit) break;
        std::string line;
        for (const Val& v : p)
          line += (line.empty() ? "" : " | ") + v.Formatted();
        for (const Val& v : k) line += " | " + v.Formatted();
        line += " | " + (r.v0 ? r.v0->Formatted() : "null");
        line += " | " + (r.v1 ? r.v1->Formatted() : "null");
        q.expected.push_back(line);
        ++in_partition;
        ++total;
      }
    }
    return q;
  }

  void RunSeed(uint32_t seed, int ops, int queries) {
    rng_.seed(seed);
    ASSERT_EQ(Exec("CREATE KEYSPACE ks WITH replication = {'class': "
                   "'SimpleStrategy', 'replication_factor': 1}"),
              "");
    ASSERT_EQ(Exec("USE ks"), "");
    MakeSchema();
    for (int i = 0; i < ops; ++i) {
      RandomWrite();
      if (::testing::Test::HasFatalFailure()) return;
      if (i == ops / 2) {
        ASSERT_TRUE(node_->engine().Flush().ok());
      }
    }
    int failures = 0;
    int non_empty = 0;
    for (int i = 0; i < queries && failures < 5; ++i) {
      Query q = RandomQuery();
      non_empty += !q.expected.empty();
      for (int page_size : {-1, 1 + R(4)}) {
        Result<std::vector<std::string>> got = node_->Query(q.cql, page_size);
        if (!got.ok()) {
          ADD_FAILURE() << "seed " << seed << ": " << q.cql << "\n  "
                        << got.status().ToString();
          ++failures;
          break;
        }
        std::vector<std::string> rows(got->begin() + 1, got->end());
        if (rows != q.expected) {
          std::string e, a;
          for (const auto& l : q.expected) e += "    " + l + "\n";
          for (const auto& l : rows) a += "    " + l + "\n";
          ADD_FAILURE() << "seed " << seed << " page size " << page_size << ": "
                        << q.cql << "\n  expected:\n"
                        << e << "  actual:\n"
                        << a;
          ++failures;
          break;
        }
      }
    }
    // The generator must produce queries that find rows, or the comparison
    // proves little.
    EXPECT_GT(non_empty, queries / 4) << "seed " << seed;
  }
};

TEST_F(SelectDifferential, RandomSchemasAndQueries) {
  const char* seed_env = std::getenv("KEYWISE_SEED");
  const char* ops_env = std::getenv("KEYWISE_OPS");
  int ops = ops_env ? std::atoi(ops_env) : 300;
  if (seed_env != nullptr) {
    RunSeed(static_cast<uint32_t>(std::atoi(seed_env)), ops, 400);
    return;
  }
  // Each seed in a fresh keyspace of the same node.
  for (uint32_t seed : {1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    model_ = Model{};
    node_ = std::make_unique<ScriptNode>();
    RunSeed(seed, ops, 250);
    if (HasFailure()) return;
  }
}

}  // namespace
}  // namespace keywise::query
