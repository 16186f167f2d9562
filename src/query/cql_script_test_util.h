// The declarative CQL test format (testdata/README.md): parsing a script
// into records, and running records against an in-process node.
//
// Contract: test-only. Failures are reported as strings naming the file and
// line of the record, so one failing record never hides the next.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/clock.h"
#include "query/query_processor.h"
#include "storage/engine.h"
#include "testing/temp_dir.h"

namespace keywise::query {

struct ScriptRecord {
  enum class Kind {
    kStatementOk,
    kStatementError,
    kStatementWarnings,
    kQuery,
    kPlan,
    kClockAdvance,
    kFlush,
    kCompact,
    kRestart,
  };
  Kind kind = Kind::kStatementOk;
  int line = 0;  // 1-based line of the record's first line
  std::string cql;
  std::string expected_error;  // kStatementError; empty = any error
  bool columns = false;        // kQuery options
  bool rowsort = false;
  bool nopaging = false;
  bool analyze = false;               // kPlan: EXPLAIN ANALYZE
  // kQuery/kPlan/kStatementWarnings lines after ----
  std::vector<std::string> expected;
  int64_t seconds = 0;                // kClockAdvance
};

// Parses a script; errors name the offending line.
Result<std::vector<ScriptRecord>> ParseScript(const std::string& text);

// A fresh single node (engine + processor + one session) in a temp dir.
class ScriptNode {
 public:
  ScriptNode();
  ~ScriptNode();

  // Runs one record; returns an empty string on success, else a failure
  // description.
  std::string Run(const ScriptRecord& record);

  QueryProcessor& processor() { return *processor_; }
  Engine& engine() { return *engine_; }

  // Runs `cql` to completion with the given page size (<= 0: unpaged) and
  // returns the formatted rows (first line: column names).
  Result<std::vector<std::string>> Query(const std::string& cql, int page_size);

 private:
  void Open();
  std::string RunQuery(const ScriptRecord& record);
  std::string RunPlan(const ScriptRecord& record);

  ::keywise::testing::TempDir dir_;
  ManualClock clock_;
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<QueryProcessor> processor_;
  ClientState client_;
};

// Runs every record of the script at `path`; returns the failures.
std::vector<std::string> RunScriptFile(const std::string& path);

}  // namespace keywise::query
