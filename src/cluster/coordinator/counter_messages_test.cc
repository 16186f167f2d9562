// The counter leader verb's codecs: round trips, statuses with and
// without replica counts, and refusal of truncated or foreign bytes.
#include "cluster/coordinator/counter_messages.h"

#include <gtest/gtest.h>

namespace keywise::cluster {
namespace {

TEST(CounterMessages, RequestRoundTripAndMalformed) {
  CounterLeaderRequest request;
  request.consistency = Consistency::kLocalQuorum;
  request.update = std::string("\x01\x02\x00update", 9);
  const std::string bytes = EncodeCounterLeaderRequest(request);
  Result<CounterLeaderRequest> decoded = DecodeCounterLeaderRequest(bytes);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->consistency, Consistency::kLocalQuorum);
  EXPECT_EQ(decoded->update, request.update);
  EXPECT_FALSE(DecodeCounterLeaderRequest(bytes.substr(0, 1)).ok());
  EXPECT_FALSE(DecodeCounterLeaderRequest(std::string("\x00\x63", 2)).ok());
}

TEST(CounterMessages, OutcomeRoundTrips) {
  EXPECT_TRUE(EncodeCounterOutcome(Status::OK()).empty());
  EXPECT_TRUE(DecodeCounterOutcome("", Consistency::kQuorum).ok());

  ReplicaCounts counts;
  counts.block_for = 2;
  counts.received = 1;
  const Status timeout = Status::WithCounts(
      ErrorCode::kWriteTimeout, "Operation timed out - received only 1 responses.",
      counts);
  const Status back =
      DecodeCounterOutcome(EncodeCounterOutcome(timeout), Consistency::kQuorum);
  EXPECT_EQ(back, timeout);
  ASSERT_NE(back.counts(), nullptr);
  EXPECT_EQ(back.counts()->block_for, 2);
  EXPECT_EQ(back.counts()->received, 1);
  EXPECT_EQ(back.counts()->consistency, Consistency::kQuorum);
  EXPECT_EQ(back.counts()->write_type, "COUNTER");

  const Status invalid = Status::Invalid("Invalid null value for counter increment");
  const Status again =
      DecodeCounterOutcome(EncodeCounterOutcome(invalid), Consistency::kOne);
  EXPECT_EQ(again, invalid);
  EXPECT_EQ(again.counts(), nullptr);
}

TEST(CounterMessages, MalformedOrForeignOutcomesAreServerErrors) {
  ReplicaCounts counts;
  counts.block_for = 3;
  const std::string bytes = EncodeCounterOutcome(
      Status::WithCounts(ErrorCode::kUnavailable, "Cannot achieve", counts));
  for (size_t n = 1; n < bytes.size(); ++n) {
    const Status st = DecodeCounterOutcome(bytes.substr(0, n), Consistency::kAll);
    EXPECT_EQ(st.code(), ErrorCode::kServerError) << n;
  }
  EXPECT_EQ(DecodeCounterOutcome(bytes + "x", Consistency::kAll).code(),
            ErrorCode::kServerError);
  // A code no write fails with (here a protocol error) is not passed on.
  const Status foreign = DecodeCounterOutcome(
      EncodeCounterOutcome(Status(ErrorCode::kProtocolError, "no")),
      Consistency::kOne);
  EXPECT_EQ(foreign.code(), ErrorCode::kServerError);
}

}  // namespace
}  // namespace keywise::cluster
