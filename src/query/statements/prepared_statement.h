// PreparedStatement: a statement checked against the schema once, executed
// many times with different bound values.
//
// Contract: immutable after Prepare and shared across connections and
// threads; Execute is const and thread-safe. A statement that names a table
// keeps the TableDefPtr it was prepared against; the QueryProcessor
// re-prepares it from its text when that table's definition has changed
// since (Cassandra invalidates prepared statements on schema changes).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "auth/resource.h"
#include "common/status.h"
#include "query/exec/execution_context.h"
#include "query/expr/query_options.h"
#include "query/expr/result.h"
#include "query/expr/term.h"
#include "query/plan/explain.h"
#include "query/plan/write_plan.h"
#include "schema/table_def.h"

namespace keywise::query {

// The most rows a quick SELECT may read (about half a millisecond).
inline constexpr int64_t kQuickReadRows = 1000;
// The most statements a quick batch may hold.
inline constexpr size_t kQuickBatchStatements = 32;

// A permission a statement needs on a resource (statements/access.h).
struct Access {
  auth::Permission permission;
  auth::Resource resource;
};

enum class StatementKind : uint8_t {
  kSelect,
  kModification,  // INSERT, UPDATE, DELETE
  kBatch,
  kSchema,  // DDL, TRUNCATE
  kUse,
  kExplain,  // EXPLAIN [ANALYZE] of any of the above but DDL and USE
};

class PreparedStatement {
 public:
  virtual ~PreparedStatement() = default;
  virtual Result<QueryResult> Execute(ExecutionContext& ctx) const = 0;
  // Whether one execution with `options` is short and bounded: a write, a
  // small batch of writes, or a read of at most kQuickReadRows rows of one
  // partition. The native transport runs quick statements on its I/O
  // threads instead of handing them to a worker. Thread-safe.
  virtual bool IsQuick(const QueryOptions& options) const {
    (void)options;
    return false;
  }
  // EXPLAIN: appends the lines of the statement's plan (plan/explain.h),
  // with the values bound in `ctx`. Statements without a plan (DDL, USE)
  // append nothing.
  virtual void Explain(const ExecutionContext& ctx,
                       std::vector<ExplainLine>* out) const {
    (void)ctx;
    (void)out;
  }

  StatementKind kind = StatementKind::kSchema;
  std::string query_text;   // as prepared (for re-preparation)
  std::string prepared_in;  // the session keyspace at prepare time
  TableDefPtr table;        // nullptr unless the statement names a table
  BindSpecs bind_specs;     // one per marker, in marker order
  // Marker index of each partition key column, in key order, when every
  // partition key column is bound by a marker (drivers route by token).
  std::vector<uint16_t> partition_key_bind_indexes;
  std::vector<ColumnSpec> result_columns;  // SELECT only
  // What executing it needs under CassandraAuthorizer (RequiredAccess).
  std::vector<Access> access;
};
using PreparedPtr = std::shared_ptr<const PreparedStatement>;

// INSERT, UPDATE and DELETE: besides executing alone, they contribute their
// writes to a batch.
class ModificationStatement : public PreparedStatement {
 public:
  ModificationStatement() { kind = StatementKind::kModification; }
  // One write (an IN list on the key makes a few): always quick.
  bool IsQuick(const QueryOptions&) const override { return true; }
  void Explain(const ExecutionContext& ctx,
               std::vector<ExplainLine>* out) const override {
    ExplainWrite(*plan, ctx.eval(), "", out,
                 ctx.engine->catalog().snapshot()->ViewsOf(plan->table->id).size());
  }

  std::shared_ptr<const WritePlan> plan;
};

}  // namespace keywise::query
