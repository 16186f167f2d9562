#include "storage/cell.h"

#include <gtest/gtest.h>

namespace keywise {
namespace {

Cell Live(int64_t ts, std::string v) {
  Cell c;
  c.timestamp = ts;
  c.value = std::move(v);
  return c;
}
Cell Expiring(int64_t ts, std::string v, int32_t ttl, int32_t expiry) {
  Cell c = Live(ts, std::move(v));
  c.ttl = ttl;
  c.local_deletion_time = expiry;
  return c;
}
Cell Tomb(int64_t ts, int32_t ldt) {
  Cell c;
  c.timestamp = ts;
  c.tombstone = true;
  c.local_deletion_time = ldt;
  return c;
}

TEST(CellReconcile, HigherTimestampWins) {
  EXPECT_TRUE(CellWins(Live(2, "a"), Live(1, "z")));
  EXPECT_FALSE(CellWins(Live(1, "z"), Live(2, "a")));
  EXPECT_TRUE(CellWins(Live(2, "a"), Tomb(1, 100)));
  EXPECT_TRUE(CellWins(Tomb(2, 1), Live(1, "a")));
}

TEST(CellReconcile, TombstoneBeatsLiveOnEqualTimestamp) {
  EXPECT_TRUE(CellWins(Tomb(5, 1), Live(5, "zzz")));
  EXPECT_FALSE(CellWins(Live(5, "zzz"), Tomb(5, 1)));
}

TEST(CellReconcile, ExpiringBeatsPlainLiveOnEqualTimestamp) {
  // CASSANDRA-14592: expiring cells reconcile like future tombstones.
  EXPECT_TRUE(CellWins(Expiring(5, "a", 10, 100), Live(5, "zzz")));
  EXPECT_FALSE(CellWins(Live(5, "zzz"), Expiring(5, "a", 10, 100)));
}

TEST(CellReconcile, TombstoneBeatsExpiringOnEqualTimestamp) {
  EXPECT_TRUE(CellWins(Tomb(5, 1), Expiring(5, "a", 10, 100)));
  EXPECT_FALSE(CellWins(Expiring(5, "a", 10, 100), Tomb(5, 1)));
}

TEST(CellReconcile, LaterDeletionTimeWinsBetweenSameKinds) {
  EXPECT_TRUE(CellWins(Expiring(5, "a", 10, 200), Expiring(5, "z", 10, 100)));
  EXPECT_TRUE(CellWins(Tomb(5, 9), Tomb(5, 3)));
}

TEST(CellReconcile, LargerValueWinsOnFullTie) {
  EXPECT_TRUE(CellWins(Live(5, "b"), Live(5, "a")));
  EXPECT_FALSE(CellWins(Live(5, "a"), Live(5, "b")));
  // Unsigned byte order: 0x80 > 0x7f.
  EXPECT_TRUE(CellWins(Live(5, "\x80"), Live(5, "\x7f")));
  EXPECT_TRUE(CellWins(Live(5, "ab"), Live(5, "a")));
}

TEST(LivenessInfo, Supersedes) {
  LivenessInfo a{10, 0, kNoDeletionTime}, b{9, 0, kNoDeletionTime};
  EXPECT_TRUE(a.Supersedes(b));
  LivenessInfo exp{10, 5, 100};
  EXPECT_TRUE(exp.Supersedes(a));
  EXPECT_FALSE(a.Supersedes(exp));
  LivenessInfo exp2{10, 5, 200};
  EXPECT_TRUE(exp2.Supersedes(exp));
}

TEST(LivenessInfo, AnExpiredMarkerIsDeadAndBeatsEveryMarkerOfItsTimestamp) {
  const LivenessInfo dead = LivenessInfo::Expired(10, 50);
  EXPECT_TRUE(dead.IsExpired());
  EXPECT_FALSE(dead.IsLive(0));  // dead even before the time it was written
  EXPECT_FALSE(dead.IsLive(49));
  for (const LivenessInfo& live :
       {LivenessInfo{10, 0, kNoDeletionTime}, LivenessInfo{10, 5, 100},
        LivenessInfo{10, 1000000, 2000000000}}) {
    EXPECT_TRUE(dead.Supersedes(live));
    EXPECT_FALSE(live.Supersedes(dead));
  }
  const LivenessInfo newer{11, 0, kNoDeletionTime};
  EXPECT_TRUE(newer.Supersedes(dead));
  EXPECT_FALSE(dead.Supersedes(newer));
}

TEST(DeletionTime, DeletesAtOrBelowItsTimestamp) {
  DeletionTime d{10, 1};
  EXPECT_TRUE(d.Deletes(10));
  EXPECT_TRUE(d.Deletes(-5));
  EXPECT_FALSE(d.Deletes(11));
  EXPECT_FALSE(DeletionTime().Deletes(0));
}

}  // namespace
}  // namespace keywise
