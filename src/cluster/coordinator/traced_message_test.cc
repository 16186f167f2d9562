#include "cluster/coordinator/traced_message.h"

#include <gtest/gtest.h>

#include "cluster/coordinator/verbs.h"

namespace keywise::cluster {
namespace {

TEST(TracedMessage, RoundTrip) {
  const Uuid session = Uuid::TimeBased(1700000000000000);
  const std::string inner("\x01\x02payload\x00", 10);
  const std::string bytes =
      EncodeTracedRequest(session, "127.0.0.1", kReadRawVerb, inner);
  // 16-byte id | varint 9 "127.0.0.1" | u16 BE 2 | payload.
  EXPECT_EQ(bytes.substr(0, 16), std::string(session.bytes_view()));
  EXPECT_EQ(bytes.substr(16, 10), std::string("\x09" "127.0.0.1"));
  EXPECT_EQ(bytes.substr(26, 2), std::string("\x00\x02", 2));
  EXPECT_EQ(bytes.substr(28), inner);
  Result<TracedRequest> r = DecodeTracedRequest(bytes);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->session_id, session);
  EXPECT_EQ(r->coordinator, "127.0.0.1");
  EXPECT_EQ(r->verb, kReadRawVerb);
  EXPECT_EQ(r->payload, inner);
  // An empty inner payload is fine (a verb may have none).
  r = DecodeTracedRequest(
      EncodeTracedRequest(session, "10.0.0.7", kMutationVerb, ""));
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->payload.empty());
}

TEST(TracedMessage, MalformedOrUntracedVerbsAreRefused) {
  const Uuid session = Uuid::Random();
  const std::string good =
      EncodeTracedRequest(session, "127.0.0.1", kReadDigestVerb, "x");
  for (size_t cut = 0; cut < 28; ++cut) {
    EXPECT_FALSE(DecodeTracedRequest(good.substr(0, cut)).ok()) << cut;
  }
  // Only a request's own work is traced: not a truncation, not itself.
  EXPECT_FALSE(DecodeTracedRequest(EncodeTracedRequest(
                                       session, "a", kTruncateVerb, ""))
                   .ok());
  EXPECT_FALSE(
      DecodeTracedRequest(EncodeTracedRequest(session, "a", kTracedVerb, ""))
          .ok());
  EXPECT_EQ(DecodeTracedRequest("short").status().message(),
            "Malformed traced request");
}

TEST(TracedMessage, TracedVerbsAndNames) {
  for (Verb v : {kReadRawVerb, kReadDigestVerb, kScanRawVerb, kRepairVerb,
                 kMutationVerb}) {
    EXPECT_TRUE(IsTracedVerb(v)) << VerbValue(v);
  }
  EXPECT_FALSE(IsTracedVerb(kStreamVerb));
  EXPECT_EQ(VerbName(kReadDigestVerb), "READ_DIGEST");
  EXPECT_EQ(VerbName(kMutationVerb), "MUTATION");
  EXPECT_EQ(VerbName(kFlushVerb), "VERB 11");
}

}  // namespace
}  // namespace keywise::cluster
