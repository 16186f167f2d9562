#include "cql/ast_relation.h"

namespace keywise::cql {

const char* RelationOpName(RelationOp op) {
  switch (op) {
    case RelationOp::kEq:
      return "=";
    case RelationOp::kNotEq:
      return "!=";
    case RelationOp::kLt:
      return "<";
    case RelationOp::kLtEq:
      return "<=";
    case RelationOp::kGt:
      return ">";
    case RelationOp::kGtEq:
      return ">=";
    case RelationOp::kIn:
      return "IN";
    case RelationOp::kContains:
      return "CONTAINS";
    case RelationOp::kContainsKey:
      return "CONTAINS KEY";
    case RelationOp::kLike:
      return "LIKE";
    case RelationOp::kIsNotNull:
      return "IS NOT NULL";
  }
  return "?";
}

}  // namespace keywise::cql
