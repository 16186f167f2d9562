// How CQL prints an identifier (a keyspace, table, column or type name).
//
// Contract: pure function.
#pragma once

#include <string>

namespace keywise {

// A name as CQL prints it: bare when lower-case [a-z][a-z0-9_]*, else
// double-quoted with inner quotes doubled.
std::string CqlName(const std::string& name);

}  // namespace keywise
