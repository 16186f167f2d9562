#include "query/expr/term_text.h"

#include <string>
#include <vector>

namespace keywise::query {

using cql::RelationKind;
using cql::RelationOp;

std::string QualifiedNameText(const cql::QualifiedName& name) {
  return name.keyspace.empty() ? name.name : name.keyspace + "." + name.name;
}

std::string TermText(const cql::Term& term) {
  auto join = [](const std::vector<cql::Term>& terms, const char* open,
                 const char* close) {
    std::string out = open;
    for (size_t i = 0; i < terms.size(); ++i) {
      if (i > 0) out += ", ";
      out += TermText(terms[i]);
    }
    return out + close;
  };
  switch (term.kind) {
    case cql::TermKind::kLiteral:
      if (term.literal_kind == cql::LiteralKind::kString) {
        std::string out = "'";
        for (char c : term.text) {
          out += c;
          if (c == '\'') out += '\'';
        }
        return out + "'";
      }
      return term.text;
    case cql::TermKind::kNull:
      return "NULL";
    case cql::TermKind::kBindMarker:
      return term.bind_name.empty() ? "?" : ":" + term.bind_name;
    case cql::TermKind::kFunctionCall: {
      if (term.op == 'n') return "-" + TermText(term.elements.at(0));
      if (term.op != 0) {
        return TermText(term.elements.at(0)) + " " + term.op + " " +
               TermText(term.elements.at(1));
      }
      return QualifiedNameText(term.function) + join(term.elements, "(", ")");
    }
    case cql::TermKind::kList:
      return join(term.elements, "[", "]");
    case cql::TermKind::kSet:
      return join(term.elements, "{", "}");
    case cql::TermKind::kMap: {
      std::string out = "{";
      for (size_t i = 0; i + 1 < term.elements.size(); i += 2) {
        if (i > 0) out += ", ";
        out +=
            TermText(term.elements[i]) + ": " + TermText(term.elements[i + 1]);
      }
      return out + "}";
    }
    case cql::TermKind::kTuple:
      return join(term.elements, "(", ")");
    case cql::TermKind::kUserType: {
      std::string out = "{";
      for (size_t i = 0; i < term.elements.size(); ++i) {
        if (i > 0) out += ", ";
        out += term.field_names[i] + ": " + TermText(term.elements[i]);
      }
      return out + "}";
    }
    case cql::TermKind::kCast:
      return "(" + term.cast_type.ToString() + ")" +
             (term.elements.empty() ? "" : TermText(term.elements[0]));
    case cql::TermKind::kIdentifier:
      return term.text;
  }
  return "";
}

namespace {

// `values`: the values as written; else each value (an IN list too) as `?`.
std::string RelationTextOf(const cql::Relation& r, bool values) {
  auto tuple = [](const std::vector<std::string>& names) {
    std::string out = "(";
    for (size_t i = 0; i < names.size(); ++i) {
      if (i > 0) out += ", ";
      out += names[i];
    }
    return out + ")";
  };
  std::string entity;
  switch (r.kind) {
    case RelationKind::kSingleColumn:
      entity = r.columns.empty() ? "" : r.columns[0];
      if (r.map_key) {
        entity +=
            "[" + (values ? TermText(*r.map_key) : std::string("?")) + "]";
      }
      break;
    case RelationKind::kMultiColumn:
      entity = tuple(r.columns);
      break;
    case RelationKind::kToken:
      entity = "token" + tuple(r.columns);
      break;
  }
  if (r.op == RelationOp::kIsNotNull) return entity + " IS NOT NULL";
  std::string value;
  if (!values) {
    value = "?";
  } else if (r.op == RelationOp::kIn && r.in_list) {
    value = "(";
    for (size_t i = 0; i < r.in_values.size(); ++i) {
      if (i > 0) value += ", ";
      value += TermText(r.in_values[i]);
    }
    value += ")";
  } else {
    value = TermText(r.value);
  }
  return entity + " " + cql::RelationOpName(r.op) + " " + value;
}

}  // namespace

std::string RelationText(const cql::Relation& r) {
  return RelationTextOf(r, true);
}

std::string RelationShapeText(const cql::Relation& r) {
  return RelationTextOf(r, false);
}

}  // namespace keywise::query
