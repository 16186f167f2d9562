// Shell: the `keywise shell` session, a cqlsh-compatible front end over a
// client::Session.
//
// Contract: single-threaded; one Shell per process (it owns the terminal
// while interactive). Output goes to `out` (or the CAPTURE file), errors to
// `err`; tests pass memory streams. Statements are dispatched by their
// first word: shell commands (statement_splitter.h) are run here, anything
// else is sent to the server as CQL.
#pragma once

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "client/session.h"
#include "protocol/notation.h"
#include "shell/line_reader.h"

namespace keywise::shell {

struct ShellOptions {
  client::ConnectOptions connect;
  std::string keyspace;                // -k
  std::optional<std::string> execute;  // -e
  std::optional<std::string> file;     // -f
  // Interactive (prompt, line editing, ---MORE--- paging). Normally
  // isatty(stdin) without -e/-f.
  bool tty = false;
  std::string history_file;  // "" disables history
};

class Shell {
 public:
  Shell(ShellOptions options, std::unique_ptr<client::Session> session,
        FILE* out, FILE* err);
  ~Shell();

  // Runs -e, -f, the interactive loop or piped stdin to the end. Returns
  // the process exit status: 0, or 2 when a statement failed in batch mode
  // (as cqlsh).
  int Run();

  // Runs every statement read from `reader` (used by Run and SOURCE).
  void RunReader(LineReader* reader);
  // Runs one complete statement (no trailing ';').
  void Execute(const std::string& statement);

  bool exit_requested() const { return exit_; }
  bool statement_error() const { return statement_error_; }
  std::string Prompt() const;

 private:
  void WriteResult(const std::string& text);
  void PrintError(const std::string& text);
  void RunCql(const std::string& statement);
  // Prints the pages of a SELECT; each page's tracing id goes to *traces.
  void PrintRowsResult(const std::string& statement,
                       const client::QueryParams& params, client::Reply reply,
                       std::vector<std::string>* traces);
  // With TRACING ON: fetches and prints each trace (trace_printer.h).
  void PrintTraces(const std::vector<std::string>& ids);
  void PrintWarnings(const std::vector<std::string>& warnings);
  client::QueryParams BaseParams() const;
  std::string HostPort() const;

  // Shell commands; `words` are the statement's tokens.
  void CmdConsistency(const std::vector<std::string>& words, bool serial);
  void CmdOnOff(const std::vector<std::string>& words, bool* flag,
                const std::string& what_on, const std::string& what_off,
                const std::string& already);
  void CmdExpand(const std::vector<std::string>& words);
  void CmdTracing(const std::vector<std::string>& words);
  void CmdPaging(const std::vector<std::string>& words);
  void CmdSource(const std::vector<std::string>& words);
  void CmdCapture(const std::vector<std::string>& words);
  void CmdDescribe(const std::string& statement);
  void CmdCopy(const std::string& statement);
  void CmdHelp();

  ShellOptions options_;
  std::unique_ptr<client::Session> session_;
  FILE* out_;
  FILE* err_;
  FILE* capture_ = nullptr;
  std::string capture_path_;
  LineReader* reader_ = nullptr;  // the source being run (error prefixes)
  LineReader* terminal_ = nullptr;  // for ---MORE--- (interactive only)

  Consistency consistency_ = Consistency::kOne;
  Consistency serial_consistency_ = Consistency::kSerial;
  bool tracing_ = false;
  bool expand_ = false;
  bool paging_ = true;
  int32_t page_size_ = 100;
  bool exit_ = false;
  bool statement_error_ = false;
};

// Splits a shell command into words: bare words, 'quoted strings' (quotes
// removed, '' unescaped), "quoted names" (kept with their quotes) and
// punctuation ( ) , = as single words.
std::vector<std::string> ShellWords(const std::string& statement);

}  // namespace keywise::shell
