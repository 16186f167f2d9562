// LineReader: where the shell's input lines come from. EditLineReader is the
// interactive terminal (libedit line editing, persistent history); the
// stream reader serves -e, -f, SOURCE and piped stdin.
//
// Contract: not thread-safe. ReadLine returns the line without its newline.
#pragma once

#include <cstdio>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

namespace keywise::shell {

enum class ReadStatus { kLine, kEof, kInterrupted };

class LineReader {
 public:
  virtual ~LineReader() = default;
  // kInterrupted: Ctrl-C while typing (interactive only).
  virtual ReadStatus ReadLine(const std::string& prompt, std::string* line) = 0;
  // Records a complete statement in the history (no-op for streams).
  virtual void AddHistory(const std::string& statement) {}
  // Name used in error prefixes ("<stdin>", the file name).
  virtual std::string name() const = 0;
  // Number of the line read last (1-based).
  int line_number() const { return line_number_; }

 protected:
  int line_number_ = 0;
};

// Lines of a string (-e) or a file (-f, SOURCE, piped stdin).
class StreamLineReader : public LineReader {
 public:
  StreamLineReader(std::unique_ptr<std::istream> in, std::string name)
      : in_(std::move(in)), name_(std::move(name)) {}
  ReadStatus ReadLine(const std::string& prompt, std::string* line) override;
  std::string name() const override { return name_; }

 private:
  std::unique_ptr<std::istream> in_;
  std::string name_;
};

// The terminal, through libedit. History lives in `history_file` (loaded
// now, appended on every statement); an empty path disables persistence.
class EditLineReader : public LineReader {
 public:
  explicit EditLineReader(std::string history_file);
  ~EditLineReader() override;
  ReadStatus ReadLine(const std::string& prompt, std::string* line) override;
  void AddHistory(const std::string& statement) override;
  std::string name() const override { return "<stdin>"; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// ~/.keywise_history ($HOME unset: no history).
std::string DefaultHistoryFile();

}  // namespace keywise::shell
