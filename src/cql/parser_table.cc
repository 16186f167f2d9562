// CREATE TABLE and ALTER TABLE, and the PRIMARY KEY and CLUSTERING ORDER
// clauses CREATE MATERIALIZED VIEW shares with them.
#include "cql/parser_internal.h"

namespace keywise::cql {

Result<ColumnDef> Parser::ParseColumnDef() {
  ColumnDef def;
  KW_ASSIGN_OR_RETURN(def.name, ParseName());
  KW_ASSIGN_OR_RETURN(def.type, ParseType());
  if (AcceptKeyword("static")) def.is_static = true;
  if (AtKeyword("primary")) {
    Next();
    KW_RETURN_IF_ERROR(ExpectKeyword("key"));
    def.primary_key = true;
  }
  return def;
}

Status Parser::ParsePrimaryKeyColumns(std::vector<std::string>* partition_key,
                                      std::vector<std::string>* clustering) {
  KW_RETURN_IF_ERROR(Expect(TokenKind::kLParen));
  partition_key->clear();
  clustering->clear();
  if (Accept(TokenKind::kLParen)) {
    do {
      KW_ASSIGN_OR_RETURN(std::string c, ParseName());
      partition_key->push_back(std::move(c));
    } while (Accept(TokenKind::kComma));
    KW_RETURN_IF_ERROR(Expect(TokenKind::kRParen));
  } else {
    KW_ASSIGN_OR_RETURN(std::string c, ParseName());
    partition_key->push_back(std::move(c));
  }
  while (Accept(TokenKind::kComma)) {
    KW_ASSIGN_OR_RETURN(std::string c, ParseName());
    clustering->push_back(std::move(c));
  }
  return Expect(TokenKind::kRParen);
}

Status Parser::ParseClusteringOrder(
    std::vector<std::pair<std::string, Order>>* order) {
  KW_RETURN_IF_ERROR(ExpectKeyword("clustering"));
  KW_RETURN_IF_ERROR(ExpectKeyword("order"));
  KW_RETURN_IF_ERROR(ExpectKeyword("by"));
  KW_RETURN_IF_ERROR(Expect(TokenKind::kLParen));
  do {
    KW_ASSIGN_OR_RETURN(std::string c, ParseName());
    Order o = Order::kAsc;
    if (AcceptKeyword("desc")) {
      o = Order::kDesc;
    } else if (!AcceptKeyword("asc")) {
      return NoViableAlt();
    }
    order->emplace_back(std::move(c), o);
  } while (Accept(TokenKind::kComma));
  return Expect(TokenKind::kRParen);
}

Result<CreateTableStatement> Parser::ParseCreateTable() {
  CreateTableStatement s;
  KW_ASSIGN_OR_RETURN(s.if_not_exists, ParseIfNotExists());
  KW_ASSIGN_OR_RETURN(s.table, ParseQualifiedName());
  KW_RETURN_IF_ERROR(Expect(TokenKind::kLParen));
  do {
    if (AtKeyword("primary")) {
      Next();
      KW_RETURN_IF_ERROR(ExpectKeyword("key"));
      ++s.primary_key_declarations;
      KW_RETURN_IF_ERROR(
          ParsePrimaryKeyColumns(&s.partition_key, &s.clustering_columns));
      continue;
    }
    KW_ASSIGN_OR_RETURN(ColumnDef def, ParseColumnDef());
    if (def.primary_key) {
      ++s.primary_key_declarations;
      s.partition_key = {def.name};
      s.clustering_columns.clear();
    }
    s.columns.push_back(std::move(def));
  } while (Accept(TokenKind::kComma) && !At(TokenKind::kRParen));
  KW_RETURN_IF_ERROR(Expect(TokenKind::kRParen));
  if (!AcceptKeyword("with")) return s;
  do {
    if (AtKeyword("clustering")) {
      KW_RETURN_IF_ERROR(ParseClusteringOrder(&s.clustering_order));
    } else if (AtKeyword("compact") && AtKeyword("storage", 1)) {
      Next();
      Next();
      s.compact_storage = true;
    } else {
      KW_ASSIGN_OR_RETURN(Property p, ParseProperty());
      s.options.push_back(std::move(p));
    }
  } while (AcceptKeyword("and"));
  return s;
}

Result<std::vector<std::pair<std::string, std::string>>>
Parser::ParseRenames() {
  std::vector<std::pair<std::string, std::string>> renames;
  do {
    KW_ASSIGN_OR_RETURN(std::string from, ParseName());
    KW_RETURN_IF_ERROR(ExpectKeyword("to"));
    KW_ASSIGN_OR_RETURN(std::string to, ParseName());
    renames.emplace_back(std::move(from), std::move(to));
  } while (AcceptKeyword("and"));
  return renames;
}

Result<AlterTableStatement> Parser::ParseAlterTable() {
  AlterTableStatement s;
  KW_ASSIGN_OR_RETURN(s.table, ParseQualifiedName());
  if (AcceptKeyword("add")) {
    s.kind = AlterTableKind::kAdd;
    bool parens = Accept(TokenKind::kLParen);
    do {
      KW_ASSIGN_OR_RETURN(ColumnDef def, ParseColumnDef());
      if (def.primary_key) return NoViableAlt();
      s.added.push_back(std::move(def));
    } while (Accept(TokenKind::kComma));
    if (parens) KW_RETURN_IF_ERROR(Expect(TokenKind::kRParen));
    return s;
  }
  if (AcceptKeyword("drop")) {
    s.kind = AlterTableKind::kDrop;
    bool parens = Accept(TokenKind::kLParen);
    do {
      KW_ASSIGN_OR_RETURN(std::string c, ParseName());
      s.dropped.push_back(std::move(c));
    } while (parens && Accept(TokenKind::kComma));
    if (parens) KW_RETURN_IF_ERROR(Expect(TokenKind::kRParen));
    if (AcceptKeyword("using")) {
      KW_RETURN_IF_ERROR(ExpectKeyword("timestamp"));
      if (!At(TokenKind::kInteger)) return NoViableAlt();
      s.drop_timestamp = Next().text;
    }
    return s;
  }
  if (AcceptKeyword("rename")) {
    s.kind = AlterTableKind::kRename;
    KW_ASSIGN_OR_RETURN(s.renames, ParseRenames());
    return s;
  }
  if (AcceptKeyword("with")) {
    // Keywise extension (docs/cql_extensions.md): WITH PRIMARY KEY (...)
    // [AND CLUSTERING ORDER BY (...)] changes the table's key online.
    if (AtKeyword("primary")) {
      s.kind = AlterTableKind::kPrimaryKey;
      KW_RETURN_IF_ERROR(ExpectKeyword("primary"));
      KW_RETURN_IF_ERROR(ExpectKeyword("key"));
      KW_RETURN_IF_ERROR(
          ParsePrimaryKeyColumns(&s.partition_key, &s.clustering_columns));
      if (AcceptKeyword("and")) {
        KW_RETURN_IF_ERROR(ParseClusteringOrder(&s.clustering_order));
      }
      return s;
    }
    s.kind = AlterTableKind::kWith;
    KW_ASSIGN_OR_RETURN(s.options, ParseProperties());
    return s;
  }
  // Keywise extension: CANCEL PRIMARY KEY CHANGE.
  if (AcceptKeyword("cancel")) {
    s.kind = AlterTableKind::kCancelKeyChange;
    KW_RETURN_IF_ERROR(ExpectKeyword("primary"));
    KW_RETURN_IF_ERROR(ExpectKeyword("key"));
    KW_RETURN_IF_ERROR(ExpectKeyword("change"));
    return s;
  }
  return NoViableAlt();
}

}  // namespace keywise::cql
