#include "cql/parser.h"

#include "cql/lexer.h"
#include "cql/parser_internal.h"

namespace keywise::cql {

Result<Statement> ParseStatement(std::string_view text) {
  std::vector<Token> hidden;
  KW_ASSIGN_OR_RETURN(std::vector<Token> tokens, Tokenize(text, &hidden));
  return Parser(text, std::move(tokens), std::move(hidden)).ParseSingle();
}

Result<std::vector<Statement>> ParseStatements(std::string_view text) {
  std::vector<Token> hidden;
  KW_ASSIGN_OR_RETURN(std::vector<Token> tokens, Tokenize(text, &hidden));
  return Parser(text, std::move(tokens), std::move(hidden)).ParseScript();
}

}  // namespace keywise::cql
