#include "cql/lexer.h"

#include <cctype>
#include <string>

#include "common/utf8.h"
#include "cql/char_class.h"
#include "cql/literal_scan.h"

namespace keywise::cql {
namespace {

// How ANTLR displays a character in lexer errors: the whole character, as
// Cassandra's lexer reads the decoded query string, never a byte of it
// (an ill-formed byte, which the server rejects before parsing, shows as
// U+FFFD).
std::string CharDisplay(std::string_view text, size_t pos) {
  if (pos >= text.size()) return "'<EOF>'";
  char c = text[pos];
  if (c == '\n') return "'\\n'";
  if (c == '\r') return "'\\r'";
  if (c == '\t') return "'\\t'";
  std::string out = "'";
  AppendUtf8(DecodeUtf8Char(text.substr(pos)).code_point, &out);
  return out + "'";
}

class Lexer {
 public:
  Lexer(std::string_view text, std::vector<Token>* hidden)
      : text_(text), hidden_(hidden) {}

  Result<std::vector<Token>> Run() {
    std::vector<Token> out;
    while (true) {
      KW_RETURN_IF_ERROR(SkipSpaceAndComments());
      if (pos_ >= text_.size()) break;
      Token tok;
      tok.line = line_;
      tok.column = Column();
      tok.offset = pos_;
      tok.stream_index = stream_count_++;
      KW_RETURN_IF_ERROR(Next(tok));
      tok.raw = std::string(text_.substr(tok.offset, pos_ - tok.offset));
      out.push_back(std::move(tok));
    }
    Token eof;
    eof.kind = TokenKind::kEof;
    eof.raw = "<EOF>";
    eof.line = line_;
    eof.column = Column();
    eof.offset = text_.size();
    eof.stream_index = stream_count_;
    out.push_back(std::move(eof));
    return out;
  }

 private:
  char At(size_t i) const { return i < text_.size() ? text_[i] : '\0'; }

  void Advance() {
    if (pos_ < text_.size() && text_[pos_] == '\n') {
      ++line_;
      line_start_ = pos_ + 1;
    }
    ++pos_;
  }

  // The column of pos_ on its line in UTF-16 code units, as Java (and so
  // Cassandra) counts them. Positions only move forward, so the count
  // continues from the previous call on the same line.
  int Column() {
    if (column_pos_ < line_start_) {
      column_pos_ = line_start_;
      column_ = 0;
    }
    column_ += Utf16Length(text_.substr(column_pos_, pos_ - column_pos_));
    column_pos_ = pos_;
    return static_cast<int>(column_);
  }

  Status ErrorAt(size_t pos, const std::string& what) const {
    // Compute line/column of pos (pos is at or after line_start_ or on a
    // later line reached while scanning a multi-line token).
    int line = 1;
    size_t start = 0;
    for (size_t i = 0; i < pos && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        start = i + 1;
      }
    }
    const size_t column = Utf16Length(text_.substr(start, pos - start));
    return Status::SyntaxError("line " + std::to_string(line) + ":" +
                               std::to_string(column) + " " + what);
  }

  // Records the hidden token [start, pos_) that began at line:column.
  void EmitHidden(size_t start, int line, int column) {
    size_t index = stream_count_++;
    if (hidden_ == nullptr) return;
    Token t;
    t.kind = TokenKind::kHidden;
    t.raw = std::string(text_.substr(start, pos_ - start));
    t.line = line;
    t.column = column;
    t.offset = start;
    t.stream_index = index;
    hidden_->push_back(std::move(t));
  }

  static bool IsSpace(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
  }

  Status SkipSpaceAndComments() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      size_t start = pos_;
      int line = line_;
      int column = Column();
      if (IsSpace(c)) {
        while (pos_ < text_.size() && IsSpace(text_[pos_])) Advance();
      } else if ((c == '-' && At(pos_ + 1) == '-') ||
                 (c == '/' && At(pos_ + 1) == '/')) {
        // The comment includes its end of line, as in Cassandra's lexer.
        while (pos_ < text_.size() && text_[pos_] != '\n') Advance();
        if (pos_ < text_.size()) Advance();
      } else if (c == '/' && At(pos_ + 1) == '*') {
        Advance();
        Advance();
        while (true) {
          if (pos_ >= text_.size()) {
            return ErrorAt(pos_, "mismatched character '<EOF>' expecting '*'");
          }
          if (text_[pos_] == '*' && At(pos_ + 1) == '/') {
            Advance();
            Advance();
            break;
          }
          Advance();
        }
      } else {
        break;
      }
      EmitHidden(start, line, column);
    }
    return Status::OK();
  }

  size_t SkipDigits(size_t p) const {
    while (IsDigit(At(p))) ++p;
    return p;
  }

  void Take(size_t n) {
    for (size_t i = 0; i < n; ++i) Advance();
  }

  // Lexes a number, duration or blob at pos_ (pos_ is at a digit, or at a
  // '-' followed by a digit).
  void LexNumber(Token& tok) {
    size_t start = pos_;
    size_t p = pos_;
    if (At(p) == '-') ++p;
    if (p == start && At(p) == '0' && Lower(At(p + 1)) == 'x') {
      size_t e = p + 2;
      while (IsHex(At(e))) ++e;
      tok.kind = TokenKind::kBlob;
      tok.text = std::string(text_.substr(start, e - start));
      Take(e - start);
      return;
    }
    size_t e = SkipDigits(p);
    // Duration: (digits unit)+
    if (size_t u = ScanDurationUnit(text_, e); u > 0) {
      size_t q = e + u;
      while (IsDigit(At(q))) {
        size_t d = SkipDigits(q);
        size_t u2 = ScanDurationUnit(text_, d);
        if (u2 == 0) break;
        q = d + u2;
      }
      tok.kind = TokenKind::kDuration;
      tok.text = std::string(text_.substr(start, q - start));
      Take(q - start);
      return;
    }
    tok.kind = TokenKind::kInteger;
    if (At(e) == '.' && At(e + 1) != '.') {  // not "1..3" (a slice)
      tok.kind = TokenKind::kFloat;
      e = SkipDigits(e + 1);
    }
    if (Lower(At(e)) == 'e') {
      size_t x = e + 1;
      if (At(x) == '+' || At(x) == '-') ++x;
      if (IsDigit(At(x))) {
        tok.kind = TokenKind::kFloat;
        e = SkipDigits(x);
      }
    }
    tok.text = std::string(text_.substr(start, e - start));
    Take(e - start);
  }

  Status LexQuoted(Token& tok, char quote) {
    size_t start = pos_;
    Advance();
    std::string value;
    while (true) {
      if (pos_ >= text_.size()) {
        return ErrorAt(pos_,
                       std::string("mismatched character '<EOF>' expecting '") +
                           quote + "'");
      }
      char c = text_[pos_];
      if (c == quote) {
        if (At(pos_ + 1) == quote) {
          value.push_back(quote);
          Advance();
          Advance();
          continue;
        }
        Advance();
        break;
      }
      value.push_back(c);
      Advance();
    }
    if (quote == '"' && value.empty()) {
      return ErrorAt(start + 1, "no viable alternative at character '\"'");
    }
    tok.kind = quote == '"' ? TokenKind::kQuotedIdentifier : TokenKind::kString;
    tok.text = std::move(value);
    return Status::OK();
  }

  Status Next(Token& tok) {
    char c = text_[pos_];
    // A uuid may begin with a letter or a digit; check it first.
    if (IsHex(c)) {
      if (size_t n = ScanUuid(text_, pos_); n > 0) {
        tok.kind = TokenKind::kUuid;
        tok.text = std::string(text_.substr(pos_, n));
        Take(n);
        return Status::OK();
      }
    }
    if (IsDigit(c) || (c == '-' && IsDigit(At(pos_ + 1)))) {
      LexNumber(tok);
      return Status::OK();
    }
    if (c == '-' && At(pos_ + 1) == 'P') {
      if (size_t n = ScanIsoDuration(text_, pos_ + 1); n > 0) {
        tok.kind = TokenKind::kDuration;
        tok.text = std::string(text_.substr(pos_, n + 1));
        Take(n + 1);
        return Status::OK();
      }
    }
    if (IsLetter(c)) {
      if (size_t n = ScanIsoDuration(text_, pos_); n > 0) {
        tok.kind = TokenKind::kDuration;
        tok.text = std::string(text_.substr(pos_, n));
        Take(n);
        return Status::OK();
      }
      tok.kind = TokenKind::kIdentifier;
      while (IsIdentChar(At(pos_))) {
        tok.text.push_back(Lower(text_[pos_]));
        Advance();
      }
      return Status::OK();
    }
    if (c == '\'' || c == '"') return LexQuoted(tok, c);
    if (c == '$' && At(pos_ + 1) == '$') {
      Take(2);
      size_t end = text_.find("$$", pos_);
      if (end == std::string_view::npos) {
        return ErrorAt(text_.size(),
                       "mismatched character '<EOF>' expecting '$'");
      }
      tok.kind = TokenKind::kString;
      tok.text = std::string(text_.substr(pos_, end - pos_));
      Take(end + 2 - pos_);
      return Status::OK();
    }
    TokenKind kind;
    size_t len = 1;
    switch (c) {
      case '(':
        kind = TokenKind::kLParen;
        break;
      case ')':
        kind = TokenKind::kRParen;
        break;
      case '[':
        kind = TokenKind::kLBracket;
        break;
      case ']':
        kind = TokenKind::kRBracket;
        break;
      case '{':
        kind = TokenKind::kLBrace;
        break;
      case '}':
        kind = TokenKind::kRBrace;
        break;
      case ',':
        kind = TokenKind::kComma;
        break;
      case ';':
        kind = TokenKind::kSemicolon;
        break;
      case '.':
        kind = At(pos_ + 1) == '.' ? TokenKind::kRange : TokenKind::kDot;
        len = At(pos_ + 1) == '.' ? 2 : 1;
        break;
      case ':':
        kind = TokenKind::kColon;
        break;
      case '=':
        kind = TokenKind::kEq;
        break;
      case '+':
        kind = TokenKind::kPlus;
        break;
      case '-':
        kind = TokenKind::kMinus;
        break;
      case '*':
        kind = TokenKind::kStar;
        break;
      case '/':
        kind = TokenKind::kSlash;
        break;
      case '%':
        kind = TokenKind::kPercent;
        break;
      case '?':
        kind = TokenKind::kBindMarker;
        break;
      case '<':
        kind = At(pos_ + 1) == '=' ? TokenKind::kLtEq : TokenKind::kLt;
        len = At(pos_ + 1) == '=' ? 2 : 1;
        break;
      case '>':
        kind = At(pos_ + 1) == '=' ? TokenKind::kGtEq : TokenKind::kGt;
        len = At(pos_ + 1) == '=' ? 2 : 1;
        break;
      case '!':
        if (At(pos_ + 1) != '=') {
          return ErrorAt(pos_ + 1, "mismatched character " +
                                       CharDisplay(text_, pos_ + 1) +
                                       " expecting '='");
        }
        kind = TokenKind::kNotEq;
        len = 2;
        break;
      default:
        return ErrorAt(pos_, "no viable alternative at character " +
                                 CharDisplay(text_, pos_));
    }
    tok.kind = kind;
    tok.text = std::string(text_.substr(pos_, len));
    Take(len);
    return Status::OK();
  }

  std::string_view text_;
  std::vector<Token>* hidden_;
  size_t stream_count_ = 0;
  size_t pos_ = 0;
  int line_ = 1;
  size_t line_start_ = 0;
  // Column(): the UTF-16 column of byte column_pos_ on the current line.
  size_t column_pos_ = 0;
  size_t column_ = 0;
};

}  // namespace

Result<std::vector<Token>> Tokenize(std::string_view text,
                                    std::vector<Token>* hidden) {
  return Lexer(text, hidden).Run();
}

}  // namespace keywise::cql
