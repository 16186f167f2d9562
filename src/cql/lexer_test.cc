#include "cql/lexer.h"

#include <gtest/gtest.h>

namespace keywise::cql {
namespace {

std::vector<Token> Lex(std::string_view text) {
  auto r = Tokenize(text);
  EXPECT_TRUE(r.ok()) << text << ": " << r.status().ToString();
  return r.ok() ? *r : std::vector<Token>{};
}

// Kinds without the trailing EOF.
std::vector<TokenKind> Kinds(std::string_view text) {
  std::vector<TokenKind> out;
  for (const Token& t : Lex(text)) {
    if (t.kind != TokenKind::kEof) out.push_back(t.kind);
  }
  return out;
}

TokenKind Single(std::string_view text, std::string* value = nullptr) {
  auto toks = Lex(text);
  EXPECT_EQ(toks.size(), 2u) << text;
  if (toks.size() != 2) return TokenKind::kEof;
  if (value) *value = toks[0].text;
  return toks[0].kind;
}

TEST(Lexer, IdentifiersAreFoldedQuotedKeepCase) {
  std::string v;
  EXPECT_EQ(Single("SeLeCt", &v), TokenKind::kIdentifier);
  EXPECT_EQ(v, "select");
  EXPECT_EQ(Single("\"MyCol\"", &v), TokenKind::kQuotedIdentifier);
  EXPECT_EQ(v, "MyCol");
  EXPECT_EQ(Single("\"a\"\"b\"", &v), TokenKind::kQuotedIdentifier);
  EXPECT_EQ(v, "a\"b");
  EXPECT_EQ(Single("user_id2", &v), TokenKind::kIdentifier);
  EXPECT_EQ(v, "user_id2");
}

TEST(Lexer, Strings) {
  std::string v;
  EXPECT_EQ(Single("'it''s'", &v), TokenKind::kString);
  EXPECT_EQ(v, "it's");
  EXPECT_EQ(Single("''", &v), TokenKind::kString);
  EXPECT_EQ(v, "");
  EXPECT_EQ(Single("$$a 'quoted' $ b$$", &v), TokenKind::kString);
  EXPECT_EQ(v, "a 'quoted' $ b");
  EXPECT_EQ(Single("'multi\nline'", &v), TokenKind::kString);
  EXPECT_EQ(v, "multi\nline");
}

TEST(Lexer, Numbers) {
  std::string v;
  EXPECT_EQ(Single("42", &v), TokenKind::kInteger);
  EXPECT_EQ(Single("-42", &v), TokenKind::kInteger);
  EXPECT_EQ(v, "-42");
  EXPECT_EQ(Single("1.5", &v), TokenKind::kFloat);
  EXPECT_EQ(Single("1.", &v), TokenKind::kFloat);
  EXPECT_EQ(Single("1e10", &v), TokenKind::kFloat);
  EXPECT_EQ(Single("-2.5E-3", &v), TokenKind::kFloat);
  EXPECT_EQ(v, "-2.5E-3");
  // As in Cassandra, ".5" is not a number: '.' then 5.
  EXPECT_EQ(Kinds(".5"),
            (std::vector<TokenKind>{TokenKind::kDot, TokenKind::kInteger}));
  // A slice's range: "1..3" is 1, .., 3 (not the float "1.").
  EXPECT_EQ(Kinds("1..3"), (std::vector<TokenKind>{TokenKind::kInteger,
                                                   TokenKind::kRange,
                                                   TokenKind::kInteger}));
  // NaN / Infinity / booleans are identifiers at the lexer level.
  EXPECT_EQ(Single("NaN", &v), TokenKind::kIdentifier);
  EXPECT_EQ(v, "nan");
  EXPECT_EQ(Single("Infinity"), TokenKind::kIdentifier);
  EXPECT_EQ(Single("TRUE", &v), TokenKind::kIdentifier);
  EXPECT_EQ(v, "true");
}

TEST(Lexer, UuidsAndBlobs) {
  std::string v;
  EXPECT_EQ(Single("550e8400-e29b-41d4-a716-446655440000", &v),
            TokenKind::kUuid);
  EXPECT_EQ(v, "550e8400-e29b-41d4-a716-446655440000");
  EXPECT_EQ(Single("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"), TokenKind::kUuid);
  EXPECT_EQ(Single("0xCAFE", &v), TokenKind::kBlob);
  EXPECT_EQ(v, "0xCAFE");
  EXPECT_EQ(Single("0x", &v), TokenKind::kBlob);
}

TEST(Lexer, Durations) {
  std::string v;
  for (const char* d : {"1h30m", "2d", "3mo", "1y2mo", "10us", "5ns", "7ms",
                        "9s", "4w", "1Y2MO3D", "-1h", "P1Y2M3DT4H5M6S", "PT1H",
                        "P2W", "P0001-02-03T04:05:06", "-P1D"}) {
    EXPECT_EQ(Single(d, &v), TokenKind::kDuration) << d;
    EXPECT_EQ(v, d);
  }
  EXPECT_EQ(Single("3\xC2\xB5s"), TokenKind::kDuration);
  // Words that merely start with P are identifiers.
  EXPECT_EQ(Single("pk"), TokenKind::kIdentifier);
  EXPECT_EQ(Single("p"), TokenKind::kIdentifier);
  EXPECT_EQ(Single("P1Yx"), TokenKind::kIdentifier);
  EXPECT_EQ(Single("p1y"),
            TokenKind::kIdentifier);  // designators are upper case
  EXPECT_EQ(Single("P1Y2MT3S"), TokenKind::kDuration);
}

TEST(Lexer, Punctuation) {
  EXPECT_EQ(
      Kinds("= != < <= > >= ( ) [ ] { } , ; . : ? + - * / %"),
      (std::vector<TokenKind>{
          TokenKind::kEq,       TokenKind::kNotEq,      TokenKind::kLt,
          TokenKind::kLtEq,     TokenKind::kGt,         TokenKind::kGtEq,
          TokenKind::kLParen,   TokenKind::kRParen,     TokenKind::kLBracket,
          TokenKind::kRBracket, TokenKind::kLBrace,     TokenKind::kRBrace,
          TokenKind::kComma,    TokenKind::kSemicolon,  TokenKind::kDot,
          TokenKind::kColon,    TokenKind::kBindMarker, TokenKind::kPlus,
          TokenKind::kMinus,    TokenKind::kStar,       TokenKind::kSlash,
          TokenKind::kPercent}));
  EXPECT_EQ(Kinds("map<int,list<int>>"),
            (std::vector<TokenKind>{
                TokenKind::kIdentifier, TokenKind::kLt, TokenKind::kIdentifier,
                TokenKind::kComma, TokenKind::kIdentifier, TokenKind::kLt,
                TokenKind::kIdentifier, TokenKind::kGt, TokenKind::kGt}));
  EXPECT_EQ(Kinds(":name"), (std::vector<TokenKind>{TokenKind::kColon,
                                                    TokenKind::kIdentifier}));
  // "c - 1" is minus then one; "c -1" has a negative literal (as Cassandra).
  EXPECT_EQ(Kinds("c - 1"),
            (std::vector<TokenKind>{TokenKind::kIdentifier, TokenKind::kMinus,
                                    TokenKind::kInteger}));
  EXPECT_EQ(Kinds("c -1"), (std::vector<TokenKind>{TokenKind::kIdentifier,
                                                   TokenKind::kInteger}));
}

TEST(Lexer, CommentsAndPositions) {
  auto toks =
      Lex("-- line comment\nSELECT /* multi\nline */ a // tail\n  FROM t");
  ASSERT_EQ(toks.size(), 5u);
  EXPECT_EQ(toks[0].text, "select");
  EXPECT_EQ(toks[0].line, 2);
  EXPECT_EQ(toks[0].column, 0);
  EXPECT_EQ(toks[1].text, "a");
  EXPECT_EQ(toks[1].line, 3);
  EXPECT_EQ(toks[1].column, 8);
  EXPECT_EQ(toks[2].text, "from");
  EXPECT_EQ(toks[2].line, 4);
  EXPECT_EQ(toks[2].column, 2);
  EXPECT_EQ(toks[4].kind, TokenKind::kEof);
  EXPECT_EQ(Kinds("/**/"), std::vector<TokenKind>{});
}

TEST(Lexer, Errors) {
  auto r = Tokenize("SELECT @ FROM t");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kSyntaxError);
  EXPECT_EQ(r.status().message(),
            "line 1:7 no viable alternative at character '@'");
  r = Tokenize("SELECT 'abc");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "line 1:11 mismatched character '<EOF>' expecting '''");
  r = Tokenize("a\n  /* open");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().substr(0, 9), "line 2:9 ");
  EXPECT_FALSE(Tokenize("\"\"").ok());
  EXPECT_FALSE(Tokenize("$$abc").ok());
  EXPECT_FALSE(Tokenize("a ! b").ok());
}

// Cassandra's lexer reads the decoded query string: an error quotes a whole
// character, never one byte of its UTF-8 encoding, and columns count UTF-16
// code units.
TEST(Lexer, ErrorsQuoteWholeCharacters) {
  auto message = [](std::string_view text) {
    auto r = Tokenize(text);
    EXPECT_FALSE(r.ok()) << text;
    return r.ok() ? std::string() : r.status().message();
  };
  EXPECT_EQ(message("SELECT \xc3\x97 FROM t"),  // ×
            "line 1:7 no viable alternative at character '\xc3\x97'");
  EXPECT_EQ(message("SELECT a\xe2\x82\xac"),  // €
            "line 1:8 no viable alternative at character '\xe2\x82\xac'");
  EXPECT_EQ(message("ab\xf0\x9f\x98\x80"),  // 😀
            "line 1:2 no viable alternative at character "
            "'\xf0\x9f\x98\x80'");
  EXPECT_EQ(message("a !\xc3\x97"),
            "line 1:3 mismatched character '\xc3\x97' expecting '='");
  // é is one column, 😀 two (a surrogate pair in Java).
  EXPECT_EQ(message("'\xc3\xa9\xf0\x9f\x98\x80' #"),
            "line 1:6 no viable alternative at character '#'");
  EXPECT_EQ(message("'\xc3\xa9'\n\xc3\xa9 'open"),
            "line 2:0 no viable alternative at character '\xc3\xa9'");
  EXPECT_EQ(message("a '\xc3\xa9"),
            "line 1:4 mismatched character '<EOF>' expecting '''");
  // Bytes that are not UTF-8 (the server refuses them before parsing) show
  // as U+FFFD, so the message is UTF-8 all the same.
  EXPECT_EQ(message("SELECT \xd7 x"),
            "line 1:7 no viable alternative at character '\xef\xbf\xbd'");
  EXPECT_EQ(message("SELECT \xe2\x82"),
            "line 1:7 no viable alternative at character '\xef\xbf\xbd'");
}

TEST(Lexer, ColumnsCountUtf16Units) {
  auto toks = Lex("'\xc3\xa9\xf0\x9f\x98\x80' a\n\"\xe2\x82\xac\" b");
  ASSERT_EQ(toks.size(), 5u);
  EXPECT_EQ(toks[0].text, "\xc3\xa9\xf0\x9f\x98\x80");
  EXPECT_EQ(toks[1].column, 6);
  EXPECT_EQ(toks[1].offset, 9u);
  EXPECT_EQ(toks[2].text, "\xe2\x82\xac");
  EXPECT_EQ(toks[2].line, 2);
  EXPECT_EQ(toks[2].column, 0);
  EXPECT_EQ(toks[3].column, 4);
  EXPECT_EQ(toks[4].column, 5);  // EOF
}

}  // namespace
}  // namespace keywise::cql
