#include "auth/password_obfuscator.h"

#include <cctype>

namespace keywise::auth {
namespace {

constexpr std::string_view kWord = "password";

size_t FindPassword(std::string_view s) {
  for (size_t i = 0; i + kWord.size() <= s.size(); ++i) {
    size_t k = 0;
    while (k < kWord.size() &&
           std::tolower(static_cast<unsigned char>(s[i + k])) == kWord[k]) {
      ++k;
    }
    if (k == kWord.size()) return i;
  }
  return std::string_view::npos;
}

}  // namespace

bool MentionsPassword(std::string_view statement) {
  return FindPassword(statement) != std::string_view::npos;
}

std::string ObfuscatePasswords(std::string_view statement) {
  const size_t at = FindPassword(statement);
  if (at == std::string_view::npos) return std::string(statement);
  return std::string(statement.substr(0, at + kWord.size())) + " *******";
}

}  // namespace keywise::auth
