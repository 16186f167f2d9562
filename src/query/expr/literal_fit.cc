#include "query/expr/literal_fit.h"

namespace keywise::query {

using cql::LiteralKind;

bool LiteralFits(LiteralKind kind, TypeKind type) {
  switch (kind) {
    case LiteralKind::kString:
      return type == TypeKind::kAscii || type == TypeKind::kVarchar ||
             type == TypeKind::kInet || type == TypeKind::kDate ||
             type == TypeKind::kTime || type == TypeKind::kTimestamp;
    case LiteralKind::kInteger:
      return type == TypeKind::kBigint || type == TypeKind::kCounter ||
             type == TypeKind::kDate || type == TypeKind::kDecimal ||
             type == TypeKind::kDouble || type == TypeKind::kFloat ||
             type == TypeKind::kInt || type == TypeKind::kSmallint ||
             type == TypeKind::kTime || type == TypeKind::kTimestamp ||
             type == TypeKind::kTinyint || type == TypeKind::kVarint;
    case LiteralKind::kFloat:
      return type == TypeKind::kDecimal || type == TypeKind::kDouble ||
             type == TypeKind::kFloat;
    case LiteralKind::kBoolean:
      return type == TypeKind::kBoolean;
    case LiteralKind::kUuid:
      return type == TypeKind::kUuid || type == TypeKind::kTimeuuid;
    case LiteralKind::kBlob:
      return type == TypeKind::kBlob;
    case LiteralKind::kDuration:
      return type == TypeKind::kDuration;
  }
  return false;
}

const char* LiteralKindName(LiteralKind kind) {
  switch (kind) {
    case LiteralKind::kString:
      return "STRING";
    case LiteralKind::kInteger:
      return "INTEGER";
    case LiteralKind::kFloat:
      return "FLOAT";
    case LiteralKind::kBoolean:
      return "BOOLEAN";
    case LiteralKind::kUuid:
      return "UUID";
    case LiteralKind::kBlob:
      return "HEX";
    case LiteralKind::kDuration:
      return "DURATION";
  }
  return "UNKNOWN";
}

}  // namespace keywise::query
