#include "shell/statement_splitter.h"

#include <array>
#include <cctype>

#include "shell/words.h"

namespace keywise::shell {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string_view FirstWord(std::string_view s) {
  s = Trim(s);
  size_t n = 0;
  while (n < s.size() && (std::isalnum(static_cast<unsigned char>(s[n])) || s[n] == '_' || s[n] == '?')) ++n;
  return s.substr(0, n);
}

}  // namespace

bool IsShellCommandWord(std::string_view word) {
  static constexpr std::array<std::string_view, 19> kWords = {
      "describe", "desc", "consistency", "serial", "tracing", "expand",
      "paging", "source", "capture", "copy", "help", "?", "exit", "quit",
      "show", "clear", "cls", "login", "unicode"};
  std::string lower = Lower(std::string(word));
  for (std::string_view w : kWords) {
    if (w == lower) return true;
  }
  return false;
}

void StatementSplitter::Emit(std::vector<std::string>* out) {
  std::string_view text = Trim(buffer_);
  if (has_code_ && !text.empty()) out->emplace_back(text);
  buffer_.clear();
  has_code_ = false;
  shell_command_ = false;
}

std::vector<std::string> StatementSplitter::AddLine(std::string_view line) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < line.size()) {
    const char c = line[i];
    const char next = i + 1 < line.size() ? line[i + 1] : '\0';
    switch (state_) {
      case State::kCode:
        if (c == ';') {
          Emit(&out);
          ++i;
          continue;
        }
        if (!has_code_ && !std::isspace(static_cast<unsigned char>(c))) {
          // A statement starts here: a shell command needs no ';'.
          shell_command_ = IsShellCommandWord(FirstWord(line.substr(i)));
        }
        if ((c == '-' && next == '-') || (c == '/' && next == '/')) {
          i = line.size();  // line comment: drop the rest
          continue;
        }
        if (c == '/' && next == '*') {
          state_ = State::kBlockComment;
          buffer_.push_back(' ');
          i += 2;
          continue;
        }
        if (c == '\'') state_ = State::kSingle;
        if (c == '"') state_ = State::kDouble;
        if (c == '$' && next == '$') {
          state_ = State::kDollar;
          buffer_.append("$$");
          has_code_ = true;
          i += 2;
          continue;
        }
        if (!std::isspace(static_cast<unsigned char>(c))) has_code_ = true;
        buffer_.push_back(c);
        ++i;
        continue;
      case State::kSingle:
      case State::kDouble: {
        const char quote = state_ == State::kSingle ? '\'' : '"';
        buffer_.push_back(c);
        ++i;
        if (c == quote) {
          if (next == quote) {  // doubled quote: an escaped quote
            buffer_.push_back(next);
            ++i;
          } else {
            state_ = State::kCode;
          }
        }
        continue;
      }
      case State::kDollar:
        if (c == '$' && next == '$') {
          buffer_.append("$$");
          state_ = State::kCode;
          i += 2;
          continue;
        }
        buffer_.push_back(c);
        ++i;
        continue;
      case State::kBlockComment:
        if (c == '*' && next == '/') {
          state_ = State::kCode;
          i += 2;
          continue;
        }
        ++i;
        continue;
    }
  }
  if (shell_command_ && has_code_ && state_ == State::kCode) {
    // Shell commands end at the end of their line.
    Emit(&out);
    return out;
  }
  if (!buffer_.empty() || state_ != State::kCode) buffer_.push_back('\n');
  if (state_ == State::kCode && !has_code_) buffer_.clear();
  return out;
}

std::string StatementSplitter::Finish() {
  std::vector<std::string> out;
  Emit(&out);
  state_ = State::kCode;
  return out.empty() ? std::string() : out.front();
}

void StatementSplitter::Reset() {
  shell_command_ = false;
  buffer_.clear();
  has_code_ = false;
  state_ = State::kCode;
}

}  // namespace keywise::shell
