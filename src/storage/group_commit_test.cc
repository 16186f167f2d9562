// Unit tests of group commit on a real RocksDB: the writes of many fibers
// of one loop turn become one RocksDB write, an encoder's error removes
// only its own part, a write outside a fiber is written at once, a large
// group is written by the write that filled it, and a loop that stops
// with fibers waiting still writes their group.
#include "storage/group_commit.h"

#include <gtest/gtest.h>
#include <rocksdb/statistics.h>

#include <boost/asio/post.hpp>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "net/fiber.h"
#include "net/loop_group.h"
#include "testing/temp_dir.h"

namespace keywise {
namespace {

class GroupCommitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    rocksdb::Options options;
    options.create_if_missing = true;
    options.statistics = rocksdb::CreateDBStatistics();
    stats_ = options.statistics;
    rocksdb::DB* raw = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(options, dir_.str(), &raw).ok());
    db_.reset(raw);
  }

  // RocksDB writes done so far (each group is one).
  uint64_t Writes() const {
    return stats_->getTickerCount(rocksdb::WRITE_DONE_BY_SELF) +
           stats_->getTickerCount(rocksdb::WRITE_DONE_BY_OTHER);
  }
  std::string Get(const std::string& key) {
    std::string value;
    rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), key, &value);
    return s.ok() ? value : "<" + s.ToString() + ">";
  }
  static BatchEncoder Put(std::string key, std::string value) {
    return [key, value](rocksdb::WriteBatch* batch) {
      batch->Put(key, value);
      return Status::OK();
    };
  }

  // Starts one fiber per encoder on one loop, in one handler (one loop
  // turn), and returns each one's status once all are done.
  std::vector<Status> RunFibers(net::LoopGroup& group,
                                const std::vector<BatchEncoder>& encoders) {
    // The handler and the fibers own what they use: the last fiber may end
    // (and this function return) before the handler has left its loop.
    auto work = std::make_shared<const std::vector<BatchEncoder>>(encoders);
    auto results = std::make_shared<std::vector<Status>>(encoders.size());
    auto left = std::make_shared<std::atomic<size_t>>(encoders.size());
    auto all_done = std::make_shared<std::promise<void>>();
    rocksdb::DB* db = db_.get();
    boost::asio::io_context* loop = &group.loop(0);
    boost::asio::post(*loop, [db, loop, work, results, left, all_done] {
      for (size_t i = 0; i < work->size(); ++i) {
        net::Fiber::Start(*loop, [db, i, work, results, left, all_done] {
          (*results)[i] =
              GroupWrite(db, rocksdb::WriteOptions(), (*work)[i]);
          if (left->fetch_sub(1) == 1) all_done->set_value();
        });
      }
    });
    all_done->get_future().wait();
    return *results;
  }

  testing::TempDir dir_;
  std::shared_ptr<rocksdb::Statistics> stats_;
  std::unique_ptr<rocksdb::DB> db_;
};

TEST_F(GroupCommitTest, FibersOfOneLoopTurnShareOneWrite) {
  net::LoopGroup group(1);
  group.Start();
  std::vector<BatchEncoder> encoders;
  for (int i = 0; i < 50; ++i)
    encoders.push_back(Put("k" + std::to_string(i), "v" + std::to_string(i)));
  const uint64_t before = Writes();
  for (const Status& s : RunFibers(group, encoders)) EXPECT_TRUE(s.ok());
  EXPECT_EQ(Writes() - before, 1u);
  for (int i = 0; i < 50; ++i)
    EXPECT_EQ(Get("k" + std::to_string(i)), "v" + std::to_string(i));
}

TEST_F(GroupCommitTest, AnEncoderErrorRemovesOnlyItsOwnPart) {
  net::LoopGroup group(1);
  group.Start();
  BatchEncoder failing = [](rocksdb::WriteBatch* batch) {
    batch->Put("bad1", "x");
    batch->Put("bad2", "x");
    return Status::Invalid("no such column");
  };
  std::vector<Status> results =
      RunFibers(group, {Put("a", "1"), failing, Put("b", "2")});
  EXPECT_TRUE(results[0].ok());
  EXPECT_EQ(results[1].code(), ErrorCode::kInvalid);
  EXPECT_EQ(results[1].message(), "no such column");
  EXPECT_TRUE(results[2].ok());
  EXPECT_EQ(Get("a"), "1");
  EXPECT_EQ(Get("b"), "2");
  EXPECT_NE(Get("bad1"), "x");
  EXPECT_NE(Get("bad2"), "x");
}

TEST_F(GroupCommitTest, AnEmptyWriteReturnsAtOnce) {
  net::LoopGroup group(1);
  group.Start();
  const uint64_t before = Writes();
  std::vector<Status> results = RunFibers(
      group, {[](rocksdb::WriteBatch*) { return Status::OK(); }});
  EXPECT_TRUE(results[0].ok());
  EXPECT_EQ(Writes(), before);
}

TEST_F(GroupCommitTest, AWriteOutsideAFiberIsWrittenAtOnce) {
  const uint64_t before = Writes();
  EXPECT_TRUE(GroupWrite(db_.get(), rocksdb::WriteOptions(), Put("k", "v")).ok());
  EXPECT_EQ(Writes() - before, 1u);
  EXPECT_EQ(Get("k"), "v");
  EXPECT_EQ(GroupWrite(db_.get(), rocksdb::WriteOptions(),
                       [](rocksdb::WriteBatch*) {
                         return Status::Invalid("refused");
                       })
                .code(),
            ErrorCode::kInvalid);
}

TEST_F(GroupCommitTest, ALargeGroupIsWrittenByTheWriteThatFilledIt) {
  net::LoopGroup group(1);
  group.Start();
  const std::string big(3 << 20, 'x');  // two of these pass the 4 MiB cap
  const uint64_t before = Writes();
  std::vector<Status> results = RunFibers(
      group, {Put("big1", big), Put("big2", big), Put("small", "s")});
  for (const Status& s : results) EXPECT_TRUE(s.ok());
  // big1 + big2 written when big2 filled the group; "small" after.
  EXPECT_EQ(Writes() - before, 2u);
  EXPECT_EQ(Get("big1").size(), big.size());
  EXPECT_EQ(Get("big2").size(), big.size());
  EXPECT_EQ(Get("small"), "s");
}

TEST_F(GroupCommitTest, ALoopThatStopsStillWritesItsWaitingGroup) {
  auto group = std::make_unique<net::LoopGroup>(1);
  group->Start();
  auto status = std::make_shared<Status>(Status::Invalid("not run"));
  auto started = std::make_shared<std::promise<void>>();
  // The commit handler is queued behind a handler that stops the loop's
  // fibers first (as LoopGroup::Stop does): the fiber writes its group.
  boost::asio::post(group->loop(0), [&, status, started] {
    net::Fiber::Start(group->loop(0), [&, status] {
      *status = GroupWrite(db_.get(), rocksdb::WriteOptions(), Put("k", "v"));
    });
    net::Fiber::CancelAllOnThisThread();
    started->set_value();
  });
  started->get_future().wait();
  group.reset();
  EXPECT_TRUE(status->ok()) << status->ToString();
  EXPECT_EQ(Get("k"), "v");
}

}  // namespace
}  // namespace keywise
