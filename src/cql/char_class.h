// ASCII character classes of the CQL lexer (locale-independent).
//
// Contract: pure inline functions, shared by lexer.cc and literal_scan.cc.
#pragma once

namespace keywise::cql {

inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }
inline bool IsLetter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
inline bool IsHex(char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
inline bool IsIdentChar(char c) {
  return IsLetter(c) || IsDigit(c) || c == '_';
}
inline char Lower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

}  // namespace keywise::cql
