#include <gtest/gtest.h>

#include <random>

#include "protocol/body_reader.h"
#include "protocol/body_writer.h"

namespace keywise::protocol {
namespace {

struct Sample {
  uint8_t byte = 0xAB;
  uint16_t short_v = 0xBEEF;
  int32_t int_v = -123456;
  int64_t long_v = -0x0102030405060708;
  std::string string_v = "hello";
  std::string long_string = std::string(300, 'L');
  Uuid uuid = Uuid(std::array<uint8_t, 16>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
                                           12, 13, 14, 15, 16});
  std::vector<std::string> list = {"a", "", "ccc"};
  std::string bytes_v = std::string("\0\1\2", 3);
  std::string short_bytes = "sb";
  Inet inet = {InetAddr{std::string("\x7f\0\0\x01", 4)}, 9042};
  InetAddr inet6 = {std::string(16, '\x20')};
  Consistency consistency = Consistency::kLocalQuorum;
  StringMap string_map = {{"CQL_VERSION", "3.0.0"}, {"COMPRESSION", "lz4"}};
  StringMultimap multimap = {{"COMPRESSION", {"lz4", "snappy"}},
                             {"PROTOCOL_VERSIONS", {"3/v3", "4/v4", "5/v5"}}};
  BytesMap bytes_map = {{"k1", std::string("v1")}, {"k2", std::nullopt}};
};

std::string EncodeSample(const Sample& s) {
  std::string out;
  BodyWriter w(&out);
  w.WriteByte(s.byte);
  w.WriteShort(s.short_v);
  w.WriteInt(s.int_v);
  w.WriteLong(s.long_v);
  EXPECT_TRUE(w.WriteString(s.string_v).ok());
  EXPECT_TRUE(w.WriteLongString(s.long_string).ok());
  w.WriteUuid(s.uuid);
  EXPECT_TRUE(w.WriteStringList(s.list).ok());
  EXPECT_TRUE(w.WriteBytes(std::string_view(s.bytes_v)).ok());
  EXPECT_TRUE(w.WriteBytes(std::nullopt).ok());
  EXPECT_TRUE(w.WriteValue({Value::Kind::kSet, "val"}).ok());
  EXPECT_TRUE(w.WriteValue({Value::Kind::kNull, {}}).ok());
  EXPECT_TRUE(w.WriteValue({Value::Kind::kUnset, {}}).ok());
  EXPECT_TRUE(w.WriteShortBytes(s.short_bytes).ok());
  EXPECT_TRUE(w.WriteInet(s.inet).ok());
  EXPECT_TRUE(w.WriteInetAddr(s.inet6).ok());
  w.WriteConsistency(s.consistency);
  EXPECT_TRUE(w.WriteStringMap(s.string_map).ok());
  EXPECT_TRUE(w.WriteStringMultimap(s.multimap).ok());
  EXPECT_TRUE(w.WriteBytesMap(s.bytes_map).ok());
  return out;
}

// Reads back what EncodeSample wrote; returns the first error.
Status DecodeSample(std::string_view body, Sample* s) {
  BodyReader r(body);
  KW_RETURN_IF_ERROR(r.ReadByte(&s->byte));
  KW_RETURN_IF_ERROR(r.ReadShort(&s->short_v));
  KW_RETURN_IF_ERROR(r.ReadInt(&s->int_v));
  KW_RETURN_IF_ERROR(r.ReadLong(&s->long_v));
  std::string_view sv;
  KW_RETURN_IF_ERROR(r.ReadString(&sv));
  s->string_v = sv;
  KW_RETURN_IF_ERROR(r.ReadLongString(&sv));
  s->long_string = sv;
  KW_RETURN_IF_ERROR(r.ReadUuid(&s->uuid));
  KW_RETURN_IF_ERROR(r.ReadStringList(&s->list));
  std::optional<std::string_view> bytes, null_bytes;
  KW_RETURN_IF_ERROR(r.ReadBytes(&bytes));
  KW_RETURN_IF_ERROR(r.ReadBytes(&null_bytes));
  EXPECT_TRUE(bytes.has_value());
  EXPECT_FALSE(null_bytes.has_value());
  if (bytes) s->bytes_v = *bytes;
  Value set, null, unset;
  KW_RETURN_IF_ERROR(r.ReadValue(&set));
  KW_RETURN_IF_ERROR(r.ReadValue(&null));
  KW_RETURN_IF_ERROR(r.ReadValue(&unset));
  EXPECT_EQ(set, (Value{Value::Kind::kSet, "val"}));
  EXPECT_EQ(null.kind, Value::Kind::kNull);
  EXPECT_EQ(unset.kind, Value::Kind::kUnset);
  KW_RETURN_IF_ERROR(r.ReadShortBytes(&sv));
  s->short_bytes = sv;
  KW_RETURN_IF_ERROR(r.ReadInet(&s->inet));
  KW_RETURN_IF_ERROR(r.ReadInetAddr(&s->inet6));
  KW_RETURN_IF_ERROR(r.ReadConsistency(&s->consistency));
  KW_RETURN_IF_ERROR(r.ReadStringMap(&s->string_map));
  KW_RETURN_IF_ERROR(r.ReadStringMultimap(&s->multimap));
  KW_RETURN_IF_ERROR(r.ReadBytesMap(&s->bytes_map));
  EXPECT_TRUE(r.empty());
  return Status::OK();
}

void ExpectSameSample(const Sample& a, const Sample& b) {
  EXPECT_EQ(a.byte, b.byte);
  EXPECT_EQ(a.short_v, b.short_v);
  EXPECT_EQ(a.int_v, b.int_v);
  EXPECT_EQ(a.long_v, b.long_v);
  EXPECT_EQ(a.string_v, b.string_v);
  EXPECT_EQ(a.long_string, b.long_string);
  EXPECT_EQ(a.uuid.bytes_view(), b.uuid.bytes_view());
  EXPECT_EQ(a.list, b.list);
  EXPECT_EQ(a.bytes_v, b.bytes_v);
  EXPECT_EQ(a.short_bytes, b.short_bytes);
  EXPECT_EQ(a.inet, b.inet);
  EXPECT_EQ(a.inet6, b.inet6);
  EXPECT_EQ(a.consistency, b.consistency);
  EXPECT_EQ(a.string_map, b.string_map);
  EXPECT_EQ(a.multimap, b.multimap);
  EXPECT_EQ(a.bytes_map, b.bytes_map);
}

TEST(BodyCodec, RoundTrip) {
  Sample in;
  std::string body = EncodeSample(in);
  Sample out;
  out.byte = 0;
  out.string_map.clear();
  ASSERT_TRUE(DecodeSample(body, &out).ok());
  ExpectSameSample(in, out);
}

TEST(BodyCodec, EveryTruncationRejected) {
  std::string body = EncodeSample(Sample{});
  for (size_t n = 0; n < body.size(); n++) {
    Sample s;
    Status st = DecodeSample(std::string_view(body).substr(0, n), &s);
    ASSERT_FALSE(st.ok()) << n;
    EXPECT_EQ(st.code(), ErrorCode::kProtocolError);
  }
}

TEST(BodyCodec, ExactBytes) {
  std::string out;
  BodyWriter w(&out);
  ASSERT_TRUE(w.WriteString("ab").ok());
  w.WriteInt(-1);
  w.WriteConsistency(Consistency::kLocalOne);
  ASSERT_TRUE(w.WriteValue({Value::Kind::kUnset, {}}).ok());
  EXPECT_EQ(out,
            std::string("\0\2ab\xff\xff\xff\xff\0\x0a\xff\xff\xff\xfe", 14));
}

TEST(BodyCodec, MalformedValuesRejected) {
  Value v;
  EXPECT_FALSE(
      BodyReader(std::string("\xff\xff\xff\xfd", 4)).ReadValue(&v).ok());
  std::string_view sv;
  EXPECT_FALSE(
      BodyReader(std::string("\xff\xff\xff\xff", 4)).ReadLongString(&sv).ok());
  InetAddr addr;
  EXPECT_FALSE(
      BodyReader(std::string("\x05\1\2\3\4\5", 6)).ReadInetAddr(&addr).ok());
  Consistency c;
  EXPECT_FALSE(BodyReader(std::string("\0\x0b", 2)).ReadConsistency(&c).ok());
  // [bytes] treats any negative length as null.
  std::optional<std::string_view> b = "x";
  ASSERT_TRUE(
      BodyReader(std::string("\xff\xff\xff\xfe", 4)).ReadBytes(&b).ok());
  EXPECT_FALSE(b.has_value());
}

// What Cassandra 4 (CBUtil.readString) answers; the hex and lengths below
// were taken from Java 17's UTF-8 decoder on the same bytes.
TEST(BodyCodec, StringsMustBeUtf8) {
  auto read_string = [](std::string_view text) {
    std::string body;
    EXPECT_TRUE(BodyWriter(&body).WriteString(text).ok());
    std::string_view sv;
    return BodyReader(body).ReadString(&sv);
  };
  auto read_long = [](std::string_view text) {
    std::string body;
    EXPECT_TRUE(BodyWriter(&body).WriteLongString(text).ok());
    std::string_view sv;
    return BodyReader(body).ReadLongString(&sv);
  };
  EXPECT_TRUE(read_string("caf\xc3\xa9 \xf0\x9f\x98\x80").ok());
  EXPECT_TRUE(read_long("\xed\x9f\xbf \xf0\x90\x80\x80").ok());
  Status st = read_long("SELECT \xe2\x82 k");
  EXPECT_EQ(st.code(), ErrorCode::kProtocolError);
  EXPECT_EQ(st.message(),
            "Cannot decode string as UTF8: 'e282206b'; "
            "java.nio.charset.MalformedInputException: Input length = 2");
  const std::pair<std::string, std::string> cases[] = {
      {"\x80", "'80'; java.nio.charset.MalformedInputException: Input length = 1"},
      {"ab\xe2", "'e2'; java.nio.charset.MalformedInputException: Input length = 1"},
      {"\xc0\xaf", "'c0af'; java.nio.charset.MalformedInputException: Input length = 1"},
      {"\xe0\x80\xaf", "'e080af'; java.nio.charset.MalformedInputException: Input length = 1"},
      {"\xf0\x9f\x98", "'f09f98'; java.nio.charset.MalformedInputException: Input length = 3"},
      {"\xf4\x90\x80\x80", "'f4908080'; java.nio.charset.MalformedInputException: Input length = 1"},
      {"\xf5\x80", "'f580'; java.nio.charset.MalformedInputException: Input length = 1"},
      // Java measures surrogates (ED A0..BF) as three-byte sequences.
      {"\xed\xa0\x80", "'eda080'; java.nio.charset.MalformedInputException: Input length = 3"},
      {"\xed\xa0", "'eda0'; java.nio.charset.MalformedInputException: Input length = 2"},
      {"\xed\xbf" "A", "'edbf41'; java.nio.charset.MalformedInputException: Input length = 2"},
      {"\xed", "'ed'; java.nio.charset.MalformedInputException: Input length = 1"},
  };
  for (const auto& [bytes, tail] : cases) {
    st = read_string(bytes);
    EXPECT_EQ(st.code(), ErrorCode::kProtocolError);
    EXPECT_EQ(st.message(), "Cannot decode string as UTF8: " + tail);
    EXPECT_EQ(read_long(bytes).message(), st.message());
  }
  // Lists and maps are made of [string]s; [bytes] and [short bytes] are not.
  std::string body;
  BodyWriter w(&body);
  ASSERT_TRUE(w.WriteStringMap({{"CQL_VERSION", "3.0.\xff"}}).ok());
  StringMap map;
  EXPECT_EQ(BodyReader(body).ReadStringMap(&map).code(),
            ErrorCode::kProtocolError);
  body.clear();
  ASSERT_TRUE(w.WriteShortBytes("\xff\xfe").ok());
  std::string_view sv;
  EXPECT_TRUE(BodyReader(body).ReadShortBytes(&sv).ok());
}

TEST(BodyCodec, NotUtf8ErrorFitsAString) {
  const std::string bytes = "\xff" + std::string(100000, 'a');
  const std::string message = NotUtf8Error(bytes).message();
  EXPECT_LT(message.size(), 65535u);
  EXPECT_NE(message.find("'ff6161"), std::string::npos);
}

TEST(BodyCodec, WriterRejectsOversize) {
  std::string out;
  BodyWriter w(&out);
  EXPECT_FALSE(w.WriteString(std::string(70000, 'x')).ok());
  EXPECT_FALSE(w.WriteShortBytes(std::string(70000, 'x')).ok());
  EXPECT_FALSE(w.WriteStringList({"ok", std::string(70000, 'x')}).ok());
  EXPECT_FALSE(w.WriteStringMap({{"k", std::string(70000, 'x')}}).ok());
  EXPECT_FALSE(w.WriteInetAddr(InetAddr{"abc"}).ok());
  EXPECT_TRUE(out.empty());
}

TEST(BodyCodec, RandomBytesNeverCrash) {
  std::mt19937 rng(99);
  for (int i = 0; i < 20000; i++) {
    std::string bytes(rng() % 40, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    if (i % 2 == 0 && bytes.size() > 2) bytes[0] = 0;  // small counts
    Sample s;
    (void)DecodeSample(bytes, &s);
  }
}

}  // namespace
}  // namespace keywise::protocol
