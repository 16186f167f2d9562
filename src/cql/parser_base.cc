// Cursor, error reporting, names, types and WITH properties.
#include <algorithm>
#include <cctype>
#include <iterator>
#include <type_traits>
#include <variant>

#include "cql/parser_internal.h"

namespace keywise::cql {

bool IsReservedKeyword(std::string_view w) {
  // Cassandra 4's reserved keywords (CQL docs, appendix A).
  static constexpr std::string_view kReserved[] = {
      "add", "allow", "alter", "and", "apply", "asc", "authorize", "batch",
      "begin", "by", "columnfamily", "create", "default", "delete", "desc",
      "describe", "drop", "entries", "execute", "from", "full", "grant", "if",
      "in", "index", "infinity", "insert", "into", "is", "keyspace", "limit",
      "materialized", "mbean", "mbeans", "modify", "nan", "norecursive", "not",
      "null", "of", "on", "or", "order", "primary", "rename", "replace",
      "revoke", "schema", "select", "set", "table", "to", "token", "truncate",
      "unlogged", "unset", "update", "use", "using", "view", "where", "with",
      // Lexed as BOOLEAN by Cassandra, so never usable as bare names.
      "true", "false"};
  return std::find(std::begin(kReserved), std::end(kReserved), w) !=
         std::end(kReserved);
}

const Token& Parser::Peek(size_t ahead) const {
  size_t i = std::min(pos_ + ahead, tokens_.size() - 1);
  return tokens_[i];
}

const Token& Parser::Next() {
  const Token& t = tokens_[pos_];
  if (pos_ + 1 < tokens_.size()) ++pos_;
  return t;
}

bool Parser::Accept(TokenKind kind) {
  if (!At(kind)) return false;
  Next();
  return true;
}

bool Parser::AcceptKeyword(std::string_view kw) {
  if (!AtKeyword(kw)) return false;
  Next();
  return true;
}

Status Parser::Expect(TokenKind kind) {
  if (Accept(kind)) return Status::OK();
  return Mismatch(TokenKindName(kind));
}

Status Parser::ExpectKeyword(std::string_view kw) {
  if (AcceptKeyword(kw)) return Status::OK();
  std::string name = "K_";
  for (char c : kw) {
    name.push_back(
        static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  }
  return Mismatch(name);
}

bool Parser::AtName(size_t ahead) const {
  const Token& t = Peek(ahead);
  if (t.kind == TokenKind::kQuotedIdentifier) return true;
  return t.kind == TokenKind::kIdentifier && !IsReservedKeyword(t.text);
}

Result<std::string> Parser::ParseName() {
  if (!AtName()) {
    if (At(TokenKind::kIdentifier) || At(TokenKind::kEof)) {
      return Mismatch("IDENT");
    }
    return NoViableAlt();
  }
  return Next().text;
}

Result<QualifiedName> Parser::ParseQualifiedName() {
  QualifiedName q;
  KW_ASSIGN_OR_RETURN(q.name, ParseName());
  if (Accept(TokenKind::kDot)) {
    q.keyspace = std::move(q.name);
    KW_ASSIGN_OR_RETURN(q.name, ParseName());
  }
  return q;
}

Result<TypeName> Parser::ParseType() {
  DepthGuard guard(&depth_);
  if (depth_ > kMaxDepth) return ErrorHere("nesting too deep");
  TypeName type;
  type.quoted = At(TokenKind::kQuotedIdentifier);
  // `set` is a reserved word but also a collection type name.
  if (AtKeyword("set") && At(TokenKind::kLt, 1)) {
    type.name = Next().text;
  } else {
    KW_ASSIGN_OR_RETURN(type.name, ParseName());
  }
  if (Accept(TokenKind::kDot)) {
    type.keyspace = std::move(type.name);
    type.quoted = At(TokenKind::kQuotedIdentifier);
    KW_ASSIGN_OR_RETURN(type.name, ParseName());
    return type;
  }
  if (!type.quoted && Accept(TokenKind::kLt)) {
    do {
      KW_ASSIGN_OR_RETURN(TypeName arg, ParseType());
      type.args.push_back(std::move(arg));
    } while (Accept(TokenKind::kComma));
    KW_RETURN_IF_ERROR(Expect(TokenKind::kGt));
  }
  return type;
}

Result<bool> Parser::ParseIfNotExists() {
  if (!AcceptKeyword("if")) return false;
  KW_RETURN_IF_ERROR(ExpectKeyword("not"));
  KW_RETURN_IF_ERROR(ExpectKeyword("exists"));
  return true;
}

Result<bool> Parser::ParseIfExists() {
  if (!AcceptKeyword("if")) return false;
  KW_RETURN_IF_ERROR(ExpectKeyword("exists"));
  return true;
}

std::string Parser::SourceText(size_t first, size_t end) const {
  if (first >= end || end > tokens_.size()) return "";
  const Token& last = tokens_[end - 1];
  const size_t from = tokens_[first].offset;
  return std::string(text_.substr(from, last.offset + last.raw.size() - from));
}

Result<Property> Parser::ParseProperty() {
  Property p;
  KW_ASSIGN_OR_RETURN(p.name, ParseName());
  KW_RETURN_IF_ERROR(Expect(TokenKind::kEq));
  if (At(TokenKind::kIdentifier) && !AtKeyword("true") && !AtKeyword("false") &&
      !AtKeyword("nan") && !AtKeyword("infinity") && !AtKeyword("null") &&
      !At(TokenKind::kLParen, 1)) {
    p.value.kind = TermKind::kIdentifier;
    p.value.text = Next().text;
    return p;
  }
  KW_ASSIGN_OR_RETURN(p.value, ParseTerm());
  return p;
}

Result<std::vector<Property>> Parser::ParseProperties() {
  std::vector<Property> props;
  do {
    KW_ASSIGN_OR_RETURN(Property p, ParseProperty());
    props.push_back(std::move(p));
  } while (AcceptKeyword("and"));
  return props;
}

Result<ExplainStatement> Parser::ParseExplain() {
  KW_RETURN_IF_ERROR(ExpectKeyword("explain"));
  const bool analyze = AcceptKeyword("analyze");
  if (!AtKeyword("select") && !AtKeyword("insert") && !AtKeyword("update") &&
      !AtKeyword("delete") && !AtKeyword("begin")) {
    return ErrorHere(
        "EXPLAIN supports SELECT, INSERT, UPDATE, DELETE and BATCH at input '" +
        Peek().raw + "'");
  }
  KW_ASSIGN_OR_RETURN(Statement inner, ParseOneStatement());
  return std::visit(
      [&](auto&& s) -> Result<ExplainStatement> {
        using T = std::decay_t<decltype(s)>;
        if constexpr (std::is_constructible_v<ExplainableStatement, T>) {
          return ExplainStatement{analyze, ExplainableStatement(std::move(s))};
        } else {
          return ErrorHere("EXPLAIN of this statement is not supported");
        }
      },
      std::move(inner));
}

Result<Statement> Parser::ParseOneStatement() {
  bind_count_ = 0;
  if (AtKeyword("explain")) {
    KW_ASSIGN_OR_RETURN(ExplainStatement s, ParseExplain());
    return Statement(std::move(s));
  }
  if (AtKeyword("select")) {
    KW_ASSIGN_OR_RETURN(SelectStatement s, ParseSelect());
    return Statement(std::move(s));
  }
  if (AtKeyword("insert")) {
    KW_ASSIGN_OR_RETURN(InsertStatement s, ParseInsert());
    return Statement(std::move(s));
  }
  if (AtKeyword("update")) {
    KW_ASSIGN_OR_RETURN(UpdateStatement s, ParseUpdate());
    return Statement(std::move(s));
  }
  if (AtKeyword("delete")) {
    KW_ASSIGN_OR_RETURN(DeleteStatement s, ParseDelete());
    return Statement(std::move(s));
  }
  if (AtKeyword("begin")) {
    KW_ASSIGN_OR_RETURN(BatchStatement s, ParseBatch());
    return Statement(std::move(s));
  }
  if (AtKeyword("create")) return ParseCreate();
  if (AtKeyword("alter")) return ParseAlter();
  if (AtKeyword("drop")) return ParseDrop();
  if (AtKeyword("use")) return ParseUse();
  if (AtKeyword("truncate")) return ParseTruncate();
  if (AtKeyword("grant")) return ParseGrant();
  if (AtKeyword("revoke")) return ParseRevoke();
  if (AtKeyword("list")) return ParseList();
  return NoViableAlt();
}

Result<Statement> Parser::ParseSingle() {
  KW_ASSIGN_OR_RETURN(Statement s, ParseOneStatement());
  while (Accept(TokenKind::kSemicolon)) {
  }
  if (!AtEof()) return ErrorHere("missing EOF at '" + Peek().raw + "'");
  return s;
}

Result<std::vector<Statement>> Parser::ParseScript() {
  std::vector<Statement> out;
  while (true) {
    while (Accept(TokenKind::kSemicolon)) {
    }
    if (AtEof()) break;
    KW_ASSIGN_OR_RETURN(Statement s, ParseOneStatement());
    out.push_back(std::move(s));
    if (AtEof()) break;
    if (!At(TokenKind::kSemicolon)) {
      return ErrorHere("missing EOF at '" + Peek().raw + "'");
    }
  }
  return out;
}

}  // namespace keywise::cql
