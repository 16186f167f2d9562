#include "shell/statement_splitter.h"

#include <gtest/gtest.h>

namespace keywise::shell {
namespace {

std::vector<std::string> Split(const std::vector<std::string>& lines) {
  StatementSplitter s;
  std::vector<std::string> out;
  for (const auto& l : lines) {
    for (auto& st : s.AddLine(l)) out.push_back(st);
  }
  std::string rest = s.Finish();
  if (!rest.empty()) out.push_back("REST:" + rest);
  return out;
}

TEST(StatementSplitter, SemicolonsOutsideStringsAndComments) {
  EXPECT_EQ(Split({"SELECT 'a;b', \"c;d\" FROM t; INSERT INTO t (k) VALUES ($$x;y$$);"}),
            (std::vector<std::string>{"SELECT 'a;b', \"c;d\" FROM t",
                                      "INSERT INTO t (k) VALUES ($$x;y$$)"}));
  EXPECT_EQ(Split({"SELECT 'it''s;' FROM t; -- a; comment", "/* x; */ SELECT 1;"}),
            (std::vector<std::string>{"SELECT 'it''s;' FROM t", "SELECT 1"}));
}

TEST(StatementSplitter, MultiLineStatementsAndIdle) {
  StatementSplitter s;
  EXPECT_TRUE(s.AddLine("SELECT *").empty());
  EXPECT_FALSE(s.idle());
  EXPECT_TRUE(s.AddLine("  FROM t").empty());
  auto out = s.AddLine("WHERE k = 'multi");
  EXPECT_TRUE(out.empty());
  out = s.AddLine("line';");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], "SELECT *\n  FROM t\nWHERE k = 'multi\nline'");
  EXPECT_TRUE(s.idle());
}

TEST(StatementSplitter, BlockCommentsSpanLinesAndEmptyStatementsDrop) {
  EXPECT_EQ(Split({"/* start", "; still comment */ SELECT 2;", ";;", "-- only a comment"}),
            (std::vector<std::string>{"SELECT 2"}));
}

TEST(StatementSplitter, ShellCommandsEndAtEndOfLine) {
  EXPECT_EQ(Split({"expand on", "DESCRIBE KEYSPACES;", "exit"}),
            (std::vector<std::string>{"expand on", "DESCRIBE KEYSPACES", "exit"}));
  // USE is CQL and needs its semicolon.
  EXPECT_EQ(Split({"use ks", ";"}), (std::vector<std::string>{"use ks"}));
  // A shell word inside a statement does not end it.
  EXPECT_EQ(Split({"SELECT", "copy FROM t;"}), (std::vector<std::string>{"SELECT\ncopy FROM t"}));
}

TEST(StatementSplitter, ResetAndUnterminated) {
  StatementSplitter s;
  EXPECT_TRUE(s.AddLine("SELECT 'abc").empty());
  s.Reset();
  EXPECT_TRUE(s.idle());
  EXPECT_EQ(Split({"SELECT 1"}), (std::vector<std::string>{"REST:SELECT 1"}));
}

}  // namespace
}  // namespace keywise::shell

namespace keywise::shell {
namespace {

TEST(StatementSplitter, ShellCommandThenCqlOnOneLine) {
  EXPECT_EQ(Split({"EXPAND ON; SELECT 1", "FROM t;"}),
            (std::vector<std::string>{"EXPAND ON", "SELECT 1\nFROM t"}));
  EXPECT_EQ(Split({"SELECT 1; paging off"}),
            (std::vector<std::string>{"SELECT 1", "paging off"}));
}

}  // namespace
}  // namespace keywise::shell
