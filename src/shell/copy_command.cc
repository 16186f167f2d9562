#include "shell/copy_command.h"

#include <atomic>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <mutex>

#include "schema/value_codec.h"
#include "schema/value_literal.h"
#include "shell/describe.h"
#include "shell/result_printer.h"

#include "shell/words.h"

namespace keywise::shell {
namespace {

using Clock = std::chrono::steady_clock;

std::string Rate(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%7.0f", v);
  return buf;
}

std::string Seconds(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}

// Prints "Processed: N rows; Rate: R rows/s; Avg. rate: A rows/s" at most
// twice a second.
class Progress {
 public:
  explicit Progress(const CopyPrinter& print) : print_(print) {}
  void Update(int64_t rows, bool force = false) {
    Clock::time_point now = Clock::now();
    if (!force && now - last_ < std::chrono::milliseconds(500)) return;
    double since_last = std::chrono::duration<double>(now - last_).count();
    double total = std::chrono::duration<double>(now - start_).count();
    double rate = since_last > 0 ? (rows - last_rows_) / since_last : 0;
    double avg = total > 0 ? rows / total : 0;
    print_("\rProcessed: " + std::to_string(rows) + " rows; Rate: " + Rate(rate) +
           " rows/s; Avg. rate: " + Rate(avg) + " rows/s");
    last_ = now;
    last_rows_ = rows;
  }
  double Elapsed() const {
    return std::chrono::duration<double>(Clock::now() - start_).count();
  }

 private:
  const CopyPrinter& print_;
  Clock::time_point start_ = Clock::now();
  Clock::time_point last_ = start_;
  int64_t last_rows_ = 0;
};

Result<std::vector<std::string>> ResolveColumns(client::Session* session,
                                                const CopyCommand& cmd) {
  if (!cmd.columns.empty()) return cmd.columns;
  // SELECT * order: what a LIMIT 0 query reports.
  client::QueryParams p;
  client::Reply r = session->Query("SELECT * FROM " + QuoteName(cmd.keyspace) + "." +
                                       QuoteName(cmd.table) + " LIMIT 1",
                                   p);
  if (!r.ok()) return r.status;
  std::vector<std::string> names;
  for (const auto& c : r.result.columns) names.push_back(c.name);
  return names;
}

std::string ColumnList(const std::vector<std::string>& cols, bool quote) {
  std::string out;
  for (size_t i = 0; i < cols.size(); ++i) {
    if (i > 0) out += ", ";
    out += quote ? QuoteName(cols[i]) : cols[i];
  }
  return out;
}

// A CSV field as the serialized value of `type`; nullopt for null.
Result<std::optional<std::string>> ParseField(const CqlType& type, const std::string& text,
                                              bool quoted) {
  if (text.empty() && !quoted) return std::optional<std::string>();
  switch (type.kind()) {
    case TypeKind::kAscii:
    case TypeKind::kVarchar:
      return std::optional<std::string>(EncodeText(text));
    case TypeKind::kTimestamp:
    case TypeKind::kDate:
    case TypeKind::kTime:
    case TypeKind::kInet: {
      std::string lit = "'";
      for (char c : text) {
        if (c == '\'') lit += '\'';
        lit += c;
      }
      lit += "'";
      KW_ASSIGN_OR_RETURN(std::string v, ParseValueLiteral(type, lit));
      return std::optional<std::string>(std::move(v));
    }
    case TypeKind::kBoolean: {
      KW_ASSIGN_OR_RETURN(std::string v, ParseValueLiteral(type, Lower(text)));
      return std::optional<std::string>(std::move(v));
    }
    default: {
      KW_ASSIGN_OR_RETURN(std::string v, ParseValueLiteral(type, text));
      return std::optional<std::string>(std::move(v));
    }
  }
}

}  // namespace

std::string CsvField(const std::string& value, char delimiter) {
  if (value.find_first_of(std::string(1, delimiter) + "\"\r\n") == std::string::npos) {
    return value;
  }
  std::string out = "\"";
  for (char c : value) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

bool ReadCsvRecord(std::istream& in, char delimiter, std::vector<std::string>* fields,
                   std::vector<bool>* quoted) {
  fields->clear();
  quoted->clear();
  std::string line;
  if (!std::getline(in, line)) return false;
  std::string field;
  bool in_quotes = false, was_quoted = false;
  size_t i = 0;
  while (true) {
    if (i >= line.size()) {
      if (in_quotes) {
        field += '\n';
        if (!std::getline(in, line)) break;
        i = 0;
        continue;
      }
      break;
    }
    char c = line[i];
    if (in_quotes) {
      if (c == '"') {
        if (i + 1 < line.size() && line[i + 1] == '"') {
          field += '"';
          i += 2;
          continue;
        }
        in_quotes = false;
      } else {
        field += c;
      }
    } else if (c == '"' && field.empty()) {
      in_quotes = was_quoted = true;
    } else if (c == delimiter) {
      fields->push_back(std::move(field));
      quoted->push_back(was_quoted);
      field.clear();
      was_quoted = false;
    } else if (c != '\r' || i + 1 < line.size()) {
      field += c;
    }
    ++i;
  }
  fields->push_back(std::move(field));
  quoted->push_back(was_quoted);
  return true;
}

Result<CopyCommand> ParseCopy(const std::vector<std::string>& w,
                              const std::string& current_keyspace) {
  CopyCommand cmd;
  size_t i = 1;
  auto bad = [] { return Status::Invalid("Improper COPY command."); };
  if (i >= w.size()) return bad();
  std::string name = w[i++];
  if (i + 1 < w.size() && w[i] == ".") {
    ++i;
    name += "." + w[i++];
  }
  size_t dot = name.find('.');
  if (dot == std::string::npos || name[0] == '"') {
    cmd.keyspace = current_keyspace;
    cmd.table = Unquote(name);
  } else {
    cmd.keyspace = Unquote(name.substr(0, dot));
    cmd.table = Unquote(name.substr(dot + 1));
  }
  if (cmd.keyspace.empty()) {
    return Status::Invalid("Keyspace name not specified for table " + cmd.table);
  }
  if (i < w.size() && w[i] == "(") {
    ++i;
    while (i < w.size() && w[i] != ")") {
      if (w[i] != ",") cmd.columns.push_back(Unquote(w[i]));
      ++i;
    }
    if (i >= w.size()) return bad();
    ++i;
  }
  if (i >= w.size()) return bad();
  const std::string dir = Lower(w[i++]);
  if (dir != "to" && dir != "from") return bad();
  cmd.to = dir == "to";
  if (i >= w.size() || w[i][0] != '\'') return bad();
  cmd.file = w[i++].substr(1);
  if (i < w.size() && Lower(w[i]) == "with") {
    ++i;
    while (i + 2 < w.size() + 0 && w[i + 1] == "=") {
      const std::string opt = Lower(w[i]);
      std::string val = w[i + 2];
      if (!val.empty() && val[0] == '\'') val = val.substr(1);
      i += 3;
      if (opt == "header") {
        cmd.header = Lower(val) == "true";
      } else if (opt == "delimiter" && val.size() == 1) {
        cmd.delimiter = val[0];
      } else if (opt == "maxrequests" || opt == "numprocesses") {
        cmd.max_in_flight = std::max(1, std::atoi(val.c_str()) * (opt == "numprocesses" ? 64 : 1));
      } else if (opt == "pagesize") {
        cmd.page_size = std::max(1, std::atoi(val.c_str()));
      }
      if (i < w.size() && Lower(w[i]) == "and") ++i;
    }
  }
  return cmd;
}

Status RunCopyTo(client::Session* session, const CopyCommand& cmd,
                 Consistency consistency, const CopyPrinter& print) {
  KW_ASSIGN_OR_RETURN(std::vector<std::string> columns, ResolveColumns(session, cmd));
  std::ofstream out(cmd.file, std::ios::binary);
  if (!out) return Status::Invalid("Can't open '" + cmd.file + "' for writing");
  print("Using 1 child processes\n\nStarting copy of " + cmd.keyspace + "." + cmd.table +
        " with columns [" + ColumnList(columns, false) + "].\n");
  if (cmd.header) {
    for (size_t c = 0; c < columns.size(); ++c) {
      if (c > 0) out << cmd.delimiter;
      out << CsvField(columns[c], cmd.delimiter);
    }
    out << "\n";
  }
  const std::string query = "SELECT " + ColumnList(columns, true) + " FROM " +
                            QuoteName(cmd.keyspace) + "." + QuoteName(cmd.table);
  client::QueryParams params;
  params.consistency = consistency;
  params.page_size = cmd.page_size;
  Progress progress(print);
  int64_t rows = 0;
  std::string line;
  while (true) {
    client::Reply r = session->Query(query, params);
    if (!r.ok()) return r.status;
    for (const client::Row& row : r.result.rows) {
      line.clear();
      for (size_t c = 0; c < r.result.columns.size(); ++c) {
        if (c > 0) line += cmd.delimiter;
        if (row[c]) line += CsvField(FormatCell(r.result.columns[c], row[c]), cmd.delimiter);
      }
      line += '\n';
      out << line;
      ++rows;
    }
    progress.Update(rows);
    if (!r.result.paging_state) break;
    params.paging_state = r.result.paging_state;
  }
  out.close();
  progress.Update(rows, true);
  print("\n" + std::to_string(rows) + " rows exported to 1 files in " +
        Seconds(progress.Elapsed()) + " seconds.\n");
  return Status::OK();
}

Status RunCopyFrom(client::Session* session, const CopyCommand& cmd,
                   Consistency consistency, const CopyPrinter& print) {
  std::ifstream in(cmd.file, std::ios::binary);
  if (!in) return Status::Invalid("Can't open '" + cmd.file + "' for reading");
  std::vector<std::string> fields;
  std::vector<bool> quoted;
  std::vector<std::string> columns = cmd.columns;
  if (cmd.header) {
    if (!ReadCsvRecord(in, cmd.delimiter, &fields, &quoted)) fields.clear();
    if (columns.empty()) {
      for (const std::string& f : fields) columns.push_back(f);
    }
  }
  if (columns.empty()) {
    CopyCommand all = cmd;
    KW_ASSIGN_OR_RETURN(columns, ResolveColumns(session, all));
  }
  std::string insert = "INSERT INTO " + QuoteName(cmd.keyspace) + "." + QuoteName(cmd.table) +
                       " (" + ColumnList(columns, true) + ") VALUES (";
  for (size_t i = 0; i < columns.size(); ++i) insert += i == 0 ? "?" : ", ?";
  insert += ")";
  client::Reply prepared = session->Prepare(insert);
  if (!prepared.ok()) return prepared.status;
  const client::Prepared p = prepared.result.prepared;
  if (p.bind_columns.size() != columns.size()) {
    return Status::Invalid("Unexpected bind markers in the prepared INSERT");
  }
  print("Using 1 child processes\n\nStarting copy of " + cmd.keyspace + "." + cmd.table +
        " with columns [" + ColumnList(columns, false) + "].\n");

  std::mutex mu;
  std::condition_variable cv;
  int in_flight = 0;
  int64_t done = 0, failed = 0;
  Status first_error;
  Progress progress(print);
  int64_t line_no = cmd.header ? 1 : 0, parse_errors = 0;
  const std::shared_ptr<client::Connection>& conn = session->connection();
  while (ReadCsvRecord(in, cmd.delimiter, &fields, &quoted)) {
    ++line_no;
    if (fields.size() == 1 && fields[0].empty() && !quoted[0]) continue;  // blank line
    if (fields.size() != columns.size()) {
      print("\nFailed to import row " + std::to_string(line_no) + ": expected " +
            std::to_string(columns.size()) + " columns, got " + std::to_string(fields.size()) +
            "\n");
      ++parse_errors;
      continue;
    }
    client::QueryParams params;
    params.consistency = consistency;
    params.skip_metadata = true;
    bool ok = true;
    for (size_t c = 0; c < fields.size(); ++c) {
      Result<std::optional<std::string>> v =
          ParseField(*p.bind_columns[c].type, fields[c], quoted[c]);
      if (!v.ok()) {
        print("\nFailed to import row " + std::to_string(line_no) + ": " +
              v.status().message() + "\n");
        ok = false;
        break;
      }
      params.values.push_back(*v ? client::BoundValue::Of(std::move(**v))
                                 : client::BoundValue::Null());
    }
    if (!ok) {
      ++parse_errors;
      continue;
    }
    {
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [&] { return in_flight < cmd.max_in_flight; });
      ++in_flight;
    }
    conn->Execute(p.id, params, [&](client::Reply r) {
      std::lock_guard<std::mutex> lock(mu);
      --in_flight;
      if (r.ok()) {
        ++done;
      } else {
        ++failed;
        if (first_error.ok()) first_error = r.status;
      }
      cv.notify_all();
    });
    int64_t snapshot;
    {
      std::lock_guard<std::mutex> lock(mu);
      snapshot = done;
    }
    progress.Update(snapshot);
  }
  {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return in_flight == 0; });
  }
  progress.Update(done, true);
  if (!first_error.ok()) {
    print("\nFailed to import " + std::to_string(failed) + " rows: " +
          first_error.message() + "\n");
  }
  print("\n" + std::to_string(done) + " rows imported from 1 files in " +
        Seconds(progress.Elapsed()) + " seconds (" + std::to_string(parse_errors + failed) +
        " skipped).\n");
  return Status::OK();
}

}  // namespace keywise::shell
