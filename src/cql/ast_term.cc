#include "cql/ast_term.h"

namespace keywise::cql {
namespace {

std::string QuoteIfNeeded(const std::string& name, bool quoted) {
  if (!quoted) return name;
  std::string out = "\"";
  for (char c : name) {
    out.push_back(c);
    if (c == '"') out.push_back('"');
  }
  out.push_back('"');
  return out;
}

}  // namespace

const char* OperatorFunctionName(char op) {
  switch (op) {
    case '+':
      return "_add";
    case '-':
      return "_substract";
    case '*':
      return "_multiply";
    case '/':
      return "_divide";
    case '%':
      return "_modulo";
    default:
      return "_negate";
  }
}

std::string TypeName::ToString() const {
  std::string out;
  if (!keyspace.empty()) {
    // Quoted unless CQL would read it back unchanged (lower-case word).
    bool plain = true;
    for (char c : keyspace) {
      plain = plain &&
              ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_');
    }
    out = QuoteIfNeeded(keyspace, !plain) + ".";
  }
  out += QuoteIfNeeded(name, quoted);
  if (!args.empty()) {
    out += "<";
    for (size_t i = 0; i < args.size(); ++i) {
      if (i > 0) out += ", ";
      out += args[i].ToString();
    }
    out += ">";
  }
  return out;
}

}  // namespace keywise::cql
