// What only the fake has: its test controls (disconnect, reconnect, forced
// lease expiry). Its etcd semantics are checked by the kv, lease and watch
// tests, which run against both implementations.
#include "cluster/etcd/fake/fake_etcd_client.h"

#include <gtest/gtest.h>

#include "cluster/etcd/etcd_error.h"
#include "cluster/etcd/etcd_test_util.h"

namespace keywise::cluster {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(FakeEtcdClient, DisconnectFailsCallsAndReconnectResumesWatches) {
  FakeEtcdClient fake;
  auto lease = fake.GrantLease(seconds(60));
  ASSERT_TRUE(lease.ok());
  auto put = fake.Put("/n/1", "up", lease->id);
  ASSERT_TRUE(put.ok());
  WatchRecorder recorder;
  auto watch = fake.Watch(KeyRange::Prefix("/n/"), 0, recorder.Callback());
  ASSERT_TRUE(watch.ok());

  fake.Disconnect();
  auto failed = fake.Get("/n/1");
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().code(), ErrorCode::kUnavailable);
  EXPECT_FALSE(fake.Watch(KeyRange::Prefix("/n/"), 0, [](WatchUpdate) {}).ok());
  // The lease ends while this node cannot see etcd.
  ASSERT_TRUE(fake.ExpireLease(lease->id).ok());
  fake.Reconnect();

  ASSERT_TRUE(recorder.WaitForEvents(1, milliseconds(2000)));
  const auto updates = recorder.updates();
  ASSERT_EQ(updates.size(), 3u);
  EXPECT_EQ(updates[0].kind, WatchUpdateKind::kConnectionLost);
  EXPECT_EQ(updates[0].error.code(), ErrorCode::kUnavailable);
  EXPECT_EQ(updates[1].kind, WatchUpdateKind::kResumed);
  EXPECT_EQ(updates[1].revision, *put + 1);
  ASSERT_EQ(updates[2].events.size(), 1u);
  EXPECT_EQ(updates[2].events[0].type, WatchEventType::kDelete);
  EXPECT_EQ(updates[2].events[0].kv.key, "/n/1");
  EXPECT_EQ(updates[2].events[0].kv.mod_revision, *put + 1);
  EXPECT_EQ(fake.revision(), *put + 1);
  EXPECT_TRUE(IsLeaseNotFound(fake.ExpireLease(lease->id)));
}

TEST(FakeEtcdClient, WatchHandlesMayOutliveTheFake) {
  WatchRecorder recorder;
  std::unique_ptr<WatchHandle> handle;
  {
    FakeEtcdClient fake;
    auto watch = fake.Watch(KeyRange::Single("k"), 0, recorder.Callback());
    ASSERT_TRUE(watch.ok());
    handle = std::move(*watch);
    ASSERT_TRUE(fake.Put("k", "v", LeaseId::kNone).ok());
    ASSERT_TRUE(recorder.WaitForEvents(1, milliseconds(2000)));
  }
  handle.reset();
  EXPECT_EQ(recorder.events().size(), 1u);
}

}  // namespace
}  // namespace keywise::cluster
