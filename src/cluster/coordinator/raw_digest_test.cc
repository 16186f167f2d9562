// RawDigest: equal answers have equal digests, any difference in content
// changes it, and the digest of an encoding is that of its partition.
#include "cluster/coordinator/raw_digest.h"

#include <gtest/gtest.h>

#include "storage/raw_partition_codec.h"

namespace keywise::cluster {
namespace {

RawPartition Answer(int64_t timestamp, const std::string& value) {
  auto table = std::make_shared<TableDef>();
  table->id = *Uuid::Parse("5a1ad000-0000-4000-8000-000000000002");
  RawPartition p = EmptyRawPartition(table, "key", false);
  p.header.cells.push_back(LiveCell(ColumnId{3}, value, timestamp));
  return p;
}

TEST(RawDigest, EqualAnswersAgreeAndAnyDifferenceShows) {
  const std::string digest = RawDigest(Answer(10, "a"));
  EXPECT_EQ(digest.size(), kRawDigestBytes);
  EXPECT_EQ(RawDigest(Answer(10, "a")), digest);
  EXPECT_NE(RawDigest(Answer(11, "a")), digest);  // a newer write
  EXPECT_NE(RawDigest(Answer(10, "b")), digest);
  RawPartition incomplete = Answer(10, "a");
  incomplete.complete = false;
  incomplete.last = {"x"};
  EXPECT_NE(RawDigest(incomplete), digest);
  std::string encoded;
  EncodeRawPartition(Answer(10, "a"), &encoded);
  EXPECT_EQ(DigestOfEncoded(encoded), digest);
}

}  // namespace
}  // namespace keywise::cluster
