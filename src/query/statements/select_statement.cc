// PrepareSelect and SelectStatement: a thin shell around the plan.
#include "query/statements/select_statement.h"

#include <algorithm>
#include <cctype>
#include <utility>

#include "query/exec/select_executor.h"
#include "query/plan/select_planner.h"
#include "query/statements/statements.h"
#include "schema/cql_name.h"
#include "schema/system_keyspace_names.h"
#include "schema/value_codec.h"

namespace keywise::query {
namespace {

// A selection name as a SELECT JSON key: names of one word as CQL prints
// them (quoted unless lower-case), other selectors ("ttl(v)", "m['k']") as
// they are.
std::string JsonKey(const std::string& name) {
  const bool word = std::all_of(name.begin(), name.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '_';
  });
  return word ? CqlName(name) : name;
}

// Each row of `rows` as one [json] text value.
Result<RowsResult> JsonRows(RowsResult rows, const ColumnSpec& json_column) {
  KW_ASSIGN_OR_RETURN(auto decoded, DecodeRows(rows));
  RowsResult out;
  out.columns = {json_column};
  out.paging_state = std::move(rows.paging_state);
  RowWriter writer(&out);
  for (const auto& row : decoded) {
    std::string text = "{";
    for (size_t i = 0; i < row.size(); ++i) {
      if (i > 0) text += ", ";
      text += JsonQuote(JsonKey(rows.columns[i].name)) + ": ";
      text += row[i] ? FormatJson(*rows.columns[i].type, *row[i]) : "null";
    }
    text += "}";
    writer.AppendValue(text);
    writer.EndRow();
  }
  return out;
}

}  // namespace

Result<std::shared_ptr<PreparedStatement>> PrepareSelect(
    const cql::SelectStatement& s, const PrepareContext& ctx,
    BindSpecs* binds) {
  KW_ASSIGN_OR_RETURN(TableDefPtr table, ResolveTable(ctx, s.table));
  auto out = std::make_shared<SelectStatement>();
  out->table = table;
  std::vector<int> pk_binds;
  // Index changes publish a new TableDef of the base, so a statement
  // prepared before one is re-prepared with the indexes of its time.
  std::vector<TableDefPtr> indexes;
  const SchemaSnapshotPtr schema = ctx.catalog->snapshot();
  for (const TableDefPtr& v : schema->ViewsOf(table->id)) {
    if (v->IsIndexTable()) indexes.push_back(v);
  }
  KW_ASSIGN_OR_RETURN(out->plan,
                      PlanSelect(table, s, binds, &pk_binds, indexes));
  out->result_columns = out->plan->selection->columns();
  if (s.json) {
    out->json = true;
    out->result_columns = {ColumnSpec{table->keyspace, table->name, "[json]",
                                      CqlType::Of(TypeKind::kVarchar)}};
  }
  SetRoutingIndexes(pk_binds, out.get());
  return std::shared_ptr<PreparedStatement>(std::move(out));
}

bool SelectStatement::IsQuick(const QueryOptions& options) const {
  const SelectPlan& p = *plan;
  // Tables of figures are written before they are read (may wait on
  // storage and, in a cluster, on other nodes): never on an I/O thread.
  if (IsVirtualSystemKeyspace(p.table->keyspace)) return false;
  if (p.direct_get) return true;
  if (!p.OnePartition() || p.filter() != nullptr || p.grouped ||
      p.aggregate_everything || p.versions != nullptr) {
    return false;
  }
  int64_t rows = options.page_size > 0 ? options.page_size : -1;
  // Named values are resolved to positions later: only a literal LIMIT
  // counts then.
  if (p.limit != nullptr &&
      (p.limit->IsConstant() || options.value_names.empty())) {
    Result<int64_t> n = EvaluateRowCount(p.limit, EvalContext{&options, 0});
    if (n.ok() && *n > 0 && (rows < 0 || *n < rows)) rows = *n;
  }
  return rows > 0 && rows <= kQuickReadRows;
}

Result<QueryResult> SelectStatement::Execute(ExecutionContext& ctx) const {
  KW_ASSIGN_OR_RETURN(QueryResult result, ExecuteSelect(*plan, ctx));
  if (!json) return result;
  auto* rows = std::get_if<RowsResult>(&result.result);
  if (rows == nullptr) return result;
  KW_ASSIGN_OR_RETURN(result.result,
                      JsonRows(std::move(*rows), result_columns[0]));
  return result;
}

}  // namespace keywise::query
