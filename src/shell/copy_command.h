// COPY t [(c1, c2)] TO|FROM 'file.csv' [WITH HEADER = true AND ...]: CSV
// export through paged SELECTs and import through a prepared INSERT with
// many requests in flight, as cqlsh's COPY does (same messages, a progress
// line with rows/s).
//
// Contract: RunCopy* block until done and borrow the session; `print`
// receives the output text (progress lines end in '\r'). CSV follows
// Python's csv module with cqlsh's defaults: ',' delimiter, '"' quote
// (doubled inside quoted fields), fields quoted only when needed, empty
// field = null.
#pragma once

#include <functional>
#include <istream>
#include <optional>
#include <string>
#include <vector>

#include "client/session.h"
#include "common/status.h"
#include "protocol/notation.h"

namespace keywise::shell {

struct CopyCommand {
  std::string keyspace;
  std::string table;
  std::vector<std::string> columns;  // empty: every column
  bool to = true;
  std::string file;
  bool header = false;
  char delimiter = ',';
  int max_in_flight = 256;  // COPY FROM: concurrent INSERTs (MAXREQUESTS)
  int page_size = 1000;     // COPY TO: PAGESIZE
};

// Parses ShellWords of the statement. Errors are Status::Invalid with
// cqlsh's wording.
Result<CopyCommand> ParseCopy(const std::vector<std::string>& words,
                              const std::string& current_keyspace);

using CopyPrinter = std::function<void(const std::string&)>;

Status RunCopyTo(client::Session* session, const CopyCommand& cmd,
                 Consistency consistency, const CopyPrinter& print);
Status RunCopyFrom(client::Session* session, const CopyCommand& cmd,
                   Consistency consistency, const CopyPrinter& print);

// One CSV field, quoted when it holds the delimiter, a quote or a newline.
std::string CsvField(const std::string& value, char delimiter);
// Reads one CSV record (quoted fields may span lines). Returns false at end
// of input. *quoted[i] tells whether field i was quoted ("" is then an
// empty string, not null).
bool ReadCsvRecord(std::istream& in, char delimiter,
                   std::vector<std::string>* fields, std::vector<bool>* quoted);

}  // namespace keywise::shell
