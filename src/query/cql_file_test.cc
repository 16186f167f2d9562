// Runs every testdata/*.test script (format: testdata/README.md), one gtest
// case per file. KEYWISE_CQL_TEST=name runs only files whose name contains
// it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "query/cql_script_test_util.h"

namespace keywise::query {
namespace {

std::filesystem::path TestdataDir() {
  return std::filesystem::path(__FILE__).parent_path() / "testdata";
}

std::vector<std::string> ScriptFiles() {
  std::vector<std::string> files;
  const char* only = std::getenv("KEYWISE_CQL_TEST");
  for (const auto& entry : std::filesystem::directory_iterator(TestdataDir())) {
    if (entry.path().extension() != ".test") continue;
    std::string name = entry.path().filename().string();
    if (only != nullptr && name.find(only) == std::string::npos) continue;
    files.push_back(name);
  }
  std::sort(files.begin(), files.end());
  return files;
}

class CqlFileTest : public ::testing::TestWithParam<std::string> {};

TEST_P(CqlFileTest, Passes) {
  std::vector<std::string> failures =
      RunScriptFile((TestdataDir() / GetParam()).string());
  for (const std::string& f : failures) ADD_FAILURE() << f;
}

INSTANTIATE_TEST_SUITE_P(
    Scripts, CqlFileTest, ::testing::ValuesIn(ScriptFiles()),
    [](const ::testing::TestParamInfo<std::string>& info) {
      std::string name = info.param.substr(0, info.param.size() - 5);
      std::replace_if(
          name.begin(), name.end(),
          [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); },
          '_');
      return name;
    });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(CqlFileTest);

TEST(ScriptFormat, ParsesEveryRecordKind) {
  auto records = ParseScript(
      "# comment\n"
      "statement ok\nCREATE KEYSPACE k\n  WITH x = 1\n\n"
      "statement error boom here\nSELECT 1\n\n"
      "query columns rowsort\nSELECT a\nFROM t\n----\na\n1 | null\n\n"
      "clock advance 30\nflush\ncompact\nrestart\n");
  ASSERT_TRUE(records.ok()) << records.status().ToString();
  ASSERT_EQ(records->size(), 7u);
  EXPECT_EQ((*records)[0].cql, "CREATE KEYSPACE k\n  WITH x = 1");
  EXPECT_EQ((*records)[0].line, 2);
  EXPECT_EQ((*records)[1].expected_error, "boom here");
  EXPECT_TRUE((*records)[2].columns);
  EXPECT_TRUE((*records)[2].rowsort);
  EXPECT_EQ((*records)[2].expected,
            (std::vector<std::string>{"a", "1 | null"}));
  EXPECT_EQ((*records)[3].seconds, 30);
  EXPECT_EQ((*records)[6].kind, ScriptRecord::Kind::kRestart);
}

TEST(ScriptFormat, RejectsMalformedScripts) {
  EXPECT_FALSE(ParseScript("bogus\n").ok());
  EXPECT_FALSE(ParseScript("query\nSELECT 1\n").ok());
  EXPECT_FALSE(ParseScript("statement ok\n\n").ok());
  EXPECT_FALSE(ParseScript("query sideways\nSELECT 1\n----\n").ok());
}

TEST(ScriptNode, ReportsErrorsOfFailingRecords) {
  ScriptNode node;
  ScriptRecord r;
  r.kind = ScriptRecord::Kind::kStatementOk;
  r.cql = "SELEKT";
  EXPECT_NE(node.Run(r), "");
  r.kind = ScriptRecord::Kind::kStatementError;
  EXPECT_EQ(node.Run(r), "");
  r.expected_error = "not the message";
  EXPECT_NE(node.Run(r), "");
}

}  // namespace
}  // namespace keywise::query
