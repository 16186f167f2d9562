// PaxosStore (a replica's Paxos state) and the Paxos payload codecs:
// promises only to higher ballots, accepts unless a higher ballot was
// promised, commits supersede older accepted proposals, the state survives
// a restart; malformed payloads are refused.
#include "cluster/coordinator/paxos_store.h"

#include <gtest/gtest.h>

#include "system/system_keyspaces.h"
#include "testing/temp_dir.h"

namespace keywise::cluster {
namespace {

Uuid Ballot(int64_t micros) {
  return BallotAt(micros);
}

class PaxosStoreTest : public ::testing::Test {
 protected:
  void Open() {
    engine_.reset();
    EngineOptions options;
    options.data_dir = dir_.str();
    auto engine = Engine::Open(options, SystemClock::Default());
    ASSERT_TRUE(engine.ok()) << engine.status().ToString();
    engine_ = std::move(engine).value();
    ASSERT_TRUE(system::SystemKeyspaces::Install(*engine_, {}).ok());
    store_ = std::make_unique<PaxosStore>(engine_.get());
  }
  void SetUp() override { Open(); }

  keywise::testing::TempDir dir_;
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<PaxosStore> store_;
  PaxosKey key_{Uuid::Random(), std::string("\x00\x00\x00\x07", 4)};
};

TEST_F(PaxosStoreTest, PromisesAcceptsAndCommitsByBallotOrder) {
  auto p = store_->Prepare(key_, Ballot(100));
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_TRUE(p->promised);
  EXPECT_FALSE(p->accepted || p->committed);
  // A lower or equal ballot is refused, and told the promise.
  p = store_->Prepare(key_, Ballot(50));
  ASSERT_TRUE(p.ok());
  EXPECT_FALSE(p->promised);
  EXPECT_EQ(BallotMicros(p->promised_ballot), 100);
  // A proposal below the promise is refused; one at it is accepted.
  EXPECT_FALSE(*store_->Propose(key_, PaxosProposal{Ballot(60), {"a"}}));
  const Uuid b200 = Ballot(200);
  ASSERT_TRUE(store_->Prepare(key_, b200)->promised);
  EXPECT_TRUE(*store_->Propose(key_, PaxosProposal{b200, {"u1", "u2"}}));
  // A later prepare sees the accepted proposal.
  p = store_->Prepare(key_, Ballot(300));
  ASSERT_TRUE(p.ok() && p->promised);
  ASSERT_TRUE(p->accepted);
  EXPECT_EQ(p->accepted->ballot, b200);
  EXPECT_EQ(p->accepted->updates, (std::vector<std::string>{"u1", "u2"}));
  // The commit of that proposal supersedes it, and survives a restart.
  ASSERT_TRUE(store_->Commit(key_, PaxosProposal{b200, {"u1", "u2"}}).ok());
  Open();
  p = store_->Prepare(key_, Ballot(400));
  ASSERT_TRUE(p.ok() && p->promised);
  EXPECT_FALSE(p->accepted);
  ASSERT_TRUE(p->committed);
  EXPECT_EQ(p->committed->ballot, b200);
  // An older commit arriving late changes nothing.
  ASSERT_TRUE(store_->Commit(key_, PaxosProposal{Ballot(150), {"old"}}).ok());
  EXPECT_EQ(store_->Prepare(key_, Ballot(500))->committed->ballot, b200);
  // Other partitions and tables are independent.
  PaxosKey other{key_.table_id, "x"};
  EXPECT_TRUE(store_->Prepare(other, Ballot(10))->promised);
}

// State expires as Cassandra's: after the table's gc_grace_seconds, at
// least 3 hours (here no table: the default 10 days).
TEST(PaxosStoreExpiry, StateExpiresAfterItsTtl) {
  keywise::testing::TempDir dir;
  ManualClock clock(1'700'000'000'000'000);
  EngineOptions options;
  options.data_dir = dir.str();
  auto engine = Engine::Open(options, clock);
  ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  ASSERT_TRUE(system::SystemKeyspaces::Install(**engine, {}).ok());
  PaxosStore store(engine->get());
  PaxosKey key{Uuid::Random(), "k"};
  const Uuid b = BallotAt(clock.NowMicros());
  ASSERT_TRUE(store.Prepare(key, b)->promised);
  ASSERT_TRUE(store.Commit(key, PaxosProposal{b, {"u"}}).ok());
  clock.AdvanceSeconds(864000 - 60);
  ASSERT_TRUE(store.Prepare(key, BallotAt(clock.NowMicros()))->committed);
  clock.AdvanceSeconds(864000 + 60);  // the last save above renewed it
  auto p = store.Prepare(key, BallotAt(clock.NowMicros()));
  ASSERT_TRUE(p.ok());
  EXPECT_FALSE(p->committed);
  EXPECT_FALSE(p->accepted);
}

TEST(PaxosMessages, RoundTripsAndRefusesMalformedPayloads) {
  PaxosKey key{Uuid::Random(), "pk"};
  PaxosProposal proposal{Ballot(7), {"one", std::string("\0two", 4)}};
  const std::string bytes = EncodePaxosProposal(key, proposal);
  PaxosKey k2;
  PaxosProposal p2;
  ASSERT_TRUE(DecodePaxosProposal(bytes, &k2, &p2).ok());
  EXPECT_EQ(k2.table_id, key.table_id);
  EXPECT_EQ(k2.partition_key, "pk");
  EXPECT_EQ(p2.ballot, proposal.ballot);
  EXPECT_EQ(p2.updates, proposal.updates);
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_FALSE(DecodePaxosProposal(bytes.substr(0, n), &k2, &p2).ok()) << n;
  }
  EXPECT_FALSE(DecodePaxosProposal(bytes + "x", &k2, &p2).ok());

  PaxosPromise promise;
  promise.promised = true;
  promise.promised_ballot = Ballot(9);
  promise.committed = proposal;
  const std::string pb = EncodePaxosPromise(promise);
  auto decoded = DecodePaxosPromise(pb);
  ASSERT_TRUE(decoded.ok());
  EXPECT_TRUE(decoded->promised);
  EXPECT_FALSE(decoded->accepted);
  ASSERT_TRUE(decoded->committed);
  EXPECT_EQ(decoded->committed->updates, proposal.updates);
  for (size_t n = 0; n < pb.size(); ++n) {
    EXPECT_FALSE(DecodePaxosPromise(pb.substr(0, n)).ok()) << n;
  }
  Uuid ballot;
  const std::string prepare = EncodePaxosPrepare(key, Ballot(11));
  ASSERT_TRUE(DecodePaxosPrepare(prepare, &k2, &ballot).ok());
  EXPECT_EQ(BallotMicros(ballot), 11);
  EXPECT_FALSE(DecodePaxosPrepare(prepare + "x", &k2, &ballot).ok());
  EXPECT_TRUE(BallotBefore(Ballot(1), Ballot(2)));
  EXPECT_FALSE(BallotBefore(Ballot(2), Ballot(1)));
}

}  // namespace
}  // namespace keywise::cluster
