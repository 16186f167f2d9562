// The CQL text of raw terms and relations as Cassandra prints them in error
// messages (Term.Raw.getText, Relation.toString): literals as written
// (strings quoted), markers as `?` or `:name`, collections and tuples with
// ", " separators.
//
// Contract: pure functions.
#pragma once

#include <string>

#include "cql/ast_relation.h"
#include "cql/ast_term.h"

namespace keywise::query {

std::string TermText(const cql::Term& term);
std::string RelationText(const cql::Relation& relation);
// The relation with every value as `?` (`c IN ?`, `m[?] = ?`): its shape.
std::string RelationShapeText(const cql::Relation& relation);
// `name` or `keyspace.name`, as written.
std::string QualifiedNameText(const cql::QualifiedName& name);

}  // namespace keywise::query
