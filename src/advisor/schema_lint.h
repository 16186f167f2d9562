// Schema lint: the primary-key mistakes of the reference documents, found
// in a table's definition when it is created or its key changed, and sent
// to the client as protocol warnings, never errors (docs/advisor.md lists
// the rules and their texts).
//
// Contract: pure functions of table definitions. Each finding names its
// rule and columns, says why the key hurts in Keywise, and shows a
// rewritten CREATE TABLE. The rules judge only the definition (types and
// column names); the workload statistics (issue 22) come later.
#pragma once

#include <string>
#include <vector>

#include "schema/table_def.h"

namespace keywise::advisor {

struct LintFinding {
  std::string rule;  // stable id, e.g. "time-partition-key"
  std::string text;  // the whole warning, rule id first
  bool operator==(const LintFinding&) const = default;
};

// The findings for `table`; none when its options switch lint off
// (WITH lint = false).
std::vector<LintFinding> LintTable(const TableDef& table);

// The findings of `after` whose rule `before` did not already have (an
// ALTER TABLE warns about what it made worse, not about what was there).
std::vector<LintFinding> NewLintFindings(const TableDef& before,
                                         const TableDef& after);

// Whether WITH lint = false was given for the table.
bool LintSwitchedOff(const TableOptions& options);

}  // namespace keywise::advisor
