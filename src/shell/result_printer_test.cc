#include "shell/result_printer.h"

#include <gtest/gtest.h>

#include "schema/value_codec.h"

namespace keywise::shell {
namespace {

std::vector<client::ColumnSpec> Columns() {
  return {{"ks", "t", "k", CqlType::Of(TypeKind::kInt)},
          {"ks", "t", "name", CqlType::Of(TypeKind::kVarchar)},
          {"ks", "t", "tags", *CqlType::Parse("set<text>")}};
}

TEST(RenderRows, CqlshTable) {
  std::vector<client::Row> rows = {
      {EncodeInt(1), EncodeText("alice"), EncodeSet({EncodeText("a"), EncodeText("b")})},
      {EncodeInt(100), std::nullopt, std::nullopt}};
  EXPECT_EQ(RenderRows(Columns(), rows, true, false, 0),
            " k   | name  | tags\n"
            "-----+-------+------------\n"
            "   1 | alice | {'a', 'b'}\n"
            " 100 |  null |       null\n");
  // Without header (later pages when not a tty).
  EXPECT_EQ(RenderRows(Columns(), {rows[1]}, false, false, 0),
            " 100 | null | null\n");
}

TEST(RenderRows, EmptyResultPrintsHeaderAndBlank) {
  EXPECT_EQ(RenderRows(Columns(), {}, true, false, 0),
            " k | name | tags\n"
            "---+------+------\n"
            "\n");
}

TEST(RenderRows, Expanded) {
  std::vector<client::Row> rows = {{EncodeInt(1), EncodeText("alice"), std::nullopt}};
  EXPECT_EQ(RenderRows(Columns(), rows, true, true, 4),
            "@ Row 5\n"
            "------+-------\n"
            " k    | 1\n"
            " name | alice\n"
            " tags | null\n"
            "\n");
}

client::Reply ServerReply(ErrorCode code, std::string message) {
  client::Reply r;
  r.source = client::ReplySource::kServer;
  r.error.code = code;
  r.error.message = std::move(message);
  return r;
}

TEST(FormatReplyError, CqlshWording) {
  EXPECT_EQ(FormatReplyError(ServerReply(ErrorCode::kInvalid, "unconfigured table t"), "h:1"),
            "InvalidRequest: Error from server: code=2200 [Invalid query] "
            "message=\"unconfigured table t\"");
  EXPECT_EQ(FormatReplyError(ServerReply(ErrorCode::kSyntaxError,
                                         "line 1:0 no viable alternative at input 'x'"),
                             "h:1"),
            "SyntaxException: line 1:0 no viable alternative at input 'x'");
  client::Reply exists = ServerReply(ErrorCode::kAlreadyExists, "m");
  exists.error.keyspace = "ks";
  exists.error.table = "t";
  EXPECT_EQ(FormatReplyError(exists, "h:1"), "AlreadyExists: Table 'ks.t' already exists");
  exists.error.table = "";
  EXPECT_EQ(FormatReplyError(exists, "h:1"), "AlreadyExists: Keyspace 'ks' already exists");
  EXPECT_EQ(FormatReplyError(ServerReply(ErrorCode::kConfigError, "bad"), "h:1"),
            "ConfigurationException: bad");
  EXPECT_EQ(FormatReplyError(client::Reply::Failure(client::ReplySource::kTimeout, Status()),
                             "127.0.0.1:9042"),
            "OperationTimedOut: errors={'127.0.0.1:9042': 'Client request timeout. See "
            "Session.execute[_async](timeout)'}, last_host=127.0.0.1:9042");
}

}  // namespace
}  // namespace keywise::shell
