// UTF-8 helpers: validation, decoding one character, replacement of
// ill-formed sequences, cutting at a character boundary, and the UTF-16
// length Java (so Cassandra) counts positions in.
//
// Contract: pure functions, thread-safe, safe on arbitrary bytes.
// "Well-formed" is Unicode's definition (chapter 3, table 3-7): shortest
// form only, no surrogates (U+D800..U+DFFF), nothing above U+10FFFF. An
// ill-formed sequence is measured as its "maximal subpart" (Unicode 3.9,
// also the W3C/WHATWG decoders' rule): the bytes that begin a well-formed
// sequence but stop short of one, or else a single byte. Each maximal
// subpart stands for one U+FFFD REPLACEMENT CHARACTER.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace keywise {

inline constexpr char32_t kReplacementCharacter = 0xFFFD;

// The character at the front of a byte string.
struct Utf8Char {
  // The code point; kReplacementCharacter when !valid.
  char32_t code_point = 0;
  // Bytes taken: the whole sequence, or the maximal subpart (at least 1)
  // when ill-formed; 0 only for empty input.
  size_t length = 0;
  bool valid = false;
};

// Returns the character at the front of `bytes`.
Utf8Char DecodeUtf8Char(std::string_view bytes);

// Returns true if `bytes` is well-formed UTF-8 (the empty string is).
bool IsValidUtf8(std::string_view bytes);

// Returns the offset of the first ill-formed sequence in `bytes`, or
// bytes.size() when all of it is well formed.
size_t FindInvalidUtf8(std::string_view bytes);

// Returns `bytes` with each maximal subpart of an ill-formed sequence
// replaced by U+FFFD (EF BF BD); well-formed input comes back unchanged.
std::string SanitizeUtf8(std::string_view bytes);

// Returns the longest prefix of `bytes` no longer than `max_bytes` that does
// not end inside a character (ill-formed bytes count as one-byte pieces).
std::string_view Utf8Prefix(std::string_view bytes, size_t max_bytes);

// Returns the number of UTF-16 code units `bytes` decodes to (Java's
// String.length()): 2 per character above U+FFFF, 1 per other character
// and per maximal subpart of an ill-formed sequence.
size_t Utf16Length(std::string_view bytes);

// Appends the UTF-8 encoding of `code_point` to *out; surrogates and values
// above U+10FFFF are appended as U+FFFD.
void AppendUtf8(char32_t code_point, std::string* out);

}  // namespace keywise
