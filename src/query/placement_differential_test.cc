// Randomized differential test of range placement and salting: the same
// random rows in a hash-placed, a range-placed and a salted table, then
// random ranges of the partition key read from each (unpaged and paged),
// compared with a brute-force evaluation over an in-memory model. The
// range-placed and salted tables must return the rows in key order; the
// hash-placed one (ALLOW FILTERING) the same rows in token order.
//
// KEYWISE_SEED=n reproduces one seed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "query/cql_script_test_util.h"

namespace keywise::query {
namespace {

// The key values of one type, ascending, as CQL literals and as printed.
struct KeyDomain {
  std::string type;
  std::vector<std::string> literals;
  std::vector<std::string> printed;
};

KeyDomain Bigints(std::mt19937_64& rng) {
  std::vector<int64_t> v = {std::numeric_limits<int64_t>::min(),
                            std::numeric_limits<int64_t>::max(), -1, 0, 1};
  std::uniform_int_distribution<int64_t> any;
  std::uniform_int_distribution<int64_t> small(-50, 50);
  for (int i = 0; i < 30; ++i) v.push_back(i % 2 ? any(rng) : small(rng));
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  KeyDomain d{"bigint", {}, {}};
  for (int64_t x : v) {
    d.literals.push_back(std::to_string(x));
    d.printed.push_back(std::to_string(x));
  }
  return d;
}

// Texts over a two-letter alphabet, up to 11 letters: many share their
// first 8 bytes (one key position) or are prefixes of each other.
KeyDomain Texts(std::mt19937_64& rng) {
  std::vector<std::string> v;
  std::uniform_int_distribution<int> len(1, 11), letter(0, 1);
  for (int i = 0; i < 40; ++i) {
    std::string s(static_cast<size_t>(len(rng)), 'a');
    for (char& c : s) c = static_cast<char>('a' + letter(rng));
    v.push_back(s);
  }
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  KeyDomain d{"text", {}, {}};
  for (const std::string& s : v) {
    d.literals.push_back("'" + s + "'");
    d.printed.push_back(s);
  }
  return d;
}

class PlacementDifferential : public ::testing::TestWithParam<uint64_t> {};

TEST_P(PlacementDifferential, KeyRangesMatchTheModel) {
  uint64_t seed = GetParam();
  if (const char* s = std::getenv("KEYWISE_SEED")) seed = std::stoull(s);
  std::mt19937_64 rng(seed);
  const KeyDomain keys = seed % 2 == 0 ? Bigints(rng) : Texts(rng);
  const std::vector<std::string> tables = {
      "WITH placement = 'hash'", "WITH placement = 'range'",
      "WITH placement = 'range' AND salt_buckets = 8"};
  ScriptNode node;
  auto run = [&](const std::string& cql) {
    ScriptRecord statement;
    statement.kind = ScriptRecord::Kind::kStatementOk;
    statement.cql = cql;
    ASSERT_EQ(node.Run(statement), "") << cql;
  };
  run("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', "
      "'replication_factor': 1}");
  for (size_t t = 0; t < tables.size(); ++t) {
    run("CREATE TABLE ks.t" + std::to_string(t) + " (k " + keys.type +
        ", c int, v int, PRIMARY KEY (k, c)) " + tables[t]);
  }
  // The model: key index -> clustering -> value.
  std::map<size_t, std::map<int, int>> model;
  std::uniform_int_distribution<size_t> key(0, keys.literals.size() - 1);
  std::uniform_int_distribution<int> c(0, 3), op(0, 9);
  for (int i = 0; i < 120; ++i) {
    const size_t k = key(rng);
    const int cc = c(rng);
    std::string cql;
    if (op(rng) == 0) {
      model.erase(k);
      cql = "DELETE FROM ks.T WHERE k = " + keys.literals[k];
    } else {
      model[k][cc] = i;
      cql = "INSERT INTO ks.T (k, c, v) VALUES (" + keys.literals[k] + ", " +
            std::to_string(cc) + ", " + std::to_string(i) + ")";
    }
    for (size_t t = 0; t < tables.size(); ++t) {
      std::string q = cql;
      q.replace(q.find("ks.T"), 4, "ks.t" + std::to_string(t));
      run(q);
    }
  }
  for (int q = 0; q < 60; ++q) {
    std::string where;
    size_t lo = 0, hi = keys.literals.size() - 1;
    bool lo_incl = true, hi_incl = true;
    if (op(rng) < 8) {
      lo = key(rng);
      lo_incl = op(rng) < 5;
      where += std::string("k ") + (lo_incl ? ">= " : "> ") + keys.literals[lo];
    }
    if (op(rng) < 8) {
      hi = key(rng);
      hi_incl = op(rng) < 5;
      where += std::string(where.empty() ? "" : " AND ") + "k " +
               (hi_incl ? "<= " : "< ") + keys.literals[hi];
    }
    if (where.empty()) where = "k >= " + keys.literals[0];
    const int limit = op(rng) < 3 ? 1 + op(rng) : 0;
    std::vector<std::string> expected;
    for (const auto& [k, rows] : model) {
      if (k < lo || (k == lo && !lo_incl) || k > hi || (k == hi && !hi_incl)) {
        continue;
      }
      for (const auto& [cc, v] : rows) {
        expected.push_back(keys.printed[k] + " | " + std::to_string(cc) +
                           " | " + std::to_string(v));
      }
    }
    if (limit > 0 && expected.size() > static_cast<size_t>(limit)) {
      expected.resize(static_cast<size_t>(limit));
    }
    const std::string tail =
        (limit > 0 ? " LIMIT " + std::to_string(limit) : std::string());
    for (size_t t = 0; t < tables.size(); ++t) {
      const std::string cql = "SELECT k, c, v FROM ks.t" + std::to_string(t) +
                              " WHERE " + where + tail +
                              (t == 0 ? " ALLOW FILTERING" : "");
      for (int page : {0, 1, 3}) {
        Result<std::vector<std::string>> got = node.Query(cql, page);
        ASSERT_TRUE(got.ok()) << cql << ": " << got.status().message();
        std::vector<std::string> rows(got->begin() + 1, got->end());
        if (t == 0) {
          if (limit > 0) continue;  // token order: another first rows
          std::vector<std::string> want = expected;
          std::sort(rows.begin(), rows.end());
          std::sort(want.begin(), want.end());
          EXPECT_EQ(rows, want) << "seed " << seed << ": " << cql;
        } else {
          EXPECT_EQ(rows, expected)
              << "seed " << seed << ", page " << page << ": " << cql;
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, PlacementDifferential,
                         ::testing::Values(1, 2, 3, 4, 5, 6));

}  // namespace
}  // namespace keywise::query
