// Lexer: turns CQL text into Tokens, the way Cassandra 4's lexer splits it.
//
// Contract: Tokenize() is a pure function, safe from any thread. It never
// reads past `text` and never crashes on arbitrary bytes; malformed input
// yields Status::SyntaxError (code 0x2000) with "line L:C" in the message,
// worded like Cassandra's ANTLR lexer ("no viable alternative at character
// '@'", "mismatched character '<EOF>' expecting '''").
//
// As in Cassandra, a '-' directly followed by a digit is lexed as part of a
// negative number or duration ("-1", "-2.5", "-1h"); the parser copes with
// "c = c -1". Keywords are not special here: they come out as kIdentifier
// tokens in lower case, and the parser decides by context (most CQL keywords
// are non-reserved). Comments (--, //, /* */) and whitespace are skipped.
// The returned vector always ends with one kEof token. When `hidden` is not
// null it receives the skipped whitespace runs and comments as kHidden
// tokens (Cassandra keeps them on a hidden channel; error snippets need
// them).
#pragma once

#include <string_view>
#include <vector>

#include "common/status.h"
#include "cql/token.h"

namespace keywise::cql {

Result<std::vector<Token>> Tokenize(std::string_view text,
                                    std::vector<Token>* hidden = nullptr);

}  // namespace keywise::cql
