#include "server/response_prefix.h"

#include <gtest/gtest.h>

#include "protocol/body_reader.h"
#include "protocol/frame.h"

namespace keywise::server {
namespace {

const Uuid kId = *Uuid::Parse("8a88b3b6-eac2-11f1-89d9-6f0d686131c4");

// A [bytes map] with one entry {"k": "v"}.
const std::string kPayload = std::string("\x00\x01\x00\x01k\x00\x00\x00\x01v", 10);

TEST(ResponsePrefix, NothingToSay) {
  std::string out;
  EXPECT_EQ(AppendResponsePrefix(4, ResponsePrefix{}, &out), 0);
  EXPECT_TRUE(out.empty());
}

TEST(ResponsePrefix, TracingIdAloneInEveryVersion) {
  for (uint8_t version : {3, 4, 5}) {
    std::string out = "x";
    ResponsePrefix p;
    p.tracing_id = kId;
    EXPECT_EQ(AppendResponsePrefix(version, p, &out), protocol::kFlagTracing);
    EXPECT_EQ(out, "x" + std::string(kId.bytes_view()));
  }
}

// v4 and v5: [tracing id][warnings][custom payload], each with its flag.
TEST(ResponsePrefix, OrderWithWarningsAndPayload) {
  for (uint8_t version : {4, 5}) {
    ResponsePrefix p;
    p.tracing_id = kId;
    p.warnings = {"first", "second"};
    p.custom_payload = kPayload;
    std::string out;
    EXPECT_EQ(AppendResponsePrefix(version, p, &out),
              protocol::kFlagTracing | protocol::kFlagWarning |
                  protocol::kFlagCustomPayload);
    protocol::BodyReader in(out);
    Uuid id;
    ASSERT_TRUE(in.ReadUuid(&id).ok());
    EXPECT_EQ(id, kId);
    std::vector<std::string> warnings;
    ASSERT_TRUE(in.ReadStringList(&warnings).ok());
    EXPECT_EQ(warnings, p.warnings);
    protocol::BytesMap payload;
    ASSERT_TRUE(in.ReadBytesMap(&payload).ok());
    EXPECT_EQ(payload.at("k"), "v");
    EXPECT_EQ(in.remaining(), 0u);
  }
}

TEST(ResponsePrefix, WarningsWithoutTracing) {
  ResponsePrefix p;
  p.warnings = {"w"};
  std::string out;
  EXPECT_EQ(AppendResponsePrefix(4, p, &out), protocol::kFlagWarning);
  EXPECT_EQ(out, std::string("\x00\x01\x00\x01w", 5));
}

// v3 has neither warnings nor custom payloads: only the tracing id goes.
TEST(ResponsePrefix, V3CarriesOnlyTheTracingId) {
  ResponsePrefix p;
  p.tracing_id = kId;
  p.warnings = {"w"};
  p.custom_payload = kPayload;
  std::string out;
  EXPECT_EQ(AppendResponsePrefix(3, p, &out), protocol::kFlagTracing);
  EXPECT_EQ(out, std::string(kId.bytes_view()));
  p.tracing_id.reset();
  out.clear();
  EXPECT_EQ(AppendResponsePrefix(3, p, &out), 0);
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace keywise::server
