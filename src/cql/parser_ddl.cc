// USE, CREATE/ALTER/DROP dispatch (roles: parser_auth.cc), keyspace
// statements, DROP TABLE, DROP INDEX, ALTER/DROP MATERIALIZED VIEW, user
// types and TRUNCATE.
#include "cql/parser_internal.h"

namespace keywise::cql {

Result<Statement> Parser::ParseUse() {
  KW_RETURN_IF_ERROR(ExpectKeyword("use"));
  UseStatement s;
  KW_ASSIGN_OR_RETURN(s.keyspace, ParseName());
  return Statement(std::move(s));
}

Result<Statement> Parser::ParseTruncate() {
  KW_RETURN_IF_ERROR(ExpectKeyword("truncate"));
  if (!AcceptKeyword("table")) AcceptKeyword("columnfamily");
  TruncateStatement s;
  KW_ASSIGN_OR_RETURN(s.table, ParseQualifiedName());
  return Statement(std::move(s));
}

Result<Statement> Parser::ParseCreate() {
  KW_RETURN_IF_ERROR(ExpectKeyword("create"));
  if (AcceptKeyword("role")) return ParseCreateRole(RoleForm::kRole);
  if (AcceptKeyword("user")) return ParseCreateRole(RoleForm::kUser);
  if (AcceptKeyword("keyspace") || AcceptKeyword("schema")) {
    CreateKeyspaceStatement s;
    KW_ASSIGN_OR_RETURN(s.if_not_exists, ParseIfNotExists());
    KW_ASSIGN_OR_RETURN(s.keyspace, ParseName());
    KW_RETURN_IF_ERROR(ExpectKeyword("with"));
    KW_ASSIGN_OR_RETURN(s.options, ParseProperties());
    return Statement(std::move(s));
  }
  if (AcceptKeyword("table") || AcceptKeyword("columnfamily")) {
    KW_ASSIGN_OR_RETURN(CreateTableStatement s, ParseCreateTable());
    return Statement(std::move(s));
  }
  if (AtKeyword("custom") || AtKeyword("index")) {
    KW_ASSIGN_OR_RETURN(CreateIndexStatement s, ParseCreateIndex());
    return Statement(std::move(s));
  }
  if (AcceptKeyword("materialized")) {
    KW_RETURN_IF_ERROR(ExpectKeyword("view"));
    KW_ASSIGN_OR_RETURN(CreateViewStatement s, ParseCreateView());
    return Statement(std::move(s));
  }
  if (AcceptKeyword("type")) {
    CreateTypeStatement s;
    KW_ASSIGN_OR_RETURN(s.if_not_exists, ParseIfNotExists());
    KW_ASSIGN_OR_RETURN(s.name, ParseQualifiedName());
    KW_RETURN_IF_ERROR(Expect(TokenKind::kLParen));
    do {
      if (At(TokenKind::kRParen) && !s.fields.empty()) break;  // `a int,)`
      KW_ASSIGN_OR_RETURN(std::string field, ParseName());
      KW_ASSIGN_OR_RETURN(TypeName type, ParseType());
      s.fields.emplace_back(std::move(field), std::move(type));
    } while (Accept(TokenKind::kComma));
    KW_RETURN_IF_ERROR(Expect(TokenKind::kRParen));
    return Statement(std::move(s));
  }
  return NoViableAlt();
}

Result<Statement> Parser::ParseAlter() {
  KW_RETURN_IF_ERROR(ExpectKeyword("alter"));
  if (AcceptKeyword("role")) return ParseAlterRole(RoleForm::kRole);
  if (AcceptKeyword("user")) return ParseAlterRole(RoleForm::kUser);
  if (AcceptKeyword("keyspace") || AcceptKeyword("schema")) {
    AlterKeyspaceStatement s;
    KW_ASSIGN_OR_RETURN(s.if_exists, ParseIfExists());
    KW_ASSIGN_OR_RETURN(s.keyspace, ParseName());
    KW_RETURN_IF_ERROR(ExpectKeyword("with"));
    KW_ASSIGN_OR_RETURN(s.options, ParseProperties());
    return Statement(std::move(s));
  }
  if (AcceptKeyword("table") || AcceptKeyword("columnfamily")) {
    KW_ASSIGN_OR_RETURN(AlterTableStatement s, ParseAlterTable());
    return Statement(std::move(s));
  }
  if (AcceptKeyword("materialized")) {
    KW_RETURN_IF_ERROR(ExpectKeyword("view"));
    AlterViewStatement s;
    KW_ASSIGN_OR_RETURN(s.view, ParseQualifiedName());
    KW_RETURN_IF_ERROR(ExpectKeyword("with"));
    KW_ASSIGN_OR_RETURN(s.options, ParseProperties());
    return Statement(std::move(s));
  }
  if (AcceptKeyword("type")) {
    KW_ASSIGN_OR_RETURN(AlterTypeStatement s, ParseAlterType());
    return Statement(std::move(s));
  }
  return NoViableAlt();
}

Result<AlterTypeStatement> Parser::ParseAlterType() {
  AlterTypeStatement s;
  KW_ASSIGN_OR_RETURN(s.if_exists, ParseIfExists());
  KW_ASSIGN_OR_RETURN(s.name, ParseQualifiedName());
  if (AcceptKeyword("add")) {
    s.kind = AlterTypeKind::kAdd;
    KW_ASSIGN_OR_RETURN(s.if_field_exists, ParseIfNotExists());
    KW_ASSIGN_OR_RETURN(s.field, ParseName());
    KW_ASSIGN_OR_RETURN(s.type, ParseType());
    return s;
  }
  if (AcceptKeyword("rename")) {
    s.kind = AlterTypeKind::kRename;
    KW_ASSIGN_OR_RETURN(s.if_field_exists, ParseIfExists());
    KW_ASSIGN_OR_RETURN(s.renames, ParseRenames());
    return s;
  }
  KW_RETURN_IF_ERROR(ExpectKeyword("alter"));
  s.kind = AlterTypeKind::kAlterField;
  KW_ASSIGN_OR_RETURN(s.field, ParseName());
  KW_RETURN_IF_ERROR(ExpectKeyword("type"));
  KW_ASSIGN_OR_RETURN(s.type, ParseType());
  return s;
}

Result<Statement> Parser::ParseDrop() {
  KW_RETURN_IF_ERROR(ExpectKeyword("drop"));
  if (AcceptKeyword("role")) return ParseDropRole(RoleForm::kRole);
  if (AcceptKeyword("user")) return ParseDropRole(RoleForm::kUser);
  if (AcceptKeyword("keyspace") || AcceptKeyword("schema")) {
    DropKeyspaceStatement s;
    KW_ASSIGN_OR_RETURN(s.if_exists, ParseIfExists());
    KW_ASSIGN_OR_RETURN(s.keyspace, ParseName());
    return Statement(std::move(s));
  }
  if (AcceptKeyword("table") || AcceptKeyword("columnfamily")) {
    DropTableStatement s;
    KW_ASSIGN_OR_RETURN(s.if_exists, ParseIfExists());
    KW_ASSIGN_OR_RETURN(s.table, ParseQualifiedName());
    return Statement(std::move(s));
  }
  if (AcceptKeyword("index")) {
    DropIndexStatement s;
    KW_ASSIGN_OR_RETURN(s.if_exists, ParseIfExists());
    KW_ASSIGN_OR_RETURN(s.index, ParseQualifiedName());
    return Statement(std::move(s));
  }
  if (AcceptKeyword("materialized")) {
    KW_RETURN_IF_ERROR(ExpectKeyword("view"));
    DropViewStatement s;
    KW_ASSIGN_OR_RETURN(s.if_exists, ParseIfExists());
    KW_ASSIGN_OR_RETURN(s.view, ParseQualifiedName());
    return Statement(std::move(s));
  }
  if (AcceptKeyword("type")) {
    DropTypeStatement s;
    KW_ASSIGN_OR_RETURN(s.if_exists, ParseIfExists());
    KW_ASSIGN_OR_RETURN(s.name, ParseQualifiedName());
    return Statement(std::move(s));
  }
  return NoViableAlt();
}

}  // namespace keywise::cql
