// PaxosStore (a replica's Paxos state) and the Paxos payload codecs:
// promises only to higher ballots, accepts unless a higher ballot was
// promised, commits supersede older accepted proposals, the state survives
// a restart; a tablet's state is exported by token range in pages and
// merged into another replica field by field; malformed payloads are
// refused.
#include "cluster/coordinator/paxos_store.h"

#include <gtest/gtest.h>

#include <set>

#include "schema/partitioner.h"
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

// A store of its own, with table ks.t (k int PRIMARY KEY) whose tokens
// Export filters by.
struct Replica {
  Replica() {
    EngineOptions options;
    options.data_dir = dir.str();
    engine = std::move(Engine::Open(options, SystemClock::Default())).value();
    EXPECT_TRUE(system::SystemKeyspaces::Install(*engine, {}).ok());
    EXPECT_TRUE(
        engine->catalog()
            .CreateKeyspace(KeyspaceDef{"ks",
                                        {{"class",
                                          "org.apache.cassandra.locator."
                                          "SimpleStrategy"},
                                         {"replication_factor", "1"}},
                                        true},
                            IfNotExists::kNo)
            .ok());
    TableDef def;
    def.keyspace = "ks";
    def.name = "t";
    ColumnDef k;
    k.name = "k";
    k.type = CqlType::Of(TypeKind::kInt);
    k.kind = ColumnKind::kPartitionKey;
    def.columns.push_back(k);
    EXPECT_TRUE(engine->catalog().CreateTable(def, IfNotExists::kNo).ok());
    table = *engine->catalog().GetTable("ks", "t");
    store = std::make_unique<PaxosStore>(engine.get());
  }
  keywise::testing::TempDir dir;
  std::unique_ptr<Engine> engine;
  TableDefPtr table;
  std::unique_ptr<PaxosStore> store;
};

std::string IntKey(int k) {
  std::string b(4, '\0');
  for (int i = 0; i < 4; ++i) {
    b[static_cast<size_t>(i)] =
        static_cast<char>((static_cast<uint32_t>(k) >> (24 - 8 * i)) & 0xff);
  }
  return b;
}

// Every page of Export over `range`, joined; checks the pages' contract.
std::vector<PaxosStateEntry> ExportAll(PaxosStore& store,
                                       const TabletRange& range, size_t limit) {
  std::vector<PaxosStateEntry> all;
  std::string after;
  for (int page = 0; page < 1000; ++page) {
    auto got = store.Export(range, after, limit);
    EXPECT_TRUE(got.ok()) << got.status().ToString();
    if (!got.ok()) break;
    EXPECT_LE(got->entries.size(), limit);
    for (PaxosStateEntry& e : got->entries) all.push_back(std::move(e));
    if (got->complete) return all;
    EXPECT_FALSE(all.empty());
    after = all.back().partition_key;
  }
  ADD_FAILURE() << "Export never completed";
  return all;
}

TEST(PaxosHandOver, ExportPagesThroughATokenRangeOfOneTable) {
  Replica r;
  const Uuid id = r.table->id;
  std::set<std::string> keys;
  for (int k = 0; k < 40; ++k) {
    PaxosKey key{id, IntKey(k)};
    ASSERT_TRUE(r.store->Prepare(key, Ballot(1000 + k))->promised);
    keys.insert(key.partition_key);
  }
  // Another table's state is never exported with this one's.
  ASSERT_TRUE(r.store->Prepare({Uuid::Random(), IntKey(1)}, Ballot(5)).ok());

  const TabletRange whole{id, {kMinimumToken, Token{INT64_MAX}}};
  for (size_t limit : {1, 7, 40, 100}) {
    std::vector<PaxosStateEntry> all = ExportAll(*r.store, whole, limit);
    std::set<std::string> got;
    for (const PaxosStateEntry& e : all) {
      EXPECT_TRUE(got.insert(e.partition_key).second) << "twice";
      ASSERT_TRUE(e.state.promised);
    }
    EXPECT_EQ(got, keys) << "limit " << limit;
  }
  // Half of the ring: exactly the keys whose token lies in it.
  const TabletRange half{id, {kMinimumToken, Token{0}}};
  std::set<std::string> expected, got;
  for (const std::string& k : keys) {
    if (PartitionToken(*r.table, k) <= Token{0}) expected.insert(k);
  }
  for (const PaxosStateEntry& e : ExportAll(*r.store, half, 3)) {
    got.insert(e.partition_key);
  }
  EXPECT_EQ(got, expected);
  EXPECT_FALSE(expected.empty());
  EXPECT_LT(expected.size(), keys.size());
  // A table this node does not know has nothing to hand over.
  auto none = r.store->Export({Uuid::Random(), whole.tokens}, "", 10);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->complete);
  EXPECT_TRUE(none->entries.empty());
}

TEST(PaxosHandOver, MergeKeepsTheNewerOfEachField) {
  Replica r;
  const PaxosKey key{r.table->id, IntKey(7)};
  std::vector<Uuid> applied;
  auto apply = [&](const PaxosProposal& p) {
    applied.push_back(p.ballot);
    return Status::OK();
  };
  // Into empty state: everything is taken, the commit applied first.
  PaxosState in;
  in.promised = Ballot(300);
  in.accepted = PaxosProposal{Ballot(250), {"acc"}};
  in.committed = PaxosProposal{Ballot(200), {"com"}};
  ASSERT_TRUE(r.store->Merge(key, in, apply).ok());
  ASSERT_EQ(applied.size(), 1u);
  EXPECT_EQ(BallotMicros(applied[0]), 200);
  auto p = r.store->Prepare(key, Ballot(100));  // below: refused, told all
  ASSERT_TRUE(p.ok());
  EXPECT_FALSE(p->promised);
  EXPECT_EQ(BallotMicros(p->promised_ballot), 300);
  ASSERT_TRUE(p->accepted && p->committed);
  EXPECT_EQ(p->accepted->updates, std::vector<std::string>{"acc"});
  EXPECT_EQ(BallotMicros(p->committed->ballot), 200);

  // Older fields change nothing, and an old commit is not applied again.
  PaxosState older;
  older.promised = Ballot(10);
  older.accepted = PaxosProposal{Ballot(20), {"old"}};
  older.committed = PaxosProposal{Ballot(30), {"old"}};
  ASSERT_TRUE(r.store->Merge(key, older, apply).ok());
  EXPECT_EQ(applied.size(), 1u);
  p = r.store->Prepare(key, Ballot(100));
  EXPECT_EQ(BallotMicros(p->promised_ballot), 300);
  EXPECT_EQ(BallotMicros(p->accepted->ballot), 250);

  // A newer commit supersedes the accepted proposal it covers.
  PaxosState newer;
  newer.committed = PaxosProposal{Ballot(260), {"new"}};
  ASSERT_TRUE(r.store->Merge(key, newer, apply).ok());
  ASSERT_EQ(applied.size(), 2u);
  p = r.store->Prepare(key, Ballot(400));
  ASSERT_TRUE(p.ok() && p->promised);
  EXPECT_FALSE(p->accepted);
  EXPECT_EQ(BallotMicros(p->committed->ballot), 260);

  // A commit whose updates cannot be applied is not recorded.
  PaxosState failing;
  failing.committed = PaxosProposal{Ballot(500), {"x"}};
  EXPECT_FALSE(r.store
                   ->Merge(key, failing,
                           [](const PaxosProposal&) {
                             return Status::ServerError("disk full");
                           })
                   .ok());
  EXPECT_EQ(BallotMicros(r.store->Prepare(key, Ballot(600))->committed->ballot),
            260);
}

TEST(PaxosMessages, HandOverPayloadsRoundTripAndRefuseMalformedOnes) {
  PaxosExportRequest request{
      {Uuid::Random(), {Token{-5}, Token{9}}}, "after", 500};
  const std::string rb = EncodePaxosExportRequest(request);
  auto r2 = DecodePaxosExportRequest(rb);
  ASSERT_TRUE(r2.ok()) << r2.status().ToString();
  EXPECT_EQ(r2->range.table_id, request.range.table_id);
  EXPECT_EQ(r2->range.tokens.start, Token{-5});
  EXPECT_EQ(r2->range.tokens.end, Token{9});
  EXPECT_EQ(r2->after, "after");
  EXPECT_EQ(r2->limit, 500u);
  for (size_t n = 0; n < rb.size(); ++n) {
    EXPECT_FALSE(DecodePaxosExportRequest(rb.substr(0, n)).ok()) << n;
  }
  request.limit = 0;  // a page of nothing would never end
  EXPECT_FALSE(
      DecodePaxosExportRequest(EncodePaxosExportRequest(request)).ok());

  PaxosExport answer;
  answer.complete = true;
  answer.entries.push_back({"k1", {}});
  answer.entries.push_back(
      {"k2", PaxosState{Ballot(3), PaxosProposal{Ballot(2), {"u"}},
                        PaxosProposal{Ballot(1), {}}}});
  const std::string ab = EncodePaxosExport(answer);
  auto a2 = DecodePaxosExport(ab);
  ASSERT_TRUE(a2.ok());
  ASSERT_EQ(a2->entries.size(), 2u);
  EXPECT_TRUE(a2->complete);
  EXPECT_FALSE(a2->entries[0].state.promised);
  EXPECT_EQ(a2->entries[1].partition_key, "k2");
  EXPECT_EQ(BallotMicros(*a2->entries[1].state.promised), 3);
  EXPECT_EQ(a2->entries[1].state.accepted->updates,
            std::vector<std::string>{"u"});
  EXPECT_TRUE(a2->entries[1].state.committed->updates.empty());
  for (size_t n = 0; n < ab.size(); ++n) {
    EXPECT_FALSE(DecodePaxosExport(ab.substr(0, n)).ok()) << n;
  }
  EXPECT_FALSE(DecodePaxosExport(ab + "x").ok());

  const Uuid table = Uuid::Random();
  const std::string ib = EncodePaxosImport(table, answer.entries);
  Uuid t2;
  std::vector<PaxosStateEntry> e2;
  ASSERT_TRUE(DecodePaxosImport(ib, &t2, &e2).ok());
  EXPECT_EQ(t2, table);
  EXPECT_EQ(e2.size(), 2u);
  for (size_t n = 0; n < ib.size(); ++n) {
    EXPECT_FALSE(DecodePaxosImport(ib.substr(0, n), &t2, &e2).ok()) << n;
  }
  // An empty partition key is no partition.
  EXPECT_FALSE(
      DecodePaxosImport(EncodePaxosImport(table, {{"", {}}}), &t2, &e2).ok());
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
