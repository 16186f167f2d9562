#include "query/cql_script_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <variant>

#include "schema/value_codec.h"

namespace keywise::query {
namespace {

// 2026-01-01 00:00:00 UTC.
constexpr int64_t kStartMicros = 1767225600LL * 1000000;

bool StartsWith(const std::string& s, std::string_view prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

// Whether `cql` is a SELECT (the first word, in any case).
bool IsSelect(const std::string& cql) {
  size_t start = cql.find_first_not_of(" \t\n");
  if (start == std::string::npos) return false;
  std::string word = cql.substr(start, 6);
  std::transform(word.begin(), word.end(), word.begin(), ::tolower);
  return word == "select";
}

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

std::string Join(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += "    " + l + "\n";
  return out;
}

}  // namespace

Result<std::vector<ScriptRecord>> ParseScript(const std::string& text) {
  std::vector<std::string> lines;
  {
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) lines.push_back(line);
  }
  std::vector<ScriptRecord> records;
  size_t i = 0;
  auto bad = [&](const std::string& why) {
    return Status::Invalid("line " + std::to_string(i + 1) + ": " + why);
  };
  while (i < lines.size()) {
    std::string head = Trim(lines[i]);
    if (head.empty() || head[0] == '#') {
      ++i;
      continue;
    }
    ScriptRecord r;
    r.line = static_cast<int>(i + 1);
    ++i;
    bool takes_cql = true;
    if (head == "statement ok") {
      r.kind = ScriptRecord::Kind::kStatementOk;
    } else if (head == "statement error") {
      r.kind = ScriptRecord::Kind::kStatementError;
    } else if (StartsWith(head, "statement error ")) {
      r.kind = ScriptRecord::Kind::kStatementError;
      r.expected_error = head.substr(16);
    } else if (head == "statement warnings") {
      r.kind = ScriptRecord::Kind::kStatementWarnings;
    } else if (head == "query" || StartsWith(head, "query ")) {
      r.kind = ScriptRecord::Kind::kQuery;
      std::istringstream opts(head.substr(5));
      std::string opt;
      while (opts >> opt) {
        if (opt == "columns") {
          r.columns = true;
        } else if (opt == "rowsort") {
          r.rowsort = true;
        } else if (opt == "nopaging") {
          r.nopaging = true;
        } else {
          return bad("unknown query option " + opt);
        }
      }
    } else if (head == "plan" || head == "plan analyze") {
      r.kind = ScriptRecord::Kind::kPlan;
      r.analyze = head == "plan analyze";
    } else if (StartsWith(head, "clock advance ")) {
      r.kind = ScriptRecord::Kind::kClockAdvance;
      r.seconds = std::stoll(head.substr(14));
      takes_cql = false;
    } else if (head == "flush") {
      r.kind = ScriptRecord::Kind::kFlush;
      takes_cql = false;
    } else if (head == "compact") {
      r.kind = ScriptRecord::Kind::kCompact;
      takes_cql = false;
    } else if (head == "restart") {
      r.kind = ScriptRecord::Kind::kRestart;
      takes_cql = false;
    } else {
      return bad("unknown record '" + head + "'");
    }
    if (takes_cql) {
      std::vector<std::string> cql;
      while (i < lines.size() && !Trim(lines[i]).empty() &&
             Trim(lines[i]) != "----") {
        cql.push_back(lines[i]);
        ++i;
      }
      if (cql.empty()) return bad("record without a statement");
      for (const std::string& l : cql) r.cql += (r.cql.empty() ? "" : "\n") + l;
      if (r.kind == ScriptRecord::Kind::kQuery ||
          r.kind == ScriptRecord::Kind::kPlan ||
          r.kind == ScriptRecord::Kind::kStatementWarnings) {
        if (i >= lines.size() || Trim(lines[i]) != "----") {
          return bad(head + " without ----");
        }
        ++i;
        while (i < lines.size() && !Trim(lines[i]).empty()) {
          r.expected.push_back(Trim(lines[i]));
          ++i;
        }
      }
    }
    records.push_back(std::move(r));
  }
  return records;
}

ScriptNode::ScriptNode() : clock_(kStartMicros) {
  Open();
}

ScriptNode::~ScriptNode() {
  processor_.reset();
  if (engine_) (void)engine_->Close();
}

void ScriptNode::Open() {
  processor_.reset();
  engine_.reset();
  EngineOptions options;
  options.data_dir = dir_.str() + "/data";
  options.memtable_bytes = 4 << 20;
  auto opened = Engine::Open(options, clock_);
  if (!opened.ok()) {
    ADD_FAILURE() << opened.status().ToString();
    return;
  }
  engine_ = std::move(opened).value();
  processor_ = std::make_unique<QueryProcessor>(engine_.get());
}

Result<std::vector<std::string>> ScriptNode::Query(const std::string& cql,
                                                   int page_size) {
  QueryOptions options;
  options.page_size = page_size;
  std::vector<std::string> out;
  for (int pages = 0;; ++pages) {
    if (pages > 100000) return Status::ServerError("paging does not end");
    KW_ASSIGN_OR_RETURN(QueryResult result,
                        processor_->Process(cql, options, &client_));
    auto* rows = std::get_if<RowsResult>(&result.result);
    if (rows == nullptr) return Status::ServerError("not a rows result");
    if (out.empty()) {
      std::string header;
      for (const ColumnSpec& c : rows->columns) {
        header += (header.empty() ? "" : " | ") + c.name;
      }
      out.push_back(header);
    }
    if (page_size > 0 && rows->row_count > page_size) {
      return Status::ServerError("page of " + std::to_string(rows->row_count) +
                                 " rows for page size " +
                                 std::to_string(page_size));
    }
    KW_ASSIGN_OR_RETURN(auto decoded, DecodeRows(*rows));
    for (const auto& row : decoded) {
      std::string line;
      for (size_t c = 0; c < row.size(); ++c) {
        if (c > 0) line += " | ";
        line += row[c] ? FormatValue(*rows->columns[c].type, *row[c]) : "null";
      }
      out.push_back(line);
    }
    if (!rows->paging_state) break;
    if (page_size <= 0) return Status::ServerError("paging state when unpaged");
    options.paging_state = *rows->paging_state;
  }
  return out;
}

std::string ScriptNode::RunQuery(const ScriptRecord& r) {
  Result<std::vector<std::string>> got = Query(r.cql, -1);
  if (!got.ok()) return "query failed: " + got.status().ToString();
  std::vector<std::string> rows = *got;
  auto normalize = [&](std::vector<std::string> lines) {
    if (!r.columns) lines.erase(lines.begin());
    if (r.rowsort) {
      std::sort(lines.begin() + (r.columns ? 1 : 0), lines.end());
    }
    return lines;
  };
  std::vector<std::string> actual = normalize(rows);
  std::vector<std::string> expected = r.expected;
  if (r.rowsort && !expected.empty()) {
    std::sort(expected.begin() + (r.columns ? 1 : 0), expected.end());
  }
  if (actual != expected) {
    return "wrong result\n  expected:\n" + Join(expected) + "  actual:\n" +
           Join(actual);
  }
  // Only reads are re-run: a conditional write's second run would see its
  // own first one.
  if (r.nopaging || !IsSelect(r.cql)) return "";
  for (int page_size : {1, 2, 3, 7}) {
    Result<std::vector<std::string>> paged = Query(r.cql, page_size);
    if (!paged.ok()) {
      return "paged query (page size " + std::to_string(page_size) +
             ") failed: " + paged.status().ToString();
    }
    if (*paged != rows) {
      return "paged result (page size " + std::to_string(page_size) +
             ") differs\n  unpaged:\n" + Join(rows) + "  paged:\n" +
             Join(*paged);
    }
  }
  return "";
}

// EXPLAIN's (or EXPLAIN ANALYZE's) lines, less PAGING (scripts run
// unpaged) and time, against the expected "STEP" (detail not compared) or
// "STEP | detail" lines.
std::string ScriptNode::RunPlan(const ScriptRecord& r) {
  Result<std::vector<std::string>> got =
      Query((r.analyze ? "EXPLAIN ANALYZE " : "EXPLAIN ") + r.cql, -1);
  if (!got.ok()) return "EXPLAIN failed: " + got.status().ToString();
  std::vector<std::string> actual;
  for (size_t i = 1; i < got->size(); ++i) {
    const std::string& line = (*got)[i];
    if (StartsWith(line, "PAGING | ") || StartsWith(line, "time | ")) continue;
    actual.push_back(line);
  }
  bool same = actual.size() == r.expected.size();
  for (size_t i = 0; same && i < actual.size(); ++i) {
    const std::string& want = r.expected[i];
    same = want.find(" | ") == std::string::npos
               ? actual[i].substr(0, actual[i].find(" | ")) == want
               : actual[i] == want;
  }
  if (!same) {
    return "wrong plan\n  expected:\n" + Join(r.expected) + "  actual:\n" +
           Join(actual);
  }
  return "";
}

std::string ScriptNode::Run(const ScriptRecord& r) {
  using Kind = ScriptRecord::Kind;
  switch (r.kind) {
    case Kind::kStatementOk: {
      Result<QueryResult> result = processor_->Process(r.cql, {}, &client_);
      return result.ok() ? ""
                         : "unexpected error: " + result.status().ToString();
    }
    case Kind::kStatementError: {
      Result<QueryResult> result = processor_->Process(r.cql, {}, &client_);
      if (result.ok()) return "statement succeeded, expected an error";
      // Script lines are trimmed, so trailing blanks of a message (some of
      // Cassandra's end in one) are not compared.
      if (!r.expected_error.empty() &&
          Trim(result.status().message()) != r.expected_error) {
        return "wrong error\n  expected: " + r.expected_error +
               "\n  actual:   " + result.status().message();
      }
      return "";
    }
    case Kind::kStatementWarnings: {
      Result<QueryResult> result = processor_->Process(r.cql, {}, &client_);
      if (!result.ok()) {
        return "unexpected error: " + result.status().ToString();
      }
      std::vector<std::string> actual;
      for (const std::string& w : result->warnings) {
        std::istringstream lines(w);
        std::string line;
        while (std::getline(lines, line)) actual.push_back(Trim(line));
      }
      if (actual != r.expected) {
        return "wrong warnings\n  expected:\n" + Join(r.expected) +
               "  actual:\n" + Join(actual);
      }
      return "";
    }
    case Kind::kQuery:
      return RunQuery(r);
    case Kind::kPlan:
      return RunPlan(r);
    case Kind::kClockAdvance:
      clock_.AdvanceSeconds(r.seconds);
      return "";
    case Kind::kFlush: {
      Status s = engine_->Flush();
      return s.ok() ? "" : s.ToString();
    }
    case Kind::kCompact: {
      Status s = engine_->CompactAll();
      return s.ok() ? "" : s.ToString();
    }
    case Kind::kRestart: {
      Status s = engine_->Close();
      if (!s.ok()) return s.ToString();
      Open();
      return engine_ ? "" : "reopen failed";
    }
  }
  return "unknown record";
}

std::vector<std::string> RunScriptFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::vector<std::string> failures;
  Result<std::vector<ScriptRecord>> records = ParseScript(text.str());
  if (!records.ok()) {
    failures.push_back(path + ": " + records.status().message());
    return failures;
  }
  ScriptNode node;
  for (const ScriptRecord& r : *records) {
    std::string failure = node.Run(r);
    if (!failure.empty()) {
      failures.push_back(path + ":" + std::to_string(r.line) + ": " + r.cql +
                         "\n  " + failure);
    }
  }
  return failures;
}

}  // namespace keywise::query
