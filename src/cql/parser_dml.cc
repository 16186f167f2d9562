// INSERT, UPDATE, DELETE and BATCH.
#include "cql/parser_internal.h"

namespace keywise::cql {

Result<InsertStatement> Parser::ParseInsert() {
  KW_RETURN_IF_ERROR(ExpectKeyword("insert"));
  KW_RETURN_IF_ERROR(ExpectKeyword("into"));
  InsertStatement s;
  KW_ASSIGN_OR_RETURN(s.table, ParseQualifiedName());
  if (AcceptKeyword("json")) {
    s.json = true;
    if (At(TokenKind::kString)) {
      s.json_value = Term::Literal(LiteralKind::kString, Next().text);
    } else if (At(TokenKind::kBindMarker) || At(TokenKind::kColon)) {
      KW_ASSIGN_OR_RETURN(s.json_value, ParseBindMarker());
    } else {
      return NoViableAlt();
    }
    if (AcceptKeyword("default")) {
      if (AcceptKeyword("unset")) {
        s.default_unset = true;
      } else if (!AcceptKeyword("null")) {
        return NoViableAlt();
      }
    }
  } else {
    KW_RETURN_IF_ERROR(Expect(TokenKind::kLParen));
    do {
      KW_ASSIGN_OR_RETURN(std::string c, ParseName());
      s.columns.push_back(std::move(c));
    } while (Accept(TokenKind::kComma));
    KW_RETURN_IF_ERROR(Expect(TokenKind::kRParen));
    KW_RETURN_IF_ERROR(ExpectKeyword("values"));
    KW_RETURN_IF_ERROR(Expect(TokenKind::kLParen));
    do {
      KW_ASSIGN_OR_RETURN(Term v, ParseTerm());
      s.values.push_back(std::move(v));
    } while (Accept(TokenKind::kComma));
    KW_RETURN_IF_ERROR(Expect(TokenKind::kRParen));
  }
  KW_ASSIGN_OR_RETURN(s.if_not_exists, ParseIfNotExists());
  if (AcceptKeyword("using")) {
    KW_ASSIGN_OR_RETURN(s.using_clause, ParseUsing(/*allow_ttl=*/true));
  }
  return s;
}

Result<Assignment> Parser::ParseAssignment() {
  Assignment a;
  KW_ASSIGN_OR_RETURN(a.column, ParseName());
  if (Accept(TokenKind::kLBracket)) {
    a.kind = AssignmentKind::kSetElement;
    KW_ASSIGN_OR_RETURN(Term key, ParseTerm());
    a.key = std::move(key);
    KW_RETURN_IF_ERROR(Expect(TokenKind::kRBracket));
    KW_RETURN_IF_ERROR(Expect(TokenKind::kEq));
    KW_ASSIGN_OR_RETURN(a.value, ParseTerm());
    return a;
  }
  if (Accept(TokenKind::kDot)) {
    a.kind = AssignmentKind::kSetField;
    KW_ASSIGN_OR_RETURN(a.field, ParseName());
    KW_RETURN_IF_ERROR(Expect(TokenKind::kEq));
    KW_ASSIGN_OR_RETURN(a.value, ParseTerm());
    return a;
  }
  KW_RETURN_IF_ERROR(Expect(TokenKind::kEq));
  // c = c + term | c = c - term | c = c -1 (lexed as c, INTEGER "-1").
  if (AtName() && Peek().text == a.column && !At(TokenKind::kLParen, 1)) {
    Next();
    if (Accept(TokenKind::kPlus)) {
      a.kind = AssignmentKind::kAdd;
    } else if (Accept(TokenKind::kMinus)) {
      a.kind = AssignmentKind::kSubtract;
    } else if ((At(TokenKind::kInteger) || At(TokenKind::kFloat)) &&
               Peek().text.starts_with("-")) {
      // Adding the negative number is what `c = c -1` means.
      a.kind = AssignmentKind::kAdd;
    } else {
      return NoViableAlt();
    }
    KW_ASSIGN_OR_RETURN(a.value, ParseTerm());
    return a;
  }
  KW_ASSIGN_OR_RETURN(a.value, ParseTerm());
  if (Accept(TokenKind::kPlus)) {
    // term + c: prepend to a list.
    KW_ASSIGN_OR_RETURN(std::string c, ParseName());
    if (c != a.column)
      return ErrorHere(
          "Only expressions of the form X = <value> + X are supported.");
    a.kind = AssignmentKind::kPrepend;
  }
  return a;
}

Result<UpdateStatement> Parser::ParseUpdate() {
  KW_RETURN_IF_ERROR(ExpectKeyword("update"));
  UpdateStatement s;
  KW_ASSIGN_OR_RETURN(s.table, ParseQualifiedName());
  if (AcceptKeyword("using")) {
    KW_ASSIGN_OR_RETURN(s.using_clause, ParseUsing(/*allow_ttl=*/true));
  }
  KW_RETURN_IF_ERROR(ExpectKeyword("set"));
  do {
    KW_ASSIGN_OR_RETURN(Assignment a, ParseAssignment());
    s.assignments.push_back(std::move(a));
  } while (Accept(TokenKind::kComma));
  KW_RETURN_IF_ERROR(ExpectKeyword("where"));
  KW_ASSIGN_OR_RETURN(s.where, ParseWhere());
  KW_RETURN_IF_ERROR(ParseIfClause(&s.if_exists, &s.conditions));
  return s;
}

Result<DeleteStatement> Parser::ParseDelete() {
  KW_RETURN_IF_ERROR(ExpectKeyword("delete"));
  DeleteStatement s;
  if (!AtKeyword("from")) {
    do {
      DeleteTarget t;
      KW_ASSIGN_OR_RETURN(t.column, ParseName());
      if (Accept(TokenKind::kLBracket)) {
        KW_ASSIGN_OR_RETURN(Term key, ParseTerm());
        t.element = std::move(key);
        KW_RETURN_IF_ERROR(Expect(TokenKind::kRBracket));
      } else if (Accept(TokenKind::kDot)) {
        KW_ASSIGN_OR_RETURN(t.field, ParseName());
      }
      s.targets.push_back(std::move(t));
    } while (Accept(TokenKind::kComma));
  }
  KW_RETURN_IF_ERROR(ExpectKeyword("from"));
  KW_ASSIGN_OR_RETURN(s.table, ParseQualifiedName());
  if (AcceptKeyword("using")) {
    KW_ASSIGN_OR_RETURN(s.using_clause, ParseUsing(/*allow_ttl=*/false));
  }
  KW_RETURN_IF_ERROR(ExpectKeyword("where"));
  KW_ASSIGN_OR_RETURN(s.where, ParseWhere());
  KW_RETURN_IF_ERROR(ParseIfClause(&s.if_exists, &s.conditions));
  return s;
}

Result<BatchStatement> Parser::ParseBatch() {
  KW_RETURN_IF_ERROR(ExpectKeyword("begin"));
  BatchStatement s;
  if (AcceptKeyword("unlogged")) {
    s.type = BatchType::kUnlogged;
  } else if (AcceptKeyword("counter")) {
    s.type = BatchType::kCounter;
  }
  KW_RETURN_IF_ERROR(ExpectKeyword("batch"));
  if (AcceptKeyword("using")) {
    // TTL parses (as in Cassandra) so the query layer can reject it with
    // Cassandra's message.
    KW_ASSIGN_OR_RETURN(s.using_clause, ParseUsing(/*allow_ttl=*/true));
  }
  while (!AtKeyword("apply")) {
    if (AtKeyword("insert")) {
      KW_ASSIGN_OR_RETURN(InsertStatement c, ParseInsert());
      s.statements.emplace_back(std::move(c));
    } else if (AtKeyword("update")) {
      KW_ASSIGN_OR_RETURN(UpdateStatement c, ParseUpdate());
      s.statements.emplace_back(std::move(c));
    } else if (AtKeyword("delete")) {
      KW_ASSIGN_OR_RETURN(DeleteStatement c, ParseDelete());
      s.statements.emplace_back(std::move(c));
    } else {
      return Mismatch("K_APPLY");
    }
    Accept(TokenKind::kSemicolon);
  }
  KW_RETURN_IF_ERROR(ExpectKeyword("apply"));
  KW_RETURN_IF_ERROR(ExpectKeyword("batch"));
  return s;
}

}  // namespace keywise::cql
