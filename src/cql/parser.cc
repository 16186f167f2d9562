#include "cql/parser.h"

#include "cql/lexer.h"
#include "cql/parser_internal.h"

namespace keywise::cql {

Result<Statement> ParseStatement(std::string_view text, int* bind_count) {
  std::vector<Token> hidden;
  KW_ASSIGN_OR_RETURN(std::vector<Token> tokens, Tokenize(text, &hidden));
  Parser parser(text, std::move(tokens), std::move(hidden));
  Result<Statement> statement = parser.ParseSingle();
  if (bind_count != nullptr) *bind_count = parser.bind_count();
  return statement;
}

Result<std::vector<Statement>> ParseStatements(std::string_view text) {
  std::vector<Token> hidden;
  KW_ASSIGN_OR_RETURN(std::vector<Token> tokens, Tokenize(text, &hidden));
  return Parser(text, std::move(tokens), std::move(hidden)).ParseScript();
}

}  // namespace keywise::cql
