#include "protocol/node_event.h"

#include <gtest/gtest.h>

#include "protocol/body_reader.h"
#include "protocol/schema_change.h"

namespace keywise::protocol {
namespace {

TEST(NodeEvent, EncodesTypeChangeAndInet) {
  NodeEvent event{std::string(kStatusChangeEvent), std::string(kNodeDown),
                  "127.0.0.3", 9042};
  Result<std::string> body = EncodeNodeEvent(event);
  ASSERT_TRUE(body.ok()) << body.status().ToString();
  BodyReader in(*body);
  std::string type, change;
  Inet inet;
  ASSERT_TRUE(in.ReadString(&type).ok());
  ASSERT_TRUE(in.ReadString(&change).ok());
  ASSERT_TRUE(in.ReadInet(&inet).ok());
  EXPECT_TRUE(in.empty());
  EXPECT_EQ(type, "STATUS_CHANGE");
  EXPECT_EQ(change, "DOWN");
  EXPECT_EQ(inet.addr.address, std::string("\x7f\0\0\x03", 4));
  EXPECT_EQ(inet.port, 9042);
}

TEST(NodeEvent, RejectsANameForAnAddress) {
  NodeEvent event{std::string(kTopologyChangeEvent), std::string(kNewNode),
                  "localhost", 9042};
  EXPECT_FALSE(EncodeNodeEvent(event).ok());
}

}  // namespace
}  // namespace keywise::protocol
