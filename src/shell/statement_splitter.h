// StatementSplitter: cuts the lines a user types (or a file holds) into
// complete statements, as cqlsh does.
//
// Contract: not thread-safe; one per input source. A CQL statement ends at a
// ';' outside 'strings', "quoted names", $$strings$$ and comments (-- and //
// to the end of the line, /* */ across lines). A shell command (a first
// statement starting with one of the words in IsShellCommandWord; USE is
// CQL) also ends at the end of its line. Statements come out
// without the terminating ';' and without surrounding whitespace (a ';'
// ends shell commands too, so "EXPAND ON; SELECT ..." is two statements); empty
// statements (";;") and comment-only input are dropped.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace keywise::shell {

// True for the cqlsh commands the shell runs itself (case-insensitive):
// DESCRIBE/DESC, CONSISTENCY, SERIAL, TRACING, EXPAND, PAGING, SOURCE,
// CAPTURE, COPY, HELP/?, EXIT, QUIT, SHOW, CLEAR/CLS, LOGIN.
bool IsShellCommandWord(std::string_view word);

class StatementSplitter {
 public:
  // Adds one line (without its newline) and returns the statements it
  // completed, in order.
  std::vector<std::string> AddLine(std::string_view line);
  // True when no statement is partially typed (the prompt is the primary
  // one, not the continuation prompt).
  bool idle() const { return buffer_.empty() && state_ == State::kCode; }
  // Returns what is left at end of input (an unterminated statement, or "").
  std::string Finish();
  // Drops the partial statement (Ctrl-C).
  void Reset();

 private:
  enum class State { kCode, kSingle, kDouble, kDollar, kBlockComment };

  void Emit(std::vector<std::string>* out);

  std::string buffer_;  // the current statement's text so far
  State state_ = State::kCode;
  bool has_code_ = false;  // buffer_ holds something besides comments/space
  bool shell_command_ = false;  // the current statement is a shell command
};

}  // namespace keywise::shell
