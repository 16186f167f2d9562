// EXPLAIN [ANALYZE] (docs/cql_extensions.md): the plan of the statement that
// follows as an ordinary result set of (step, detail) rows; with ANALYZE
// the statement also runs, to completion, and rows describing what it did
// follow the plan.
#include <chrono>
#include <cstdio>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "query/statements/select_statement.h"
#include "query/statements/statements.h"

namespace keywise::query {
namespace {

// The page size ANALYZE reads with when the client sent none: rows are
// counted and dropped page by page, so memory stays bounded.
constexpr int32_t kAnalyzePageSize = 5000;

class ExplainStatement final : public PreparedStatement {
 public:
  ExplainStatement() { kind = StatementKind::kExplain; }

  Result<QueryResult> Execute(ExecutionContext& ctx) const override {
    std::vector<ExplainLine> lines;
    inner->Explain(ctx, &lines);
    if (analyze) KW_RETURN_IF_ERROR(Analyze(ctx, &lines));
    QueryResult result;
    RowsResult& rows = result.result.emplace<RowsResult>();
    rows.columns = result_columns;
    RowWriter writer(&rows);
    for (const ExplainLine& line : lines) {
      writer.AppendValue(line.step);
      writer.AppendValue(line.detail);
      writer.EndRow();
    }
    return result;
  }

  bool analyze = false;
  std::shared_ptr<PreparedStatement> inner;

 private:
  // Runs the statement to its last page with stats counted, and appends
  // what it did.
  Status Analyze(const ExecutionContext& ctx,
                 std::vector<ExplainLine>* lines) const {
    ExecutionStats stats;
    QueryOptions options = *ctx.options;
    options.paging_state.clear();
    if (options.page_size <= 0) options.page_size = kAnalyzePageSize;
    const auto* select = dynamic_cast<const SelectStatement*>(inner.get());
    // Post-query ordering cannot be paged: it reads its partitions whole.
    if (select != nullptr && select->plan->post_order) options.page_size = -1;
    ExecutionContext run = ctx;
    run.options = &options;
    run.stats = &stats;
    int64_t rows_returned = 0;
    const auto start = std::chrono::steady_clock::now();
    while (true) {
      KW_ASSIGN_OR_RETURN(QueryResult page, inner->Execute(run));
      const auto* rows = std::get_if<RowsResult>(&page.result);
      if (rows == nullptr) break;
      rows_returned += rows->row_count;
      if (!rows->paging_state) break;
      options.paging_state = *rows->paging_state;
    }
    const double ms = std::chrono::duration<double, std::milli>(
                          std::chrono::steady_clock::now() - start)
                          .count();
    auto add = [&](const char* step, uint64_t n) {
      lines->push_back(ExplainLine{step, std::to_string(n)});
    };
    if (select != nullptr) {
      add("partitions read", stats.partitions_read);
      add("rows read", stats.rows_read);
      add("tombstones skipped", stats.storage.dead_rows);
      add("rows returned", static_cast<uint64_t>(rows_returned));
    } else {
      add("partitions written", stats.partitions_written);
      add("rows written", stats.rows_written);
    }
    char time[32];
    std::snprintf(time, sizeof time, "%.3f ms", ms);
    lines->push_back(ExplainLine{"time", time});
    return Status::OK();
  }
};

}  // namespace

Result<std::shared_ptr<PreparedStatement>> PrepareExplain(
    const cql::ExplainStatement& statement, const PrepareContext& ctx,
    BindSpecs* binds) {
  auto out = std::make_shared<ExplainStatement>();
  out->analyze = statement.analyze;
  Result<std::shared_ptr<PreparedStatement>> inner =
      std::visit([&](const auto& s) { return PreparePlanned(s, ctx, binds); },
                 statement.statement);
  if (!inner.ok()) return inner.status();
  out->inner = std::move(inner).value();
  out->table = out->inner->table;
  std::string keyspace = out->table ? out->table->keyspace : "system";
  std::string table = out->table ? out->table->name : "explain";
  for (const char* name : {"step", "detail"}) {
    out->result_columns.push_back(
        ColumnSpec{keyspace, table, name, CqlType::Of(TypeKind::kVarchar)});
  }
  return std::shared_ptr<PreparedStatement>(std::move(out));
}

}  // namespace keywise::query
