#include "query/write_term_text.h"

namespace keywise::query {
namespace {

std::string Joined(const std::vector<cql::Term>& terms, const char* open,
                   const char* close) {
  std::string out = open;
  for (size_t i = 0; i < terms.size(); ++i) {
    if (i > 0) out += ", ";
    out += TermText(terms[i]);
  }
  return out + close;
}

}  // namespace

std::string TermText(const cql::Term& term) {
  using cql::TermKind;
  switch (term.kind) {
    case TermKind::kLiteral: {
      if (term.literal_kind != cql::LiteralKind::kString) return term.text;
      std::string out = "'";
      for (char c : term.text) {
        out += c;
        if (c == '\'') out += '\'';
      }
      return out + "'";
    }
    case TermKind::kNull:
      return "null";
    case TermKind::kBindMarker:
      return term.bind_name.empty() ? "?" : ":" + term.bind_name;
    case TermKind::kFunctionCall: {
      std::string name = term.function.keyspace.empty()
                             ? term.function.name
                             : term.function.keyspace + "." + term.function.name;
      return name + Joined(term.elements, "(", ")");
    }
    case TermKind::kList:
      return Joined(term.elements, "[", "]");
    case TermKind::kSet:
      return Joined(term.elements, "{", "}");
    case TermKind::kMap: {
      std::string out = "{";
      for (size_t i = 0; i + 1 < term.elements.size(); i += 2) {
        if (i > 0) out += ", ";
        out += TermText(term.elements[i]) + ": " + TermText(term.elements[i + 1]);
      }
      return out + "}";
    }
    case TermKind::kTuple:
      return Joined(term.elements, "(", ")");
    case TermKind::kUserType: {
      std::string out = "{";
      for (size_t i = 0; i < term.elements.size(); ++i) {
        if (i > 0) out += ", ";
        out += term.field_names[i] + ": " + TermText(term.elements[i]);
      }
      return out + "}";
    }
    case TermKind::kCast:
      return "(" + term.cast_type.ToString() + ")" +
             (term.elements.empty() ? "" : TermText(term.elements[0]));
    case TermKind::kIdentifier:
      return term.text;
  }
  return "";
}

std::string RelationText(const cql::Relation& relation) {
  std::string lhs;
  if (relation.kind == cql::RelationKind::kSingleColumn) {
    lhs = relation.columns.empty() ? "" : relation.columns[0];
    if (relation.map_key) lhs += "[" + TermText(*relation.map_key) + "]";
  } else {
    lhs = relation.kind == cql::RelationKind::kToken ? "token(" : "(";
    for (size_t i = 0; i < relation.columns.size(); ++i) {
      if (i > 0) lhs += ", ";
      lhs += relation.columns[i];
    }
    lhs += ")";
  }
  std::string op = cql::RelationOpName(relation.op);
  if (relation.op == cql::RelationOp::kIsNotNull) return lhs + " " + op;
  if (relation.op == cql::RelationOp::kIn && relation.in_list) {
    return lhs + " IN " + Joined(relation.in_values, "(", ")");
  }
  return lhs + " " + op + " " + TermText(relation.value);
}

}  // namespace keywise::query
