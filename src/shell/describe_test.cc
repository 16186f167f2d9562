#include "shell/describe.h"

#include <gtest/gtest.h>

#include <sstream>

#include "shell/copy_command.h"
#include "shell/shell.h"

namespace keywise::shell {
namespace {

TEST(Describe, QuoteName) {
  EXPECT_EQ(QuoteName("users"), "users");
  EXPECT_EQ(QuoteName("Users"), "\"Users\"");
  EXPECT_EQ(QuoteName("select"), "\"select\"");
  EXPECT_EQ(QuoteName("a\"b"), "\"a\"\"b\"");
  EXPECT_EQ(QuoteString("it's"), "'it''s'");
}

TEST(Describe, CreateTableCompoundKey) {
  TableInfo t;
  t.keyspace = "ks";
  t.name = "events";
  t.columns = {{"day", "date", "partition_key", "none", 1},
               {"src", "text", "partition_key", "none", 0},
               {"ts", "timestamp", "clustering", "desc", 0},
               {"payload", "blob", "regular", "none", -1},
               {"owner", "text", "static", "none", -1}};
  t.options = {{"comment", "''"}, {"gc_grace_seconds", "864000"}};
  EXPECT_EQ(CreateTableCql(t),
            "CREATE TABLE ks.events (\n"
            "    src text,\n"
            "    day date,\n"
            "    ts timestamp,\n"
            "    owner text static,\n"
            "    payload blob,\n"
            "    PRIMARY KEY ((src, day), ts)\n"
            ") WITH CLUSTERING ORDER BY (ts DESC)\n"
            "    AND comment = ''\n"
            "    AND gc_grace_seconds = 864000;\n");
}

TEST(Describe, CreateTableSingleKeyAndKeyspace) {
  TableInfo t;
  t.keyspace = "ks";
  t.name = "kv";
  t.columns = {{"v", "int", "regular", "none", -1}, {"k", "text", "partition_key", "none", 0}};
  EXPECT_EQ(CreateTableCql(t),
            "CREATE TABLE ks.kv (\n"
            "    k text PRIMARY KEY,\n"
            "    v int\n"
            ");\n");
  EXPECT_EQ(CreateKeyspaceCql("ks", {{"class", "org.apache.cassandra.locator.SimpleStrategy"},
                                     {"replication_factor", "1"}},
                              true),
            "CREATE KEYSPACE ks WITH replication = {'class': "
            "'org.apache.cassandra.locator.SimpleStrategy', 'replication_factor': '1'}  AND "
            "durable_writes = true;\n");
}

TEST(ShellWords, Tokens) {
  EXPECT_EQ(ShellWords("COPY ks.t (a, \"B\") TO 'f''s.csv' WITH HEADER=true"),
            (std::vector<std::string>{"COPY", "ks.t", "(", "a", ",", "\"B\"", ")", "TO",
                                      "'f's.csv", "WITH", "HEADER", "=", "true"}));
}

TEST(Copy, ParseCommand) {
  Result<CopyCommand> c = ParseCopy(
      ShellWords("COPY t (a, b) FROM '/tmp/x.csv' WITH HEADER = true AND DELIMITER='|'"), "ks");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->keyspace, "ks");
  EXPECT_EQ(c->table, "t");
  EXPECT_EQ(c->columns, (std::vector<std::string>{"a", "b"}));
  EXPECT_FALSE(c->to);
  EXPECT_EQ(c->file, "/tmp/x.csv");
  EXPECT_TRUE(c->header);
  EXPECT_EQ(c->delimiter, '|');
  EXPECT_FALSE(ParseCopy(ShellWords("COPY t"), "ks").ok());
  EXPECT_FALSE(ParseCopy(ShellWords("COPY t TO 'x'"), "").ok());
}

TEST(Copy, CsvRoundTrip) {
  std::vector<std::string> values = {"plain", "a,b", "say \"hi\"", "two\nlines", ""};
  std::string line;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) line += ',';
    line += CsvField(values[i], ',');
  }
  std::istringstream in(line + "\nnext,row\n");
  std::vector<std::string> fields;
  std::vector<bool> quoted;
  ASSERT_TRUE(ReadCsvRecord(in, ',', &fields, &quoted));
  EXPECT_EQ(fields, values);
  EXPECT_TRUE(quoted[1]);
  EXPECT_FALSE(quoted[4]);
  ASSERT_TRUE(ReadCsvRecord(in, ',', &fields, &quoted));
  EXPECT_EQ(fields, (std::vector<std::string>{"next", "row"}));
  EXPECT_FALSE(ReadCsvRecord(in, ',', &fields, &quoted));
}

}  // namespace
}  // namespace keywise::shell
