// Explain: plans described as EXPLAIN prints them (docs/cql_extensions.md):
// one (step, detail) line per stage of the plan, in the words the
// primary-key design guides use: GET, MULTI-GET, SCAN (with its bounds and
// ASC/DESC), MULTI-PARTITION, FULL SCAN, FILTER, GROUP BY, AGGREGATE,
// ORDER, LIMIT, PAGING, and how many partitions the statement may touch
// (PARTITIONS: 1, N or all). Writes print what they write, whether they
// read first, and their partitions.
//
// Contract: pure functions of an immutable plan and the values bound to
// the EXPLAIN; thread-safe. Values that come from markers are printed as
// bound when the execution has them (LIMIT 10, IN lists' sizes) and as the
// marker otherwise.
#pragma once

#include <string>
#include <vector>

#include "query/expr/term.h"
#include "query/plan/select_plan.h"
#include "query/plan/write_plan.h"

namespace keywise::query {

struct ExplainLine {
  std::string step;
  std::string detail;
};

// `page_size` is the execution's (<= 0: unpaged).
void ExplainSelect(const SelectPlan& plan, const EvalContext& eval,
                   int32_t page_size, std::vector<ExplainLine>* out);

// The lines of one write. A statement of a batch has its number as
// `prefix` ("2: ") and leaves the batch-wide lines to the batch. Returns
// the partitions it may touch (-1 when unknown).
// `views`: the materialized views and indexes of the written table(s),
// which make the write read what it changes first.
int64_t ExplainWrite(const WritePlan& plan, const EvalContext& eval,
                     const std::string& prefix, std::vector<ExplainLine>* out,
                     size_t views = 0);
// The READ BEFORE WRITE line's text for writes that maintain `views`.
std::string ReadBeforeWriteText(size_t views, bool batch);

// "1", "N = 3", "N (bound at execution)", "all".
std::string PartitionsText(int64_t partitions);

// `ks.t` with names quoted as CQL needs.
std::string TableText(const TableDef& table);

}  // namespace keywise::query
