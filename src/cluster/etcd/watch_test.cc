// Watches, against a real etcd and FakeEtcdClient: replay from a start
// revision, live events in order, compaction, stopping; and, with a real
// etcd only, riding out an etcd restart.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "cluster/etcd/etcd_test_util.h"

namespace keywise::cluster {
namespace {

using std::chrono::milliseconds;

constexpr milliseconds kWait{5000};

class EtcdWatch : public ::testing::TestWithParam<ClientKind> {
 protected:
  void SetUp() override {
    client_ = NewClient(GetParam());
    prefix_ = TestPrefix();
  }
  int64_t Put(const std::string& name, const std::string& value) {
    auto revision = client_->Put(prefix_ + name, value, LeaseId::kNone);
    EXPECT_TRUE(revision.ok()) << revision.status().ToString();
    return revision.ok() ? *revision : 0;
  }

  std::unique_ptr<EtcdClient> client_;
  std::string prefix_;
};

TEST_P(EtcdWatch, ReplaysFromStartRevisionThenFollowsInOrder) {
  const int64_t first = Put("a", "1");
  Put("b", "2");
  ASSERT_TRUE(client_->Delete(KeyRange::Single(prefix_ + "a")).ok());
  Put("c", "3");
  // Outside the watched prefix: never delivered.
  ASSERT_TRUE(client_->Put("/kwtest/elsewhere", "x", LeaseId::kNone).ok());

  WatchRecorder recorder;
  auto watch =
      client_->Watch(KeyRange::Prefix(prefix_), first, recorder.Callback());
  ASSERT_TRUE(watch.ok()) << watch.status().ToString();
  ASSERT_TRUE(recorder.WaitForEvents(4, kWait));
  for (int i = 0; i < 20; ++i) Put("live", std::to_string(i));
  ASSERT_TRUE(recorder.WaitForEvents(24, kWait));

  const std::vector<WatchEvent> events = recorder.events();
  ASSERT_EQ(events.size(), 24u);
  EXPECT_EQ(events[0].type, WatchEventType::kPut);
  EXPECT_EQ(events[0].kv.key, prefix_ + "a");
  EXPECT_EQ(events[0].kv.value, "1");
  EXPECT_EQ(events[0].kv.mod_revision, first);
  EXPECT_EQ(events[1].kv.key, prefix_ + "b");
  EXPECT_EQ(events[2].type, WatchEventType::kDelete);
  EXPECT_EQ(events[2].kv.key, prefix_ + "a");
  EXPECT_EQ(events[2].kv.mod_revision, first + 2);
  for (size_t i = 1; i < events.size(); ++i) {
    EXPECT_GT(events[i].kv.mod_revision, events[i - 1].kv.mod_revision);
  }
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(events[4 + i].kv.value, std::to_string(i));
    EXPECT_EQ(events[4 + i].kv.version, i + 1);
  }
  for (const WatchUpdate& update : recorder.updates()) {
    EXPECT_EQ(update.kind, WatchUpdateKind::kEvents);
  }
}

TEST_P(EtcdWatch, FromNowSeesOnlyLaterWrites) {
  Put("old", "x");
  WatchRecorder recorder;
  auto watch =
      client_->Watch(KeyRange::Single(prefix_ + "k"), 0, recorder.Callback());
  ASSERT_TRUE(watch.ok()) << watch.status().ToString();
  Put("other", "x");
  const int64_t rev = Put("k", "new");
  ASSERT_TRUE(recorder.WaitForEvents(1, kWait));
  std::this_thread::sleep_for(milliseconds(100));
  const auto events = recorder.events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kv.value, "new");
  EXPECT_EQ(events[0].kv.mod_revision, rev);
  EXPECT_EQ(events[0].kv.create_revision, rev);
}

TEST_P(EtcdWatch, ReportsCompactionAndEnds) {
  const int64_t first = Put("a", "1");
  const int64_t last = Put("a", "2");
  ASSERT_TRUE(client_->Compact(last).ok());
  WatchRecorder recorder;
  auto watch =
      client_->Watch(KeyRange::Prefix(prefix_), first, recorder.Callback());
  ASSERT_TRUE(watch.ok()) << watch.status().ToString();
  ASSERT_TRUE(recorder.WaitFor(
      [](const std::vector<WatchUpdate>& u) { return !u.empty(); }, kWait));
  Put("a", "3");
  std::this_thread::sleep_for(milliseconds(200));
  const auto updates = recorder.updates();
  ASSERT_EQ(updates.size(), 1u);
  EXPECT_EQ(updates[0].kind, WatchUpdateKind::kCompacted);
  EXPECT_EQ(updates[0].revision, last);
}

TEST_P(EtcdWatch, DestroyingTheHandleStopsCallbacks) {
  std::atomic<int> calls{0};
  auto watch = client_->Watch(KeyRange::Prefix(prefix_), 0,
                              [&](WatchUpdate) { ++calls; });
  ASSERT_TRUE(watch.ok());
  Put("a", "1");
  for (int i = 0; i < 100 && calls.load() == 0; ++i) {
    std::this_thread::sleep_for(milliseconds(10));
  }
  EXPECT_EQ(calls.load(), 1);
  watch->reset();
  Put("a", "2");
  std::this_thread::sleep_for(milliseconds(100));
  EXPECT_EQ(calls.load(), 1);
}

TEST_P(EtcdWatch, HandleMayBeDestroyedInsideItsCallback) {
  std::unique_ptr<WatchHandle> handle;
  std::mutex mu;
  std::atomic<int> calls{0};
  auto watch = client_->Watch(KeyRange::Prefix(prefix_), 0, [&](WatchUpdate) {
    ++calls;
    std::lock_guard<std::mutex> lock(mu);
    handle.reset();
  });
  ASSERT_TRUE(watch.ok());
  {
    std::lock_guard<std::mutex> lock(mu);
    handle = std::move(*watch);
  }
  Put("a", "1");
  Put("a", "2");
  for (int i = 0; i < 100 && calls.load() == 0; ++i) {
    std::this_thread::sleep_for(milliseconds(10));
  }
  std::this_thread::sleep_for(milliseconds(100));
  EXPECT_EQ(calls.load(), 1);
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_EQ(handle, nullptr);
}

INSTANTIATE_TEST_SUITE_P(Both, EtcdWatch,
                         ::testing::Values(ClientKind::kReal,
                                           ClientKind::kFake),
                         ClientKindName);

// Its own etcd, killed and restarted on the same ports and data.
TEST(EtcdWatchRestart, ResumesAfterEtcdRestartsWithoutLosingEvents) {
  testing::EtcdProcess etcd;
  ASSERT_TRUE(etcd.Start()) << etcd.log_path();
  auto client = NewTestClient({etcd.endpoint()});
  const std::string prefix = TestPrefix();
  WatchRecorder recorder;
  auto watch = client->Watch(KeyRange::Prefix(prefix), 0, recorder.Callback());
  ASSERT_TRUE(watch.ok()) << watch.status().ToString();
  ASSERT_TRUE(client->Put(prefix + "a", "before", LeaseId::kNone).ok());
  ASSERT_TRUE(recorder.WaitForEvents(1, kWait));

  etcd.Kill();
  ASSERT_TRUE(recorder.WaitFor(
      [](const std::vector<WatchUpdate>& u) {
        return u.back().kind == WatchUpdateKind::kConnectionLost;
      },
      kWait));
  ASSERT_TRUE(etcd.Start()) << etcd.log_path();
  ASSERT_TRUE(recorder.WaitFor(
      [](const std::vector<WatchUpdate>& u) {
        return u.back().kind == WatchUpdateKind::kResumed;
      },
      kWait));
  auto after = client->Put(prefix + "a", "after", LeaseId::kNone);
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  ASSERT_TRUE(recorder.WaitForEvents(2, kWait));
  std::this_thread::sleep_for(milliseconds(100));

  const auto events = recorder.events();
  ASSERT_EQ(events.size(), 2u);  // "before" is not delivered twice
  EXPECT_EQ(events[0].kv.value, "before");
  EXPECT_EQ(events[1].kv.value, "after");
  EXPECT_EQ(events[1].kv.mod_revision, *after);
  EXPECT_EQ(recorder.Count(WatchUpdateKind::kConnectionLost), 1u);
  EXPECT_EQ(recorder.Count(WatchUpdateKind::kResumed), 1u);
  for (const WatchUpdate& update : recorder.updates()) {
    if (update.kind == WatchUpdateKind::kConnectionLost) {
      EXPECT_EQ(update.error.code(), ErrorCode::kUnavailable);
      EXPECT_EQ(update.error.message().rfind("etcd: ", 0), 0u)
          << update.error.message();
    }
    if (update.kind == WatchUpdateKind::kResumed) {
      EXPECT_EQ(update.revision, events[0].kv.mod_revision + 1);
    }
  }
}

}  // namespace
}  // namespace keywise::cluster
