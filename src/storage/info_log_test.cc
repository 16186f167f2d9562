#include "storage/info_log.h"

#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace keywise {
namespace {

std::string ReadAll(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class InfoLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("keywise-info-log-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(InfoLogTest, WritesOneLinePerMessage) {
  auto log = InfoLog::Open(dir_.string(), 5);
  ASSERT_TRUE(log.ok()) << log.status().ToString();
  std::shared_ptr<rocksdb::Logger> logger = log.value();
  rocksdb::Log(rocksdb::InfoLogLevel::INFO_LEVEL, logger, "flush of %d tables",
               3);
  rocksdb::Log(rocksdb::InfoLogLevel::WARN_LEVEL, logger, "disk %s", "full");
  rocksdb::Log(rocksdb::InfoLogLevel::DEBUG_LEVEL, logger, "not shown");
  std::string text = ReadAll(dir_ / "LOG");
  EXPECT_NE(text.find("flush of 3 tables\n"), std::string::npos) << text;
  EXPECT_NE(text.find("[WARN] disk full\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("not shown"), std::string::npos) << text;
  EXPECT_EQ(log.value()->dropped_lines(), 0);
}

TEST_F(InfoLogTest, LongMessagesAreWrittenWhole) {
  auto log = InfoLog::Open(dir_.string(), 5);
  ASSERT_TRUE(log.ok());
  std::string long_text(5000, 'x');
  rocksdb::Log(rocksdb::InfoLogLevel::INFO_LEVEL,
               std::shared_ptr<rocksdb::Logger>(log.value()), "%s.",
               long_text.c_str());
  EXPECT_NE(ReadAll(dir_ / "LOG").find(long_text + ".\n"), std::string::npos);
}

// The regression: on a full disk RocksDB's own logger aborted the process
// at the line after one it could not write. /dev/full fails every write
// with ENOSPC.
TEST_F(InfoLogTest, FullDiskDropsLinesAndGoesOn) {
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  auto log = InfoLog::OpenFile("/dev/full");
  ASSERT_TRUE(log.ok()) << log.status().ToString();
  std::shared_ptr<rocksdb::Logger> logger = log.value();
  for (int i = 0; i < 3; ++i) {
    rocksdb::Log(rocksdb::InfoLogLevel::ERROR_LEVEL, logger, "line %d", i);
  }
  EXPECT_EQ(log.value()->dropped_lines(), 3);
}

TEST_F(InfoLogTest, OpenRotatesAndKeepsTheNewestOldLogs) {
  for (int i = 0; i < 4; ++i) {
    auto log = InfoLog::Open(dir_.string(), 2);
    ASSERT_TRUE(log.ok());
    rocksdb::Log(rocksdb::InfoLogLevel::INFO_LEVEL,
                 std::shared_ptr<rocksdb::Logger>(log.value()), "open %d", i);
  }
  int old_logs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
    if (entry.path().filename().string().rfind("LOG.old.", 0) == 0) ++old_logs;
  }
  EXPECT_EQ(old_logs, 2);
  std::string current = ReadAll(dir_ / "LOG");
  EXPECT_NE(current.find("open 3"), std::string::npos) << current;
  EXPECT_EQ(current.find("open 2"), std::string::npos) << current;
}

TEST_F(InfoLogTest, OpenFailsClearlyWhereNoFileCanBeMade) {
  auto log = InfoLog::Open((dir_ / "missing").string(), 5);
  ASSERT_FALSE(log.ok());
  EXPECT_NE(log.status().message().find("missing/LOG"), std::string::npos)
      << log.status().ToString();
}

}  // namespace
}  // namespace keywise
