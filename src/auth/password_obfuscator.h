// Statement text with passwords hidden, for what is kept or shown beyond
// the request itself (system_traces.sessions' parameters), as Cassandra's
// PasswordObfuscator does: everything after the word PASSWORD (any case)
// becomes "*******".
//
// Contract: pure, thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace keywise::auth {

// Whether `statement` mentions PASSWORD (any case).
bool MentionsPassword(std::string_view statement);

// `statement` up to and including its first PASSWORD, then " *******";
// unchanged when it has none.
std::string ObfuscatePasswords(std::string_view statement);

}  // namespace keywise::auth
