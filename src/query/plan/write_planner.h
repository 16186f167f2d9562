// PlanInsert, PlanUpdate, PlanDelete: a write's raw AST checked against its
// table (Cassandra 4's UpdateStatement / DeleteStatement prepare checks and
// messages) and turned into the WritePlan every execution runs.
//
// Contract: pure functions run once per PREPARE; nothing is read or
// written. Markers are recorded in `binds`; `partition_key_binds`
// receives, per partition key column, the marker index of `k = ?` (-1
// otherwise). Conditions (IF ...) are refused: lightweight transactions
// are not supported yet.
#pragma once

#include <memory>
#include <vector>

#include "common/status.h"
#include "cql/ast_dml.h"
#include "query/plan/write_plan.h"

namespace keywise::query {

Result<std::shared_ptr<const WritePlan>> PlanInsert(
    const TableDefPtr& table, const cql::InsertStatement& statement,
    BindSpecs* binds, std::vector<int>* partition_key_binds);
Result<std::shared_ptr<const WritePlan>> PlanUpdate(
    const TableDefPtr& table, const cql::UpdateStatement& statement,
    BindSpecs* binds, std::vector<int>* partition_key_binds);
Result<std::shared_ptr<const WritePlan>> PlanDelete(
    const TableDefPtr& table, const cql::DeleteStatement& statement,
    BindSpecs* binds, std::vector<int>* partition_key_binds);

}  // namespace keywise::query
