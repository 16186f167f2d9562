// CREATE [CUSTOM] INDEX and its targets.
#include "cql/parser_internal.h"

namespace keywise::cql {

// `c`, or `keys(c)` / `values(c)` / `entries(c)` / `full(c)`. KEYS and
// VALUES are unreserved, so `keys` alone is a column named keys; ENTRIES and
// FULL are reserved and always expect their '('.
Result<IndexTarget> Parser::ParseIndexTarget() {
  IndexTarget target;
  const bool call = At(TokenKind::kLParen, 1);
  if (AtKeyword("entries")) {
    target.kind = IndexTargetKind::kEntries;
  } else if (AtKeyword("full")) {
    target.kind = IndexTargetKind::kFull;
  } else if (call && AtKeyword("keys")) {
    target.kind = IndexTargetKind::kKeys;
  } else if (call && AtKeyword("values")) {
    target.kind = IndexTargetKind::kValues;
  }
  if (target.kind != IndexTargetKind::kSimple) {
    Next();
    KW_RETURN_IF_ERROR(Expect(TokenKind::kLParen));
    KW_ASSIGN_OR_RETURN(target.column, ParseName());
    KW_RETURN_IF_ERROR(Expect(TokenKind::kRParen));
    return target;
  }
  // Any other `f(c)` fails after the name, where ',' or ')' is expected.
  KW_ASSIGN_OR_RETURN(target.column, ParseName());
  return target;
}

// At CREATE's next token: [CUSTOM] INDEX [IF NOT EXISTS] [name] ON table
// (targets) [USING 'class'] [WITH properties].
Result<CreateIndexStatement> Parser::ParseCreateIndex() {
  CreateIndexStatement s;
  s.custom = AcceptKeyword("custom");
  KW_RETURN_IF_ERROR(ExpectKeyword("index"));
  KW_ASSIGN_OR_RETURN(s.if_not_exists, ParseIfNotExists());
  if (AtName()) {
    KW_ASSIGN_OR_RETURN(s.index_name, ParseName());
  }
  KW_RETURN_IF_ERROR(ExpectKeyword("on"));
  KW_ASSIGN_OR_RETURN(s.table, ParseQualifiedName());
  KW_RETURN_IF_ERROR(Expect(TokenKind::kLParen));
  bool targets_follow = !At(TokenKind::kRParen);
  // ScyllaDB's local index: `((p1, p2), v, ...)`, the partition key first.
  if (Accept(TokenKind::kLParen)) {
    do {
      KW_ASSIGN_OR_RETURN(std::string c, ParseName());
      s.local_partition_key.push_back(std::move(c));
    } while (Accept(TokenKind::kComma));
    KW_RETURN_IF_ERROR(Expect(TokenKind::kRParen));
    targets_follow = Accept(TokenKind::kComma);
  }
  if (targets_follow) {
    do {
      KW_ASSIGN_OR_RETURN(IndexTarget target, ParseIndexTarget());
      s.targets.push_back(std::move(target));
    } while (Accept(TokenKind::kComma));
  }
  KW_RETURN_IF_ERROR(Expect(TokenKind::kRParen));
  if (AcceptKeyword("using")) {
    if (!At(TokenKind::kString)) return Mismatch("STRING_LITERAL");
    s.using_class = Next().text;
  }
  if (AcceptKeyword("with")) {
    KW_ASSIGN_OR_RETURN(s.options, ParseProperties());
  }
  return s;
}

}  // namespace keywise::cql
