#include "cql/token.h"

namespace keywise::cql {

std::string_view TokenKindName(TokenKind kind) {
  switch (kind) {
    case TokenKind::kEof:
      return "EOF";
    case TokenKind::kIdentifier:
      return "IDENT";
    case TokenKind::kQuotedIdentifier:
      return "QUOTED_NAME";
    case TokenKind::kString:
      return "STRING_LITERAL";
    case TokenKind::kInteger:
      return "INTEGER";
    case TokenKind::kFloat:
      return "FLOAT";
    case TokenKind::kUuid:
      return "UUID";
    case TokenKind::kBlob:
      return "HEXNUMBER";
    case TokenKind::kDuration:
      return "DURATION";
    case TokenKind::kBindMarker:
      return "QMARK";
    case TokenKind::kLParen:
      return "'('";
    case TokenKind::kRParen:
      return "')'";
    case TokenKind::kLBracket:
      return "'['";
    case TokenKind::kRBracket:
      return "']'";
    case TokenKind::kLBrace:
      return "'{'";
    case TokenKind::kRBrace:
      return "'}'";
    case TokenKind::kComma:
      return "','";
    case TokenKind::kSemicolon:
      return "';'";
    case TokenKind::kDot:
      return "'.'";
    case TokenKind::kRange:
      return "'..'";
    case TokenKind::kColon:
      return "':'";
    case TokenKind::kEq:
      return "'='";
    case TokenKind::kNotEq:
      return "'!='";
    case TokenKind::kLt:
      return "'<'";
    case TokenKind::kLtEq:
      return "'<='";
    case TokenKind::kGt:
      return "'>'";
    case TokenKind::kGtEq:
      return "'>='";
    case TokenKind::kPlus:
      return "'+'";
    case TokenKind::kMinus:
      return "'-'";
    case TokenKind::kStar:
      return "'*'";
    case TokenKind::kSlash:
      return "'/'";
    case TokenKind::kPercent:
      return "'%'";
    case TokenKind::kHidden:
      return "WS";
  }
  return "?";
}

}  // namespace keywise::cql
