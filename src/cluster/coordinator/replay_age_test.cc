#include "cluster/coordinator/replay_age.h"

#include <gtest/gtest.h>

namespace keywise::cluster {
namespace {

TEST(WithinGcGrace, StrictlyYoungerThanGcGraceSeconds) {
  const int64_t written = 1'000'000;
  EXPECT_TRUE(WithinGcGrace(written, written, 10));
  EXPECT_TRUE(WithinGcGrace(written, written + 9'999, 10));
  EXPECT_FALSE(WithinGcGrace(written, written + 10'000, 10));
  // gc_grace_seconds = 0: nothing kept is ever replayed.
  EXPECT_FALSE(WithinGcGrace(written, written, 0));
  // Cassandra's default, ten days, does not overflow.
  EXPECT_TRUE(WithinGcGrace(written, written + 863'999'000, 864000));
}

}  // namespace
}  // namespace keywise::cluster
