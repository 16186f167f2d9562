// TextCursor: the scanning state shared by the schema module's small
// recursive-descent parsers (CQL type syntax, value literals).
//
// Contract: not thread-safe; one cursor per parse. Derived parsers read
// text_ at pos_ and supply Error(), which Expect() uses.
#pragma once

#include <cctype>
#include <cstddef>
#include <string>
#include <string_view>

#include "common/status.h"

namespace keywise {

class TextCursor {
 public:
  explicit TextCursor(std::string_view text) : text_(text) {}
  virtual ~TextCursor() = default;

 protected:
  // The Status to return for a parse error described by `what`.
  virtual Status Error(std::string_view what) const = 0;

  void SkipSpace() {
    while (pos_ < text_.size() &&
           std::isspace(static_cast<unsigned char>(text_[pos_]))) {
      pos_++;
    }
  }
  // Skips spaces, then consumes `c` if it is next; returns whether it did.
  bool Consume(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      pos_++;
      return true;
    }
    return false;
  }
  Status Expect(char c) {
    if (!Consume(c)) return Error(std::string("expected '") + c + "'");
    return Status::OK();
  }

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace keywise
