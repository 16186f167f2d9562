#include "shell/shell.h"

#include <cctype>
#include <chrono>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <utility>

#include "client/requests.h"
#include "common/uuid.h"
#include "protocol/consistency.h"
#include "shell/copy_command.h"
#include "shell/describe.h"
#include "shell/result_printer.h"
#include "shell/statement_splitter.h"
#include "shell/trace_printer.h"

#include "shell/words.h"

namespace keywise::shell {
namespace {

client::Reply InvalidReply(const std::string& message) {
  client::Reply r;
  r.source = client::ReplySource::kServer;
  r.error.code = ErrorCode::kInvalid;
  r.error.message = message;
  r.status = r.error.ToStatus();
  return r;
}

constexpr const char* kHelp = R"(
Documented shell commands:
===========================
CAPTURE  CONSISTENCY  COPY  DESCRIBE  EXPAND  HELP  PAGING  SERIAL  SOURCE
TRACING  USE  EXIT  QUIT

  CONSISTENCY [level]            show or set the consistency level
  SERIAL CONSISTENCY [level]     show or set the serial consistency level
  DESCRIBE KEYSPACES | KEYSPACE k | TABLES | TABLE t | TYPES | TYPE t | SCHEMA
  EXPAND [ON|OFF]                vertical output, one line per column
  PAGING [ON|OFF|N]              page results (N rows per page)
  TRACING [ON|OFF]               request tracing
  SOURCE 'file'                  run the statements in a file
  CAPTURE 'file' | OFF           write query output to a file
  COPY t [(c1, c2)] TO|FROM 'file.csv' [WITH HEADER = true]
  EXIT | QUIT                    leave the shell

CQL statements end with ';' and may span lines.
)";

}  // namespace

std::vector<std::string> ShellWords(const std::string& s) {
  std::vector<std::string> words;
  size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == '\'') {
      std::string w;
      ++i;
      while (i < s.size()) {
        if (s[i] == '\'') {
          if (i + 1 < s.size() && s[i + 1] == '\'') {
            w += '\'';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        w += s[i++];
      }
      words.push_back("'" + w);  // marks a string literal
    } else if (c == '"') {
      size_t j = i + 1;
      while (j < s.size()) {
        if (s[j] == '"') {
          if (j + 1 < s.size() && s[j + 1] == '"') {
            j += 2;
            continue;
          }
          break;
        }
        ++j;
      }
      words.push_back(s.substr(i, j + 1 - i));
      i = j + 1;
    } else if (c == '(' || c == ')' || c == ',' || c == '=' || c == ';') {
      words.emplace_back(1, c);
      ++i;
    } else {
      size_t j = i;
      while (j < s.size() && !std::isspace(static_cast<unsigned char>(s[j])) &&
             s[j] != '(' && s[j] != ')' && s[j] != ',' && s[j] != '=' && s[j] != ';' &&
             s[j] != '\'' && s[j] != '"') {
        ++j;
      }
      words.push_back(s.substr(i, j - i));
      i = j;
    }
  }
  return words;
}

Shell::Shell(ShellOptions options, std::unique_ptr<client::Session> session,
             FILE* out, FILE* err)
    : options_(std::move(options)), session_(std::move(session)), out_(out), err_(err) {}

Shell::~Shell() {
  if (capture_) std::fclose(capture_);
}

std::string Shell::HostPort() const {
  return options_.connect.host + ":" + std::to_string(options_.connect.port);
}

std::string Shell::Prompt() const {
  const std::string& ks = session_->keyspace();
  return ks.empty() ? "keywise> " : "keywise:" + ks + "> ";
}

void Shell::WriteResult(const std::string& text) {
  FILE* f = capture_ ? capture_ : out_;
  std::fwrite(text.data(), 1, text.size(), f);
}

void Shell::PrintError(const std::string& text) {
  statement_error_ = true;
  std::string line = text;
  if (!options_.tty && reader_ != nullptr) {
    line = reader_->name() + ":" + std::to_string(reader_->line_number()) + ":" + line;
  }
  std::fputs((line + "\n").c_str(), err_);
  std::fflush(err_);
}

int Shell::Run() {
  if (!options_.keyspace.empty()) {
    Execute("USE " + QuoteName(options_.keyspace));
  }
  if (options_.execute) {
    StreamLineReader reader(std::make_unique<std::istringstream>(*options_.execute + "\n"),
                            "<stdin>");
    RunReader(&reader);
  } else if (options_.file) {
    auto in = std::make_unique<std::ifstream>(*options_.file);
    if (!*in) {
      std::fprintf(err_, "Could not open '%s'\n", options_.file->c_str());
      return 1;
    }
    StreamLineReader reader(std::move(in), *options_.file);
    RunReader(&reader);
  } else if (options_.tty) {
    EditLineReader reader(options_.history_file);
    terminal_ = &reader;
    std::fprintf(out_,
                 "Connected to Keywise at %s.\n"
                 "[keywise shell | CQL spec 3.4.5 | Native protocol v%d]\n"
                 "Use HELP for help.\n",
                 HostPort().c_str(), session_->protocol_version());
    RunReader(&reader);
    terminal_ = nullptr;
  } else {
    StreamLineReader reader(std::make_unique<std::istringstream>(
                                std::string(std::istreambuf_iterator<char>(std::cin), {})),
                            "<stdin>");
    RunReader(&reader);
  }
  std::fflush(out_);
  return (!options_.tty && statement_error_) ? 2 : 0;
}

void Shell::RunReader(LineReader* reader) {
  LineReader* saved = reader_;
  reader_ = reader;
  StatementSplitter splitter;
  std::string line;
  std::string typed;  // the statement's lines, for the history
  while (!exit_) {
    const std::string prompt = splitter.idle() ? Prompt() : "   ... ";
    std::fflush(out_);
    ReadStatus st = reader->ReadLine(prompt, &line);
    if (st == ReadStatus::kInterrupted) {
      splitter.Reset();
      typed.clear();
      continue;
    }
    if (st == ReadStatus::kEof) {
      if (options_.tty && reader == terminal_) std::fputs("\n", out_);
      break;
    }
    typed += (typed.empty() ? "" : " ") + line;
    std::vector<std::string> statements = splitter.AddLine(line);
    if (splitter.idle()) {
      if (!statements.empty()) reader->AddHistory(typed);
      typed.clear();
    }
    for (const std::string& s : statements) {
      Execute(s);
      if (exit_) break;
    }
  }
  std::string rest = splitter.Finish();
  if (!rest.empty() && !exit_) {
    // cqlsh runs an unterminated last statement of a file too.
    Execute(rest);
  }
  reader_ = saved;
}

void Shell::Execute(const std::string& statement) {
  std::vector<std::string> words = ShellWords(statement);
  if (words.empty()) return;
  const std::string first = Lower(words[0]);
  if (first == "exit" || first == "quit") {
    exit_ = true;
  } else if (first == "describe" || first == "desc") {
    CmdDescribe(statement);
  } else if (first == "consistency") {
    CmdConsistency(words, false);
  } else if (first == "serial" && words.size() >= 2 && Lower(words[1]) == "consistency") {
    words.erase(words.begin());
    CmdConsistency(words, true);
  } else if (first == "tracing") {
    CmdTracing(words);
  } else if (first == "expand") {
    CmdExpand(words);
  } else if (first == "paging") {
    CmdPaging(words);
  } else if (first == "source") {
    CmdSource(words);
  } else if (first == "capture") {
    CmdCapture(words);
  } else if (first == "copy") {
    CmdCopy(statement);
  } else if (first == "help" || first == "?") {
    CmdHelp();
  } else if (first == "clear" || first == "cls") {
    if (options_.tty) std::fputs("\033[H\033[2J", out_);
  } else if (first == "show") {
    WriteResult("[keywise shell | CQL spec 3.4.5 | Native protocol v" +
                std::to_string(session_->protocol_version()) + "]\n");
  } else {
    RunCql(statement);
  }
}

client::QueryParams Shell::BaseParams() const {
  client::QueryParams p;
  p.consistency = consistency_;
  p.serial_consistency = serial_consistency_;
  p.page_size = paging_ ? page_size_ : 0;
  return p;
}

void Shell::PrintWarnings(const std::vector<std::string>& warnings) {
  if (warnings.empty()) return;
  std::string text = "\nWarnings :\n";
  for (const std::string& w : warnings) text += w + "\n\n";
  WriteResult(text);
}

void Shell::RunCql(const std::string& statement) {
  client::QueryParams params = BaseParams();
  client::Reply reply = session_->Query(statement, params, tracing_);
  // One trace per request: every page of a SELECT has its own.
  std::vector<std::string> traces;
  if (reply.result.tracing_id) traces.push_back(*reply.result.tracing_id);
  if (!reply.ok()) {
    PrintError(FormatReplyError(reply, HostPort()));
    PrintTraces(traces);
    return;
  }
  PrintWarnings(reply.result.warnings);
  if (reply.result.kind == client::ResultKind::kRows) {
    if (Lower(statement.substr(0, 6)) == "select") {
      PrintRowsResult(statement, params, std::move(reply), &traces);
    } else {
      // LWT results and the like: a static table without a row count.
      WriteResult("\n" + RenderRows(reply.result.columns, reply.result.rows, true, expand_, 0));
      if (options_.tty && !reply.result.rows.empty() && !expand_) WriteResult("\n");
    }
  }
  PrintTraces(traces);
}

void Shell::PrintTraces(const std::vector<std::string>& ids) {
  if (!tracing_) return;
  for (const std::string& bytes : ids) {
    std::optional<Uuid> id = Uuid::FromBytes(bytes);
    if (!id) continue;
    bool complete = false;
    Result<TraceSessionRow> trace = FetchTrace(
        session_.get(), *id, consistency_,
        std::chrono::duration_cast<std::chrono::milliseconds>(kMaxTraceWait),
        &complete);
    if (!trace.ok()) {
      PrintError("Unable to fetch query trace: " + trace.status().message());
      continue;
    }
    if (!complete) {
      PrintError("Statement trace did not complete within " +
                 std::to_string(kMaxTraceWait.count()) +
                 " seconds; trace data may be incomplete.");
    }
    WriteResult(RenderTrace(*trace));
  }
}

void Shell::PrintRowsResult(const std::string& statement,
                            const client::QueryParams& params, client::Reply reply,
                            std::vector<std::string>* traces) {
  WriteResult("\n");
  std::vector<client::ColumnSpec> columns = reply.result.columns;
  int num_rows = 0;
  bool first = true;
  while (true) {
    const client::QueryResult& r = reply.result;
    if (!r.rows.empty() || first) {
      const bool with_header = first || options_.tty;
      WriteResult(RenderRows(columns, r.rows, with_header, expand_, num_rows));
      if (options_.tty && !r.rows.empty() && !expand_) WriteResult("\n");
      num_rows += static_cast<int>(r.rows.size());
    }
    if (!r.paging_state) {
      if (!options_.tty) WriteResult("\n");
      break;
    }
    if (capture_ == nullptr && options_.tty && terminal_ != nullptr) {
      std::fflush(out_);
      std::string ignored;
      if (terminal_->ReadLine("---MORE---", &ignored) != ReadStatus::kLine) break;
    }
    client::QueryParams next = params;
    next.paging_state = r.paging_state;
    reply = session_->Query(statement, next, tracing_);
    if (reply.result.tracing_id) traces->push_back(*reply.result.tracing_id);
    if (!reply.ok()) {
      PrintError(FormatReplyError(reply, HostPort()));
      return;
    }
    first = false;
  }
  WriteResult("(" + std::to_string(num_rows) + " rows)\n");
}

void Shell::CmdConsistency(const std::vector<std::string>& words, bool serial) {
  Consistency* target = serial ? &serial_consistency_ : &consistency_;
  const std::string what = serial ? "serial consistency" : "consistency";
  if (words.size() < 2) {
    std::string w = serial ? "Current serial consistency level is " : "Current consistency level is ";
    WriteResult(w + std::string(protocol::ConsistencyName(*target)) + ".\n");
    return;
  }
  std::optional<Consistency> level = protocol::ParseConsistency(words[1]);
  const bool serial_level = level && (*level == Consistency::kSerial ||
                                      *level == Consistency::kLocalSerial);
  if (!level || (serial && !serial_level)) {
    PrintError("Improper " + Upper(what) + " command.");
    return;
  }
  *target = *level;
  WriteResult((serial ? "Serial consistency level set to " : "Consistency level set to ") +
              std::string(protocol::ConsistencyName(*level)) + ".\n");
}

void Shell::CmdExpand(const std::vector<std::string>& words) {
  if (words.size() < 2) {
    WriteResult(expand_ ? "Expanded output is currently enabled. Use EXPAND OFF to disable\n"
                        : "Expanded output is currently disabled. Use EXPAND ON to enable.\n");
    return;
  }
  const std::string arg = Upper(words[1]);
  if (arg == "ON") {
    if (expand_) {
      WriteResult("Expanded output is already enabled. Use EXPAND OFF to disable.\n");
    } else {
      expand_ = true;
      WriteResult("Now Expanded output is enabled\n");
    }
  } else if (arg == "OFF") {
    if (!expand_) {
      WriteResult("Expanded output is not enabled.\n");
    } else {
      expand_ = false;
      WriteResult("Disabled Expanded output.\n");
    }
  } else {
    PrintError("Improper EXPAND command.");
  }
}

void Shell::CmdTracing(const std::vector<std::string>& words) {
  if (words.size() < 2) {
    WriteResult(tracing_ ? "Tracing is currently enabled. Use TRACING OFF to disable\n"
                         : "Tracing is currently disabled. Use TRACING ON to enable.\n");
    return;
  }
  const std::string arg = Upper(words[1]);
  if (arg == "ON") {
    if (tracing_) {
      WriteResult("Tracing is already enabled. Use TRACING OFF to disable.\n");
    } else {
      tracing_ = true;
      WriteResult("Now Tracing is enabled\n");
    }
  } else if (arg == "OFF") {
    if (!tracing_) {
      WriteResult("Tracing is not enabled.\n");
    } else {
      tracing_ = false;
      WriteResult("Disabled Tracing.\n");
    }
  } else {
    PrintError("Improper TRACING command.");
  }
}

void Shell::CmdPaging(const std::vector<std::string>& words) {
  if (words.size() < 2) {
    if (paging_) {
      WriteResult("Query paging is currently enabled. Use PAGING OFF to disable\nPage size: " +
                  std::to_string(page_size_) + "\n");
    } else {
      WriteResult("Query paging is currently disabled. Use PAGING ON to enable.\n");
    }
    return;
  }
  const std::string arg = Upper(words[1]);
  if (arg == "ON") {
    if (paging_) {
      WriteResult("Query paging is already enabled. Use PAGING OFF to disable.\n");
    } else {
      paging_ = true;
      WriteResult("Now Query paging is enabled\nPage size: " + std::to_string(page_size_) + "\n");
    }
  } else if (arg == "OFF") {
    if (!paging_) {
      WriteResult("Query paging is not enabled.\n");
    } else {
      paging_ = false;
      WriteResult("Disabled Query paging.\n");
    }
  } else {
    char* end = nullptr;
    long n = std::strtol(arg.c_str(), &end, 10);
    if (end == arg.c_str() || *end != '\0' || n <= 0 || n > (1 << 30)) {
      PrintError("Improper PAGING command.");
      return;
    }
    paging_ = true;
    page_size_ = static_cast<int32_t>(n);
    WriteResult("Page size: " + std::to_string(page_size_) + "\n");
  }
}

void Shell::CmdSource(const std::vector<std::string>& words) {
  if (words.size() < 2 || words[1][0] != '\'') {
    PrintError("Improper SOURCE command.");
    return;
  }
  const std::string path = words[1].substr(1);
  auto in = std::make_unique<std::ifstream>(path);
  if (!*in) {
    PrintError("Could not open '" + path + "'");
    return;
  }
  StreamLineReader reader(std::move(in), path);
  const bool tty = options_.tty;
  options_.tty = false;  // errors carry file:line, no ---MORE---
  RunReader(&reader);
  options_.tty = tty;
}

void Shell::CmdCapture(const std::vector<std::string>& words) {
  if (words.size() < 2) {
    if (capture_) {
      WriteResult("Currently capturing query output to '" + capture_path_ + "'.\n");
    } else {
      WriteResult("Currently not capturing query output.\n");
    }
    return;
  }
  if (Upper(words[1]) == "OFF") {
    if (!capture_) {
      PrintError("No capture currently active");
      return;
    }
    std::fclose(capture_);
    capture_ = nullptr;
    WriteResult("Closing capture file '" + capture_path_ + "'.\n");
    return;
  }
  if (words[1][0] != '\'') {
    PrintError("Improper CAPTURE command.");
    return;
  }
  std::string path = words[1].substr(1);
  if (!path.empty() && path[0] == '~') {
    const char* home = std::getenv("HOME");
    if (home) path = home + path.substr(1);
  }
  FILE* f = std::fopen(path.c_str(), "a");
  if (f == nullptr) {
    PrintError("Unable to open capture file '" + path + "'");
    return;
  }
  if (capture_) std::fclose(capture_);
  WriteResult("Now capturing query output to '" + path + "'.\n");
  capture_ = f;
  capture_path_ = path;
}

void Shell::CmdDescribe(const std::string& statement) {
  std::vector<std::string> words = ShellWords(statement);
  SchemaDescriber d(session_.get());
  const std::string what = words.size() > 1 ? Lower(words[1]) : "";
  auto name_at = [&](size_t i) -> std::pair<std::string, std::string> {
    // "ks.t", "ks . t" or "t" (the current keyspace).
    std::string ks = session_->keyspace(), name;
    if (i >= words.size()) return {ks, ""};
    std::string w = words[i];
    for (size_t j = i + 1; j < words.size(); ++j) w += words[j];
    size_t dot = std::string::npos;
    bool quoted = false;
    for (size_t j = 0; j < w.size(); ++j) {
      if (w[j] == '"') quoted = !quoted;
      if (w[j] == '.' && !quoted) dot = j;
    }
    if (dot == std::string::npos) return {ks, Unquote(w)};
    return {Unquote(w.substr(0, dot)), Unquote(w.substr(dot + 1))};
  };
  Result<std::string> text = Status::Invalid("");
  if (what == "keyspaces") {
    text = d.DescribeKeyspaces();
  } else if (what == "tables") {
    text = d.DescribeTables(session_->keyspace());
  } else if (what == "schema" || what == "full") {
    text = d.DescribeSchema();
  } else if (what == "types") {
    if (session_->keyspace().empty()) {
      PrintError(FormatReplyError(InvalidReply("No keyspace specified and no current keyspace"), ""));
      return;
    }
    text = d.DescribeTypes(session_->keyspace());
  } else if (what == "type") {
    auto [ks, t] = name_at(2);
    if (ks.empty()) {
      PrintError(FormatReplyError(InvalidReply("No keyspace specified and no current keyspace"), ""));
      return;
    }
    text = d.DescribeType(ks, t);
  } else if (what == "keyspace") {
    std::string ks = words.size() > 2 ? Unquote(words[2]) : session_->keyspace();
    if (ks.empty()) {
      PrintError(FormatReplyError(InvalidReply("No keyspace specified and no current keyspace"), ""));
      return;
    }
    text = d.DescribeKeyspace(ks);
  } else if (what == "table" || what == "columnfamily") {
    auto [ks, t] = name_at(2);
    if (ks.empty()) {
      PrintError(FormatReplyError(InvalidReply("No keyspace specified and no current keyspace"), ""));
      return;
    }
    text = d.DescribeTable(ks, t);
  } else if (!what.empty()) {
    // DESCRIBE name: a keyspace or a table, as cqlsh resolves it.
    auto [ks, t] = name_at(1);
    Result<std::vector<std::string>> keyspaces = d.KeyspaceNames();
    bool is_keyspace = false;
    if (keyspaces.ok() && words.size() == 2) {
      for (const std::string& k : *keyspaces) is_keyspace |= k == Unquote(words[1]);
    }
    text = is_keyspace ? d.DescribeKeyspace(Unquote(words[1])) : d.DescribeTable(ks, t);
  } else {
    PrintError("Improper DESCRIBE command.");
    return;
  }
  if (!text.ok()) {
    client::Reply r = InvalidReply(text.status().message());
    r.error.code = text.status().code();
    PrintError(FormatReplyError(r, HostPort()));
    return;
  }
  WriteResult(*text);
}

void Shell::CmdCopy(const std::string& statement) {
  Result<CopyCommand> cmd = ParseCopy(ShellWords(statement), session_->keyspace());
  if (!cmd.ok()) {
    PrintError(cmd.status().message());
    return;
  }
  auto print = [this](const std::string& text) {
    WriteResult(text);
    std::fflush(capture_ ? capture_ : out_);
  };
  Status st = cmd->to ? RunCopyTo(session_.get(), *cmd, consistency_, print)
                      : RunCopyFrom(session_.get(), *cmd, consistency_, print);
  if (!st.ok()) PrintError(st.message());
}

void Shell::CmdHelp() { WriteResult(kHelp); }

}  // namespace keywise::shell
