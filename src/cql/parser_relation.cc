// WHERE relations, IF conditions and USING clauses.
#include "cql/parser_internal.h"

namespace keywise::cql {

Result<RelationOp> Parser::ParseCompareOp() {
  switch (Peek().kind) {
    case TokenKind::kEq:
      Next();
      return RelationOp::kEq;
    case TokenKind::kNotEq:
      Next();
      return RelationOp::kNotEq;
    case TokenKind::kLt:
      Next();
      return RelationOp::kLt;
    case TokenKind::kLtEq:
      Next();
      return RelationOp::kLtEq;
    case TokenKind::kGt:
      Next();
      return RelationOp::kGt;
    case TokenKind::kGtEq:
      Next();
      return RelationOp::kGtEq;
    default:
      return NoViableAlt();
  }
}

// After IN: `(v, ...)`, `()` or a marker. With `tuples`, each value is a
// tuple literal `(a, b)` or a marker.
Result<std::vector<Term>> Parser::ParseInValues(bool tuples) {
  std::vector<Term> values;
  KW_RETURN_IF_ERROR(Expect(TokenKind::kLParen));
  if (Accept(TokenKind::kRParen)) return values;
  do {
    if (tuples && !At(TokenKind::kLParen) && !At(TokenKind::kBindMarker) &&
        !At(TokenKind::kColon)) {
      return NoViableAlt();
    }
    KW_ASSIGN_OR_RETURN(Term v, ParseTerm());
    if (tuples && v.kind != TermKind::kTuple && !v.IsBindMarker()) {
      // `((a))` parses as a cast-free tuple of one; anything else is wrong.
      return NoViableAlt();
    }
    values.push_back(std::move(v));
  } while (Accept(TokenKind::kComma));
  KW_RETURN_IF_ERROR(Expect(TokenKind::kRParen));
  return values;
}

Result<Relation> Parser::ParseRelation() {
  Relation r;
  if (AtKeyword("token") && At(TokenKind::kLParen, 1)) {
    Next();
    Next();
    r.kind = RelationKind::kToken;
    do {
      KW_ASSIGN_OR_RETURN(std::string c, ParseName());
      r.columns.push_back(std::move(c));
    } while (Accept(TokenKind::kComma));
    KW_RETURN_IF_ERROR(Expect(TokenKind::kRParen));
    KW_ASSIGN_OR_RETURN(r.op, ParseCompareOp());
    KW_ASSIGN_OR_RETURN(r.value, ParseTerm());
    return r;
  }
  if (Accept(TokenKind::kLParen)) {
    r.kind = RelationKind::kMultiColumn;
    do {
      KW_ASSIGN_OR_RETURN(std::string c, ParseName());
      r.columns.push_back(std::move(c));
    } while (Accept(TokenKind::kComma));
    KW_RETURN_IF_ERROR(Expect(TokenKind::kRParen));
    if (AcceptKeyword("in")) {
      r.op = RelationOp::kIn;
      if (At(TokenKind::kBindMarker) || At(TokenKind::kColon)) {
        KW_ASSIGN_OR_RETURN(r.value, ParseBindMarker());
        return r;
      }
      r.in_list = true;
      KW_ASSIGN_OR_RETURN(r.in_values, ParseInValues(/*tuples=*/true));
      return r;
    }
    KW_ASSIGN_OR_RETURN(r.op, ParseCompareOp());
    if (!At(TokenKind::kLParen) && !At(TokenKind::kBindMarker) &&
        !At(TokenKind::kColon)) {
      return NoViableAlt();
    }
    KW_ASSIGN_OR_RETURN(r.value, ParseTerm());
    return r;
  }
  r.kind = RelationKind::kSingleColumn;
  KW_ASSIGN_OR_RETURN(std::string column, ParseName());
  r.columns.push_back(std::move(column));
  if (Accept(TokenKind::kLBracket)) {
    KW_ASSIGN_OR_RETURN(Term key, ParseTerm());
    r.map_key = std::move(key);
    KW_RETURN_IF_ERROR(Expect(TokenKind::kRBracket));
    KW_ASSIGN_OR_RETURN(r.op, ParseCompareOp());
    KW_ASSIGN_OR_RETURN(r.value, ParseTerm());
    return r;
  }
  if (AcceptKeyword("in")) {
    r.op = RelationOp::kIn;
    if (At(TokenKind::kBindMarker) || At(TokenKind::kColon)) {
      KW_ASSIGN_OR_RETURN(r.value, ParseBindMarker());
      return r;
    }
    r.in_list = true;
    KW_ASSIGN_OR_RETURN(r.in_values, ParseInValues(/*tuples=*/false));
    return r;
  }
  if (AcceptKeyword("contains")) {
    r.op =
        AcceptKeyword("key") ? RelationOp::kContainsKey : RelationOp::kContains;
    KW_ASSIGN_OR_RETURN(r.value, ParseTerm());
    return r;
  }
  if (AcceptKeyword("like")) {
    r.op = RelationOp::kLike;
    KW_ASSIGN_OR_RETURN(r.value, ParseTerm());
    return r;
  }
  if (AcceptKeyword("is")) {
    KW_RETURN_IF_ERROR(ExpectKeyword("not"));
    KW_RETURN_IF_ERROR(ExpectKeyword("null"));
    r.op = RelationOp::kIsNotNull;
    return r;
  }
  KW_ASSIGN_OR_RETURN(r.op, ParseCompareOp());
  KW_ASSIGN_OR_RETURN(r.value, ParseTerm());
  return r;
}

Result<std::vector<Relation>> Parser::ParseWhere() {
  std::vector<Relation> relations;
  do {
    KW_ASSIGN_OR_RETURN(Relation r, ParseRelation());
    relations.push_back(std::move(r));
  } while (AcceptKeyword("and"));
  return relations;
}

Result<Condition> Parser::ParseCondition() {
  Condition c;
  KW_ASSIGN_OR_RETURN(c.column, ParseName());
  if (Accept(TokenKind::kLBracket)) {
    KW_ASSIGN_OR_RETURN(Term key, ParseTerm());
    c.element = std::move(key);
    KW_RETURN_IF_ERROR(Expect(TokenKind::kRBracket));
  } else if (Accept(TokenKind::kDot)) {
    KW_ASSIGN_OR_RETURN(c.field, ParseName());
  }
  if (AcceptKeyword("in")) {
    c.op = RelationOp::kIn;
    if (At(TokenKind::kBindMarker) || At(TokenKind::kColon)) {
      KW_ASSIGN_OR_RETURN(c.value, ParseBindMarker());
      return c;
    }
    c.in_list = true;
    KW_ASSIGN_OR_RETURN(c.in_values, ParseInValues(/*tuples=*/false));
    return c;
  }
  KW_ASSIGN_OR_RETURN(c.op, ParseCompareOp());
  KW_ASSIGN_OR_RETURN(c.value, ParseTerm());
  return c;
}

Status Parser::ParseIfClause(bool* if_exists,
                             std::vector<Condition>* conditions) {
  if (!AcceptKeyword("if")) return Status::OK();
  if (AtKeyword("exists")) {
    Next();
    *if_exists = true;
    return Status::OK();
  }
  do {
    KW_ASSIGN_OR_RETURN(Condition c, ParseCondition());
    conditions->push_back(std::move(c));
  } while (AcceptKeyword("and"));
  return Status::OK();
}

Result<UsingClause> Parser::ParseUsing(bool allow_ttl) {
  UsingClause u;
  do {
    if (allow_ttl && AcceptKeyword("ttl")) {
      KW_ASSIGN_OR_RETURN(Term t, ParseTerm());
      u.ttl = std::move(t);
    } else if (AcceptKeyword("timestamp")) {
      KW_ASSIGN_OR_RETURN(Term t, ParseTerm());
      u.timestamp = std::move(t);
    } else {
      return allow_ttl ? NoViableAlt() : Mismatch("K_TIMESTAMP");
    }
  } while (AcceptKeyword("and"));
  return u;
}

}  // namespace keywise::cql
