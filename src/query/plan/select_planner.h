// PlanSelect: a SELECT's raw AST checked against its table (Cassandra 4's
// SelectStatement prepare checks and messages) and turned into the
// SelectPlan that every execution runs; ChooseAccessPath: which of the
// access paths of select_plan.h the WHERE clause allows.
//
// Contract: pure functions run once per PREPARE; nothing is read or
// written. Markers are recorded in `binds`; `partition_key_binds`
// receives, per partition key column, the marker index of `k = ?` (-1
// otherwise). `indexes` are the table's index tables (ViewInfo::IsIndex),
// which an INDEX access path may use (see ChooseIndex in the .cc for the
// rule).
#pragma once

#include <memory>
#include <vector>

#include "common/status.h"
#include "cql/ast_select.h"
#include "query/plan/select_plan.h"

namespace keywise::query {

Result<std::shared_ptr<const SelectPlan>> PlanSelect(
    const TableDefPtr& table, const cql::SelectStatement& statement,
    BindSpecs* binds, std::vector<int>* partition_key_binds,
    const std::vector<TableDefPtr>& indexes = {});

// Fills everything of `access` but `reversed`, which ORDER BY decides.
void ChooseAccessPath(const Restrictions& restrictions, AccessPath* access);

}  // namespace keywise::query
