// The schema model of views_differential_test.cc: the base table's
// columns and value domains, result lines, and the indexes and views a
// seed creates (their CQL).
//
// Contract: test-only, header-only; pure values and functions.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace keywise::query::views_differential {

// The base table's columns, in the order every query selects them.
// `st` (static) exists in half of the seeds only (a view with SELECT *
// cannot have one); `v4` is added by ALTER TABLE part way in half of them.
enum Col { kP1, kP2, kC1, kC2, kV1, kV2, kV3, kS, kSt, kV4, kColumnCount };
struct ColumnInfo {
  const char* name;
  bool text;
  // Literals, space-separated (of s: its elements): small domains, so that
  // writes collide and values are reused. Empty text is a value (not
  // null), kept out only where an index would make it a whole partition
  // key (MakeSchema).
  const char* domain;
};
constexpr ColumnInfo kColumns[kColumnCount] = {
    {"p1", false, "0 1 2"},     {"p2", true, "'a' 'b' ''"},
    {"c1", false, "0 1 2"},     {"c2", false, "-1 0 1 2"},
    {"v1", false, "-1 0 1 2"},  {"v2", false, "0 1 2"},
    {"v3", true, "'x' 'y' ''"}, {"s", false, "1 2 3"},
    {"st", false, "0 1"},       {"v4", false, "0 1"}};

inline std::string Name(int col) {
  return kColumns[col].name;
}
inline bool IsText(int col) {
  return kColumns[col].text;
}

// How a literal of the domain is printed in a result.
inline std::string Formatted(const std::string& literal) {
  if (!literal.empty() && literal[0] == '\'') {
    return literal.substr(1, literal.size() - 2);
  }
  return literal;
}

// One row of the base table: the result line and its values (per Col;
// "null" for the columns the table does not have), and its token.
struct Line {
  std::string text;
  std::vector<std::string> fields;
  int64_t token = 0;
};

inline std::vector<std::string> Split(const std::string& line,
                                      const std::string& separator) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t at; (at = line.find(separator, start)) != std::string::npos;
       start = at + separator.size()) {
    out.push_back(line.substr(start, at - start));
  }
  out.push_back(line.substr(start));
  return out;
}

// Type order of two formatted values of base column `col`.
inline bool ValueLess(int col, const std::string& a, const std::string& b) {
  if (IsText(col)) return a < b;
  return std::stoll(a) < std::stoll(b);
}

struct IndexSpec {
  std::string name;
  int column = kV1;
  bool local = false;
  int create_at = 0;  // the step before which it is created
  bool exists = false;

  std::string CreateCql() const {
    std::string target =
        column == kS ? "(values(s))" : "(" + Name(column) + ")";
    if (local) target = "((p1, p2), " + Name(column) + ")";
    return "CREATE INDEX " + name + " ON t " + target;
  }
};

struct ViewSpec {
  std::string name;
  std::vector<int> partition_key;
  std::vector<std::pair<int, bool>> clustering;  // column, DESC
  std::vector<int> others;                       // selected, not in the key
  bool select_star = false;  // SELECT * (only without a static column)
  int create_at = 0;
  bool exists = false;
  // A WHERE restriction `filter_column IN (filter_literals)` instead of
  // its IS NOT NULL (-1: none); the base rows in the view have one of
  // `filter_values` (as rows print) there.
  int filter_column = -1;
  std::vector<std::string> filter_literals;
  std::vector<std::string> filter_values;

  std::vector<int> Columns() const {
    std::vector<int> cols = partition_key;
    for (const auto& [c, desc] : clustering) cols.push_back(c);
    cols.insert(cols.end(), others.begin(), others.end());
    return cols;
  }
  std::string SelectList() const {
    std::string s;
    for (int c : Columns()) s += (s.empty() ? "" : ", ") + Name(c);
    return s;
  }
  std::string CreateCql() const {
    std::string where, pk, ck, order;
    auto restrict = [&](int c) {
      if (c != filter_column) return Name(c) + " IS NOT NULL";
      std::string list;
      for (const std::string& l : filter_literals) {
        list += (list.empty() ? "" : ", ") + l;
      }
      return Name(c) + " IN (" + list + ")";
    };
    for (int c : partition_key) {
      where += (where.empty() ? "" : " AND ") + restrict(c);
      pk += (pk.empty() ? "" : ", ") + Name(c);
    }
    for (const auto& [c, desc] : clustering) {
      where += " AND " + restrict(c);
      ck += ", " + Name(c);
      order +=
          (order.empty() ? "" : ", ") + Name(c) + (desc ? " DESC" : " ASC");
    }
    return "CREATE MATERIALIZED VIEW " + name + " AS SELECT " +
           (select_star ? std::string("*") : SelectList()) + " FROM t WHERE " +
           where + " PRIMARY KEY ((" + pk + ")" + ck +
           ") WITH CLUSTERING ORDER BY (" + order + ")";
  }
};

}  // namespace keywise::query::views_differential
