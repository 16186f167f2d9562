#include <gtest/gtest.h>

#include <random>
#include <string>

#include "common/utf8.h"
#include "cql/parser.h"
#include "cql/parser_test_util.h"

namespace keywise::cql {
namespace {

TEST(ParserErrors, CassandraStyleMessages) {
  // The snippet runs from 10 stream tokens before the offending one (spaces
  // count) to 2 after it; "..." marks where the query was cut.
  EXPECT_EQ(
      ParseError("SELECT * FRM t"),
      "line 1:9 mismatched input 'FRM' expecting K_FROM (SELECT * [FRM] t)");
  EXPECT_EQ(
      ParseError("SELECT * FRM"),
      "line 1:9 mismatched input 'FRM' expecting K_FROM (SELECT * [FRM]...)");
  EXPECT_EQ(ParseError("SELEC * FROM t"),
            "line 1:0 no viable alternative at input 'SELEC' ([SELEC] *...)");
  EXPECT_EQ(ParseError("SELECT a FROM t LIMIT 1 foo"),
            "line 1:24 missing EOF at 'foo' (...a FROM t LIMIT 1 [foo]...)");
  EXPECT_EQ(ParseError("SELECT a FROM t LIMIT x"),
            "line 1:22 no viable alternative at input 'x' (SELECT a FROM t "
            "LIMIT [x]...)");
  // At the end of input there is no snippet.
  EXPECT_EQ(ParseError("SELECT a FROM t WHERE"),
            "line 1:21 mismatched input '<EOF>' expecting IDENT");
  EXPECT_EQ(ParseError("INSERT INTO t (a) VALUES (1"),
            "line 1:27 mismatched input '<EOF>' expecting ')'");
  EXPECT_EQ(ParseError(""), "line 1:0 no viable alternative at input '<EOF>'");
}

TEST(ParserErrors, SnippetAcrossLines) {
  EXPECT_EQ(ParseError("SELECT a\nFROM t\nWHERE a = = 1"),
            "line 3:10 no viable alternative at input '=' "
            "(...FROM tWHERE a = [=] 1)");
}

TEST(ParserErrors, PositionsOnLaterLines) {
  std::string msg = ParseError("SELECT a\nFROM t\nWHERE a = = 1");
  EXPECT_EQ(msg.substr(0, 39), "line 3:10 no viable alternative at inpu");
  // Lexer errors carry positions too.
  EXPECT_EQ(ParseError("SELECT a FROM t\n  WHERE a = #"),
            "line 2:12 no viable alternative at character '#'");
}

TEST(ParserErrors, NonAsciiInSnippets) {
  // Columns count UTF-16 units; the snippet keeps whole characters.
  EXPECT_EQ(ParseError("SELECT '\xc3\xa9\xf0\x9f\x98\x80' FRM t"),
            "line 1:13 mismatched input 'FRM' expecting K_FROM "
            "(SELECT '\xc3\xa9\xf0\x9f\x98\x80' [FRM] t)");
  EXPECT_EQ(ParseError("SELECT \"\xc3\x97\" FROM t WHERE"),
            "line 1:23 mismatched input '<EOF>' expecting IDENT");
  EXPECT_EQ(ParseError("SELECT a\nFROM \"\xc3\xa9\" WHERE = 1"),
            "line 2:15 no viable alternative at input '=' "
            "(SELECT aFROM \"\xc3\xa9\" WHERE [=] 1)");
}

TEST(ParserErrors, ReservedWordsNeedQuotes) {
  EXPECT_NE(ParseError("CREATE TABLE select (a int PRIMARY KEY)"), "");
  ParseAs<CreateTableStatement>("CREATE TABLE \"select\" (a int PRIMARY KEY)");
  EXPECT_NE(ParseError("CREATE TABLE t (true int PRIMARY KEY)"), "");
  // Non-reserved keywords are fine as names.
  auto s = ParseAs<CreateTableStatement>(
      "CREATE TABLE key (ttl int PRIMARY KEY, writetime int, json text, "
      "static int, type text, list int, map int, frozen int, values int)");
  EXPECT_EQ(s.columns.size(), 9u);
}

TEST(ParserErrors, Rejections) {
  for (const char* bad : {
           "",
           "SELECT",
           "SELECT FROM t",
           "SELECT * FROM",
           "SELECT * FROM t WHERE a",
           "SELECT * FROM t WHERE a = b",
           "SELECT * FROM t LIMIT x",
           "SELECT * FROM t ORDER a",
           "INSERT INTO t VALUES (1)",
           "INSERT INTO t (a) VALUES ()",
           "UPDATE t SET a = 1",
           "UPDATE t SET a = a WHERE k = 1",
           "DELETE FROM t",
           "BEGIN BATCH SELECT * FROM t APPLY BATCH",
           "BEGIN BATCH",
           "CREATE TABLE t (a int PRIMARY KEY",
           "CREATE TABLE t ()",
           "CREATE KEYSPACE ks",
           "CREATE TABLE t (a list<int)",
           "ALTER TABLE t",
           "DROP t",
           "USE",
           "TRUNCATE",
           "SELECT * FROM t WHERE (a, b) IN (1, 2)",
           "CREATE TABLE t (a int) WITH CLUSTERING ORDER BY (a)",
       }) {
    auto r = ParseStatement(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), ErrorCode::kSyntaxError) << bad;
      EXPECT_EQ(r.status().message().rfind("line ", 0), 0u)
          << bad << ": " << r.status().message();
    }
  }
}

TEST(ParserErrors, DeepNestingFailsCleanly) {
  std::string deep = "INSERT INTO t (a) VALUES (" + std::string(5000, '[') +
                     std::string(5000, ']') + ")";
  EXPECT_FALSE(ParseStatement(deep).ok());
}

// Random bytes and random truncations / mutations of valid statements must
// yield a Status, never a crash.
TEST(ParserFuzz, NeverCrashes) {
  const std::vector<std::string> seeds = {
      "SELECT a, count(*), cast(b AS text) FROM ks.t WHERE token(a) > ? AND "
      "(c, d) IN ((1, 2), (3, 4)) ORDER BY c DESC LIMIT 10 ALLOW FILTERING",
      "INSERT INTO t (a, b, c) VALUES ('x''y', {'k': [1, 2]}, (int) 3) "
      "IF NOT EXISTS USING TTL 5",
      "UPDATE t SET m['a'] = 1, l = [1] + l, n = n -1 WHERE k = :k IF v = 2",
      "BEGIN UNLOGGED BATCH DELETE a[1] FROM t WHERE k = 1; APPLY BATCH",
      "CREATE TABLE IF NOT EXISTS t (a int, b frozen<map<text, int>> static, "
      "PRIMARY KEY ((a), b)) WITH CLUSTERING ORDER BY (b DESC) AND "
      "compaction = {'class': 'X'}",
      "CREATE KEYSPACE k WITH replication = {'class': 'SimpleStrategy', "
      "'replication_factor': 1} AND durable_writes = true",
      "ALTER TABLE t RENAME a TO b AND c TO d; /* c */ DROP TABLE t -- x",
  };
  std::mt19937 rng(12345);
  int parsed_ok = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string input;
    const std::string& seed = seeds[rng() % seeds.size()];
    switch (i % 3) {
      case 0: {  // truncation
        input = seed.substr(0, rng() % (seed.size() + 1));
        break;
      }
      case 1: {  // random bytes
        size_t n = rng() % 64;
        for (size_t j = 0; j < n; ++j)
          input.push_back(static_cast<char>(rng()));
        break;
      }
      default: {  // mutate a few bytes of a valid statement
        input = seed;
        for (int j = 0; j < 3; ++j) {
          input[rng() % input.size()] = "()[]{},;.:?'\"$-/*<>=x1 "[rng() % 24];
        }
        // and insert a non-ASCII character (×, €, 😀) every other time
        static const char* const kChars[] = {"\xc3\x97", "\xe2\x82\xac",
                                             "\xf0\x9f\x98\x80"};
        if (i % 2) input.insert(rng() % (input.size() + 1), kChars[rng() % 3]);
        break;
      }
    }
    auto one = ParseStatement(input);
    auto many = ParseStatements(input);
    if (one.ok()) ++parsed_ok;
    if (!one.ok()) {
      EXPECT_EQ(one.status().code(), ErrorCode::kSyntaxError);
      if (IsValidUtf8(input)) {
        EXPECT_TRUE(IsValidUtf8(one.status().message())) << input;
      }
    }
    if (!many.ok()) {
      EXPECT_EQ(many.status().code(), ErrorCode::kSyntaxError);
    }
  }
  EXPECT_GT(parsed_ok, 0);
}

}  // namespace
}  // namespace keywise::cql
