// Leases, against a real etcd and FakeEtcdClient: expiry deletes keys,
// keepalives keep them, LeaseKeeper renews, reports loss and revokes. TTL
// 2 s (the smallest a default etcd grants), so each run waits ~3.5 s.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "cluster/etcd/etcd_error.h"
#include "cluster/etcd/etcd_test_util.h"
#include "cluster/etcd/lease_keeper.h"

namespace keywise::cluster {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

class EtcdLease : public ::testing::TestWithParam<ClientKind> {
 protected:
  void SetUp() override {
    client_ = NewClient(GetParam());
    prefix_ = TestPrefix();
  }
  bool Exists(const std::string& key) {
    auto read = client_->Get(key);
    EXPECT_TRUE(read.ok()) << read.status().ToString();
    return read.ok() && !read->kvs.empty();
  }

  std::unique_ptr<EtcdClient> client_;
  std::string prefix_;
};

// One wait serves both: a bare lease expires while a kept one lives on.
TEST_P(EtcdLease, ExpiresWithoutKeepAliveAndLivesWithIt) {
  auto bare = client_->GrantLease(seconds(2));
  ASSERT_TRUE(bare.ok()) << bare.status().ToString();
  EXPECT_EQ(bare->ttl, seconds(2));
  EXPECT_NE(bare->id, LeaseId::kNone);
  auto manual = client_->GrantLease(seconds(2));
  ASSERT_TRUE(manual.ok());
  std::atomic<int> lost{0};
  auto keeper = LeaseKeeper::Start(client_.get(), seconds(2),
                                   [&](const Status&) { ++lost; });
  ASSERT_TRUE(keeper.ok()) << keeper.status().ToString();

  ASSERT_TRUE(client_->Put(prefix_ + "bare", "x", bare->id).ok());
  ASSERT_TRUE(client_->Put(prefix_ + "manual", "x", manual->id).ok());
  ASSERT_TRUE(client_->Put(prefix_ + "kept", "x", (*keeper)->id()).ok());
  auto attached = client_->Get(prefix_ + "bare");
  ASSERT_TRUE(attached.ok() && attached->kvs.size() == 1);
  EXPECT_EQ(attached->kvs[0].lease, bare->id);

  for (int i = 0; i < 7; ++i) {  // 3.5 s, renewing `manual` by hand
    std::this_thread::sleep_for(milliseconds(500));
    auto ttl = client_->KeepAliveOnce(manual->id);
    ASSERT_TRUE(ttl.ok()) << ttl.status().ToString();
    EXPECT_EQ(*ttl, seconds(2));
  }
  EXPECT_FALSE(Exists(prefix_ + "bare"));
  EXPECT_TRUE(Exists(prefix_ + "manual"));
  EXPECT_TRUE(Exists(prefix_ + "kept"));
  EXPECT_EQ(lost.load(), 0);
  EXPECT_FALSE((*keeper)->lost());

  auto expired = client_->KeepAliveOnce(bare->id);
  ASSERT_TRUE(expired.ok()) << expired.status().ToString();
  EXPECT_EQ(expired->count(), 0);
  const Status revoke_expired = client_->RevokeLease(bare->id);
  EXPECT_TRUE(IsLeaseNotFound(revoke_expired)) << revoke_expired.ToString();

  ASSERT_TRUE(client_->RevokeLease(manual->id).ok());
  EXPECT_FALSE(Exists(prefix_ + "manual"));
}

TEST_P(EtcdLease, KeeperReportsLossOnceWhenTheLeaseIsRevoked) {
  std::atomic<int> lost{0};
  Status why;
  std::mutex mu;
  auto keeper =
      LeaseKeeper::Start(client_.get(), seconds(3), [&](const Status& status) {
        std::lock_guard<std::mutex> lock(mu);
        why = status;
        ++lost;
      });
  ASSERT_TRUE(keeper.ok());
  ASSERT_TRUE(client_->RevokeLease((*keeper)->id()).ok());
  // Renewals come every TTL/3 = 1 s.
  for (int i = 0; i < 30 && lost.load() == 0; ++i) {
    std::this_thread::sleep_for(milliseconds(100));
  }
  EXPECT_EQ(lost.load(), 1);
  EXPECT_TRUE((*keeper)->lost());
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_EQ(why.code(), ErrorCode::kUnavailable);
  EXPECT_NE(why.message().find("expired or was revoked"), std::string::npos)
      << why.message();
}

TEST_P(EtcdLease, KeeperRevokesTheLeaseWhenDestroyed) {
  auto keeper = LeaseKeeper::Start(client_.get(), seconds(10), nullptr);
  ASSERT_TRUE(keeper.ok());
  ASSERT_TRUE(client_->Put(prefix_ + "member", "x", (*keeper)->id()).ok());
  EXPECT_TRUE(Exists(prefix_ + "member"));
  keeper->reset();
  EXPECT_FALSE(Exists(prefix_ + "member"));
}

INSTANTIATE_TEST_SUITE_P(Both, EtcdLease,
                         ::testing::Values(ClientKind::kReal,
                                           ClientKind::kFake),
                         ClientKindName);

}  // namespace
}  // namespace keywise::cluster
