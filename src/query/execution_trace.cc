#include "query/execution_trace.h"

#include <string>

#include "query/plan/explain.h"

namespace keywise::query {
namespace {

std::string Join(const std::vector<ExplainLine>& lines) {
  std::string out;
  for (const ExplainLine& line : lines) {
    if (line.step == "PAGING") continue;  // the request's parameters say it
    if (!out.empty()) out += "; ";
    out += line.step + " " + line.detail;
  }
  return out;
}

std::string Plural(uint64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

const char* KindText(StatementKind kind) {
  switch (kind) {
    case StatementKind::kSchema:
      return "Executing schema statement";
    case StatementKind::kUse:
      return "Executing USE";
    default:
      return "Executing statement";
  }
}

}  // namespace

void TracePlan(const PreparedStatement& statement,
               const ExecutionContext& ctx) {
  std::vector<ExplainLine> lines;
  statement.Explain(ctx, &lines);
  ctx.trace->Trace(lines.empty() ? std::string(KindText(statement.kind))
                                 : "Plan: " + Join(lines));
}

void TraceBatchPlan(const ExecutionContext& ctx, cql::BatchType type,
                    const std::vector<BatchChild>& children) {
  const char* kind = type == cql::BatchType::kLogged     ? "LOGGED"
                     : type == cql::BatchType::kUnlogged ? "UNLOGGED"
                                                         : "COUNTER";
  std::vector<ExplainLine> lines;
  lines.push_back(ExplainLine{
      "BATCH", std::string(kind) + ", " +
                   Plural(children.size(), "statement", "statements")});
  for (size_t i = 0; i < children.size(); ++i) {
    ExplainWrite(*children[i].statement->plan,
                 EvalContext{children[i].options, ctx.now_micros},
                 std::to_string(i + 1) + ": ", &lines);
  }
  ctx.trace->Trace("Plan: " + Join(lines));
}

void TraceWork(const ExecutionContext& ctx, const Status& status) {
  const ExecutionStats& s = *ctx.stats;
  if (s.partitions_read > 0 || s.storage.rows_scanned > 0) {
    ctx.trace->Trace(
        "Read " + Plural(s.rows_read, "live row", "live rows") + " and " +
        Plural(s.storage.dead_rows, "tombstone", "tombstones") +
        " (deleted or expired rows) in " +
        Plural(s.partitions_read, "partition", "partitions") + "; " +
        Plural(s.storage.rows_scanned, "stored row", "stored rows") +
        " scanned");
  }
  if (s.partitions_written > 0) {
    ctx.trace->Trace("Wrote " + Plural(s.rows_written, "row", "rows") +
                     " to " +
                     Plural(s.partitions_written, "partition", "partitions"));
  }
  if (!status.ok()) {
    ctx.trace->Trace("Execution failed: " + status.ToString());
  }
}

}  // namespace keywise::query
