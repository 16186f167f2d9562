// Fuzz target: the CQL parser (cql/parser.h) on any text, as QUERY and
// PREPARE hand it over: one statement, and a script of statements (as the
// shell and SOURCE read them).
//
// Input: the statement text, as is (not necessarily UTF-8: the parser
// must reject what it cannot read, never crash).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "cql/parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace keywise;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  int bind_count = -1;
  (void)cql::ParseStatement(text, &bind_count);
  (void)cql::ParseStatements(text);
  return 0;
}
