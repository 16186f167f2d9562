// AST building blocks shared by all statements: names, type names and terms.
//
// Contract: plain copyable values produced by the parser, with no semantics
// attached. Names are already resolved for case: unquoted identifiers are
// lower case, quoted ones keep their spelling. Literals keep their source
// text and a kind; converting them to values is the query layer's job
// (schema/value_literal.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace keywise::cql {

// `name` or `keyspace.name`; keyspace is empty when not given.
struct QualifiedName {
  std::string keyspace;
  std::string name;
};

// A CQL type as written: `int`, `frozen<list<int>>`, `map<text, int>`,
// `tuple<int, text>`, a user type `"MyType"` or `ks.addr`. Native and
// collection names are lower case; user type names keep quoted case.
struct TypeName {
  std::string name;            // "int", "frozen", "list", "map", "tuple", UDT
  std::string keyspace;        // only for `ks.udt`
  std::vector<TypeName> args;  // type parameters, in order
  bool quoted = false;         // name was a quoted identifier

  // Canonical text, e.g. "map<text, frozen<list<int>>>"; quoted names are
  // re-quoted. Suitable for schema's CqlType::Parse for built-in types.
  std::string ToString() const;
};

enum class LiteralKind : uint8_t {
  kString,    // text is unescaped content
  kInteger,   // text like "-12"
  kFloat,     // text like "1.5", "-2e3", "NaN", "-Infinity"
  kBoolean,   // text "true" / "false"
  kUuid,      // text as written
  kBlob,      // text "0x..." as written
  kDuration,  // text as written, e.g. "1h30m", "P1Y2M"
};

enum class TermKind : uint8_t {
  kLiteral,
  kNull,          // the `null` keyword
  kBindMarker,    // ? or :name
  kFunctionCall,  // fn(args); function holds the name, elements the args
  kList,          // [a, b]
  kSet,           // {a, b}; `{}` parses as an empty map (see kMap)
  kMap,           // {k: v, ...}; elements alternate key, value
  kTuple,         // (a, b)
  kUserType,      // {field: v, ...}; field_names parallel to elements
  kCast,          // (type) term; cast_type and elements[0]
  kIdentifier,    // a bare name; only as a property value (WITH x = name)
};

// The function an arithmetic operator calls ('n': unary minus), as
// Cassandra names them: "_add", "_substract", "_multiply", "_divide",
// "_modulo", "_negate".
const char* OperatorFunctionName(char op);

struct Term {
  TermKind kind = TermKind::kNull;
  LiteralKind literal_kind = LiteralKind::kString;
  std::string text;            // literal text; identifier name
  int bind_index = -1;         // position among the statement's markers
  std::string bind_name;       // for :name markers; empty for ?
  QualifiedName function;      // for kFunctionCall
  // For kFunctionCall written as an operator: '+', '-', '*', '/', '%'
  // (two elements, function "_add" ...), or 'n' for a negation (one
  // element, "_negate"); 0 for a named call.
  char op = 0;
  std::vector<Term> elements;  // see TermKind
  std::vector<std::string> field_names;  // for kUserType
  TypeName cast_type;                    // for kCast

  static Term Literal(LiteralKind kind, std::string text) {
    Term t;
    t.kind = TermKind::kLiteral;
    t.literal_kind = kind;
    t.text = std::move(text);
    return t;
  }
  bool IsBindMarker() const { return kind == TermKind::kBindMarker; }
};

}  // namespace keywise::cql
