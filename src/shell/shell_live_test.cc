// `keywise shell` end to end: starts `keywise server` on a free port with a
// temporary data directory and runs the shell binary through -e/-f.
// Fails when the keywise binary is missing or the server does not answer.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "testing/live_node.h"

namespace keywise::shell {
namespace {

using ShellRun = testing::CommandRun;
using testing::ShellQuote;

ShellRun Shell(const std::string& args) {
  return testing::RunCommand(std::string(KEYWISE_BINARY) + " shell " + args +
                             " 2>&1");
}

// A live node and the shell's -e and -f against it.
class Node : public testing::LiveNode {
 public:
  Node() : LiveNode(KEYWISE_BINARY) {}
  ShellRun Exec(const std::string& cql) {
    return Shell("127.0.0.1 " + std::to_string(port()) + " -e " +
                 ShellQuote(cql));
  }
  ShellRun File(const std::string& path) {
    return Shell("127.0.0.1 " + std::to_string(port()) + " -f " +
                 ShellQuote(path));
  }
};

#define REQUIRE_NODE(node)                                                   \
  if (!std::filesystem::exists(KEYWISE_BINARY)) FAIL() << "no binary at " KEYWISE_BINARY; \
  Node node;                                                                 \
  if (!node.ready()) FAIL() << "the server does not answer queries"

TEST(ShellLive, FormattingErrorsAndPaging) {
  REQUIRE_NODE(node);
  ShellRun r = node.Exec(
      "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', "
      "'replication_factor': 1};"
      "CREATE TABLE ks.t (k int PRIMARY KEY, v text, s set<int>);"
      "INSERT INTO ks.t (k, v, s) VALUES (1, 'one', {1, 2});"
      "INSERT INTO ks.t (k, v) VALUES (22, 'twenty-two');");
  ASSERT_EQ(r.status, 0) << r.out;
  r = node.Exec("SELECT * FROM ks.t WHERE k = 1; SELECT k, v FROM ks.t WHERE k = 22;");
  EXPECT_EQ(r.out,
            "\n k | s      | v\n---+--------+-----\n 1 | {1, 2} | one\n\n(1 rows)\n"
            "\n k  | v\n----+------------\n 22 | twenty-two\n\n(1 rows)\n");
  r = node.Exec("SELECT * FROM ks.nope;");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out.rfind("<stdin>:1:InvalidRequest: Error from server: code=2200 [Invalid query] message=\"", 0), 0u)
      << r.out;
  r = node.Exec("SELEC x;");
  EXPECT_EQ(r.out.rfind("<stdin>:1:SyntaxException: ", 0), 0u) << r.out;
  r = node.Exec("EXPAND ON; SELECT k, v FROM ks.t WHERE k = 1;");
  EXPECT_EQ(r.out,
            "Now Expanded output is enabled\n\n@ Row 1\n---+-----\n k | 1\n v | one\n\n\n(1 rows)\n");
}

TEST(ShellLive, DescribeRoundTripAndCopy) {
  REQUIRE_NODE(node);
  ShellRun r = node.Exec(
      "CREATE KEYSPACE shop WITH replication = {'class': 'SimpleStrategy', "
      "'replication_factor': 1};"
      "CREATE TABLE shop.orders (customer text, day date, id timeuuid, total decimal, "
      "items map<text, int>, note text static, PRIMARY KEY ((customer, day), id)) "
      "WITH CLUSTERING ORDER BY (id DESC) AND comment = 'it''s';"
      "CREATE TABLE shop.kv (k bigint PRIMARY KEY, v text);"
      "CREATE TABLE shop.ticks (ts timestamp PRIMARY KEY, v int) "
      "WITH placement = 'range' AND salt_buckets = 4;"
      // `address` uses `zone`: DESCRIBE must create zone first.
      "CREATE TYPE shop.zone (name text);"
      "CREATE TYPE shop.address (street text, z frozen<zone>);"
      "CREATE TABLE shop.customers (id int PRIMARY KEY, home address, "
      "past list<frozen<address>>);");
  ASSERT_EQ(r.status, 0) << r.out;
  r = node.Exec("DESCRIBE TYPE shop.address");
  EXPECT_EQ(r.out,
            "\nCREATE TYPE shop.address (\n    street text,\n    z frozen<zone>\n);\n\n")
      << r.out;
  r = node.Exec("USE shop; DESCRIBE TYPES");
  EXPECT_EQ(r.out, "\nzone address\n\n") << r.out;
  ShellRun schema = node.Exec("DESCRIBE SCHEMA");
  ASSERT_EQ(schema.status, 0) << schema.out;
  EXPECT_NE(schema.out.find("CREATE TABLE shop.orders ("), std::string::npos) << schema.out;
  // Keywise's placement options come back as table options.
  EXPECT_NE(schema.out.find("    AND placement = 'range'\n    AND salt_buckets = 4;"),
            std::string::npos)
      << schema.out;

  testing::TempDir tmp;
  const std::string file = tmp.str() + "/schema.cql";
  std::ofstream(file) << schema.out;
  Node fresh;
  ASSERT_TRUE(fresh.ready());
  r = fresh.File(file);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(fresh.Exec("DESCRIBE SCHEMA").out, schema.out);

  // COPY round trip of 100,000 rows.
  const std::string csv = tmp.str() + "/kv.csv";
  {
    std::ofstream out(csv);
    out << "k,v\n";
    for (int i = 0; i < 100000; ++i) out << i << ",\"value \"\"" << i << "\"\", ok\"\n";
  }
  r = node.Exec("COPY shop.kv (k, v) FROM '" + csv + "' WITH HEADER = true");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("100000 rows imported from 1 files"), std::string::npos) << r.out;
  const std::string back = tmp.str() + "/back.csv";
  r = node.Exec("COPY shop.kv (k, v) TO '" + back + "' WITH HEADER = true");
  EXPECT_NE(r.out.find("100000 rows exported to 1 files"), std::string::npos) << r.out;
  std::ifstream in(back);
  std::string line;
  int rows = 0;
  std::getline(in, line);
  EXPECT_EQ(line, "k,v");
  while (std::getline(in, line)) {
    ++rows;
    if (line.rfind("7,", 0) == 0) {
      EXPECT_EQ(line, "7,\"value \"\"7\"\", ok\"");
    }
  }
  EXPECT_EQ(rows, 100000);
}

}  // namespace
}  // namespace keywise::shell
