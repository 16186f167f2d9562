// Token: one lexical unit of CQL text, as produced by Lexer.
//
// Contract: a Token is a plain value. `text` holds the token's meaning, not
// always its spelling: unquoted identifiers are folded to lower case,
// quoted identifiers and string literals are unescaped, and the original
// spelling is kept in `raw` for error messages. Positions are those
// Cassandra reports: 1-based line, 0-based column of the first character
// counted in UTF-16 code units (Java's String positions: a character above
// U+FFFF counts two); `offset` is the byte position.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace keywise::cql {

enum class TokenKind : uint8_t {
  kEof,
  kIdentifier,        // unquoted; text is lower case; may be a keyword
  kQuotedIdentifier,  // "Name"; text keeps case, "" unescaped
  kString,            // '...' or $$...$$; text is the unescaped content
  kInteger,           // optional leading '-', digits
  kFloat,             // 1.5, 1e10, -2.5E-3
  kUuid,              // 8-4-4-4-12 hex digits
  kBlob,              // 0x followed by hex digits (text keeps "0x")
  kDuration,          // 1h30m, -2d, P1Y2M, PT1H, P2W
  kBindMarker,        // ?
  kLParen,            // (
  kRParen,            // )
  kLBracket,          // [
  kRBracket,          // ]
  kLBrace,            // {
  kRBrace,            // }
  kComma,             // ,
  kSemicolon,         // ;
  kDot,               // .
  kRange,             // .. (element slices: m['a'..'c'])
  kColon,             // :
  kEq,                // =
  kNotEq,             // !=
  kLt,                // <
  kLtEq,              // <=
  kGt,                // >
  kGtEq,              // >=
  kPlus,              // +
  kMinus,             // -
  kStar,              // *
  kSlash,             // /
  kPercent,           // %
  kHidden,            // whitespace run or comment (only in the hidden list)
};

struct Token {
  TokenKind kind = TokenKind::kEof;
  std::string text;   // meaning (see above)
  std::string raw;    // spelling in the source, for messages
  int line = 1;       // 1-based
  int column = 0;     // 0-based, in UTF-16 code units
  size_t offset = 0;  // byte offset of the first character
  // Index in Cassandra's token stream, which also counts hidden tokens
  // (each whitespace run and each comment is one); used to cut the query
  // snippet of syntax errors the way Cassandra does.
  size_t stream_index = 0;

  // True when this is an unquoted identifier equal to `keyword` (lower case).
  bool Is(std::string_view keyword) const {
    return kind == TokenKind::kIdentifier && text == keyword;
  }
};

// Short name used in "expecting ..." messages, in Cassandra's grammar style
// (e.g. "')'", "IDENT", "STRING_LITERAL").
std::string_view TokenKindName(TokenKind kind);

}  // namespace keywise::cql
