// Small word helpers shared by the shell's command parsers.
//
// Contract: pure functions over ASCII case; CQL identifiers as cqlsh reads
// them in shell commands.
#pragma once

#include <cctype>
#include <string>

namespace keywise::shell {

inline std::string Lower(std::string s) {
  for (char& c : s) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return s;
}

inline std::string Upper(std::string s) {
  for (char& c : s) {
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return s;
}

// A name as the user wrote it: "Quoted" keeps its case (with "" as an
// escaped quote), a bare name is lower-cased.
inline std::string Unquote(const std::string& word) {
  if (word.size() >= 2 && word.front() == '"' && word.back() == '"') {
    std::string out;
    for (size_t i = 1; i + 1 < word.size(); ++i) {
      out += word[i];
      if (word[i] == '"' && word[i + 1] == '"') ++i;
    }
    return out;
  }
  return Lower(word);
}

}  // namespace keywise::shell
