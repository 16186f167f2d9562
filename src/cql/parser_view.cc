// CREATE MATERIALIZED VIEW.
#include "cql/parser_internal.h"

namespace keywise::cql {

// After CREATE MATERIALIZED VIEW: [IF NOT EXISTS] view AS SELECT selectors
// FROM base [WHERE relations] PRIMARY KEY (...) [WITH property AND ...].
Result<CreateViewStatement> Parser::ParseCreateView() {
  CreateViewStatement s;
  KW_ASSIGN_OR_RETURN(s.if_not_exists, ParseIfNotExists());
  KW_ASSIGN_OR_RETURN(s.view, ParseQualifiedName());
  KW_RETURN_IF_ERROR(ExpectKeyword("as"));
  KW_RETURN_IF_ERROR(ExpectKeyword("select"));
  if (Accept(TokenKind::kStar)) {
    s.select_all = true;
  } else {
    // Cassandra's grammar takes any selector here; only bare names make a
    // valid view, the rest is kept for the query layer's message.
    do {
      const size_t first = pos_;
      KW_ASSIGN_OR_RETURN(Selector sel, ParseSelector());
      const size_t end = pos_;
      const bool aliased = AcceptKeyword("as");
      if (aliased) KW_RETURN_IF_ERROR(ParseName().status());
      if (sel.kind == SelectorKind::kColumn && !aliased) {
        s.columns.push_back(std::move(sel.column));
      } else if (s.rejected_selector.empty()) {
        s.rejected_selector = SourceText(first, end);
        s.rejected_selector_aliased = aliased;
      }
    } while (Accept(TokenKind::kComma));
  }
  KW_RETURN_IF_ERROR(ExpectKeyword("from"));
  KW_ASSIGN_OR_RETURN(s.base, ParseQualifiedName());
  if (AcceptKeyword("where")) {
    const size_t first = pos_;
    KW_ASSIGN_OR_RETURN(s.where, ParseWhere());
    s.where_text = SourceText(first, pos_);
  }
  KW_RETURN_IF_ERROR(ExpectKeyword("primary"));
  KW_RETURN_IF_ERROR(ExpectKeyword("key"));
  KW_RETURN_IF_ERROR(
      ParsePrimaryKeyColumns(&s.partition_key, &s.clustering_columns));
  if (!AcceptKeyword("with")) return s;
  do {
    if (AtKeyword("clustering")) {
      KW_RETURN_IF_ERROR(ParseClusteringOrder(&s.clustering_order));
    } else if (AtKeyword("compact") && AtKeyword("storage", 1)) {
      // Cassandra 4 raises this from inside its grammar, without position.
      return Status::SyntaxError(
          "COMPACT STORAGE tables are not allowed starting with version 4.0");
    } else {
      KW_ASSIGN_OR_RETURN(Property p, ParseProperty());
      s.options.push_back(std::move(p));
    }
  } while (AcceptKeyword("and"));
  return s;
}

}  // namespace keywise::cql
