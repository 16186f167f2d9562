#include "common/utf8.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace keywise {
namespace {

using namespace std::string_literals;

TEST(Utf8, DecodesEachLength) {
  EXPECT_EQ(DecodeUtf8Char("a").code_point, U'a');
  Utf8Char c = DecodeUtf8Char("\xc3\x97rest");  // ×
  EXPECT_TRUE(c.valid);
  EXPECT_EQ(c.code_point, U'\u00d7');
  EXPECT_EQ(c.length, 2u);
  c = DecodeUtf8Char("\xe2\x82\xac");  // €
  EXPECT_EQ(c.code_point, U'\u20ac');
  EXPECT_EQ(c.length, 3u);
  c = DecodeUtf8Char("\xf0\x9f\x98\x80");  // 😀
  EXPECT_EQ(c.code_point, U'\U0001f600');
  EXPECT_EQ(c.length, 4u);
  c = DecodeUtf8Char("\xf4\x8f\xbf\xbf");
  EXPECT_EQ(c.code_point, U'\U0010ffff');
  EXPECT_EQ(DecodeUtf8Char("").length, 0u);
  EXPECT_TRUE(DecodeUtf8Char("\0"s).valid);
}

TEST(Utf8, IllFormedSequencesAreTheirMaximalSubpart) {
  struct Case {
    std::string bytes;
    size_t length;
  };
  const Case cases[] = {
      {"\x80", 1},              // lone continuation
      {"\xc0\xaf", 1},          // overlong lead
      {"\xc1\xbf", 1},          // overlong lead
      {"\xc3", 1},              // truncated
      {"\xc3" "A", 1},          // not a continuation
      {"\xe2\x82", 2},          // truncated after two
      {"\xe2\x82" "A", 2},      //
      {"\xe0\x80\xaf", 1},      // overlong: E0 needs A0..BF
      {"\xed\xa0\x80", 1},      // surrogate: ED needs 80..9F
      {"\xf0\x8f\xbf\xbf", 1},  // overlong: F0 needs 90..BF
      {"\xf0\x9f\x98", 3},      // truncated after three
      {"\xf4\x90\x80\x80", 1},  // above U+10FFFF
      {"\xf5\x80\x80\x80", 1},  // F5..FF never lead
      {"\xff", 1},
  };
  for (const Case& c : cases) {
    Utf8Char d = DecodeUtf8Char(c.bytes);
    EXPECT_FALSE(d.valid) << testing::PrintToString(c.bytes);
    EXPECT_EQ(d.length, c.length) << testing::PrintToString(c.bytes);
    EXPECT_EQ(d.code_point, kReplacementCharacter);
    EXPECT_FALSE(IsValidUtf8(c.bytes));
  }
}

TEST(Utf8, ValidatesAndFindsTheFirstBadByte) {
  EXPECT_TRUE(IsValidUtf8(""));
  EXPECT_TRUE(IsValidUtf8("plain ascii that is longer than eight bytes"));
  EXPECT_TRUE(IsValidUtf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"));
  EXPECT_EQ(FindInvalidUtf8("abcdefghijkl\xff"), 12u);
  EXPECT_EQ(FindInvalidUtf8("\xc3\xa9\xc3"), 2u);
  EXPECT_EQ(FindInvalidUtf8("ok"), 2u);
}

TEST(Utf8, SanitizeReplacesEachMaximalSubpart) {
  EXPECT_EQ(SanitizeUtf8("caf\xc3\xa9"), "caf\xc3\xa9");
  EXPECT_EQ(SanitizeUtf8("a\xffz"), "a\xef\xbf\xbdz");
  // E2 82 is one subpart; ED A0 80 is three (ED cannot take A0).
  EXPECT_EQ(SanitizeUtf8("\xe2\x82!"), "\xef\xbf\xbd!");
  EXPECT_EQ(SanitizeUtf8("\xed\xa0\x80"),
            "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
  EXPECT_EQ(SanitizeUtf8("\xc3"), "\xef\xbf\xbd");
}

TEST(Utf8, SanitizedRandomBytesAreValid) {
  std::mt19937 rng(7);
  for (int i = 0; i < 2000; ++i) {
    std::string bytes(rng() % 24, '\0');
    for (char& b : bytes) b = static_cast<char>(rng());
    const std::string clean = SanitizeUtf8(bytes);
    EXPECT_TRUE(IsValidUtf8(clean)) << testing::PrintToString(bytes);
    if (IsValidUtf8(bytes)) {
      EXPECT_EQ(clean, bytes);
    }
    for (size_t max = 0; max <= clean.size(); ++max) {
      const std::string_view prefix = Utf8Prefix(clean, max);
      ASSERT_LE(prefix.size(), max);
      ASSERT_TRUE(IsValidUtf8(prefix)) << testing::PrintToString(clean) << max;
      ASSERT_GT(prefix.size() + 4, max);  // at most one character dropped
    }
  }
}

TEST(Utf8, PrefixNeverCutsACharacter) {
  const std::string s = "a\xc3\x97\xe2\x82\xac\xf0\x9f\x98\x80";  // a×€😀
  EXPECT_EQ(Utf8Prefix(s, 100), s);
  EXPECT_EQ(Utf8Prefix(s, 2), "a");
  EXPECT_EQ(Utf8Prefix(s, 3), "a\xc3\x97");
  EXPECT_EQ(Utf8Prefix(s, 5), "a\xc3\x97");
  EXPECT_EQ(Utf8Prefix(s, 9), "a\xc3\x97\xe2\x82\xac");
  EXPECT_EQ(Utf8Prefix(s, 0), "");
  EXPECT_EQ(Utf8Prefix("\xff\xff\xff", 2), "\xff\xff");
}

TEST(Utf8, Utf16LengthCountsLikeJava) {
  EXPECT_EQ(Utf16Length(""), 0u);
  EXPECT_EQ(Utf16Length("abc"), 3u);
  EXPECT_EQ(Utf16Length("\xc3\x97\xe2\x82\xac"), 2u);
  EXPECT_EQ(Utf16Length("\xf0\x9f\x98\x80"), 2u);  // a surrogate pair
  EXPECT_EQ(Utf16Length("\xe2\x82 \xff"), 3u);
}

TEST(Utf8, AppendEncodes) {
  std::string out;
  AppendUtf8(U'\u00d7', &out);
  AppendUtf8(U'\U0001f600', &out);
  AppendUtf8(0xD800, &out);
  EXPECT_EQ(out, "\xc3\x97\xf0\x9f\x98\x80\xef\xbf\xbd");
}

}  // namespace
}  // namespace keywise
