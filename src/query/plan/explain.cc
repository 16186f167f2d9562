#include "query/plan/explain.h"

#include <utility>

#include "common/coding.h"
#include "query/expr/term_text.h"
#include "query/restrictions/row_filter.h"
#include "schema/cql_name.h"

namespace keywise::query {
namespace {

void Add(std::vector<ExplainLine>* out, std::string step, std::string detail) {
  out->push_back(ExplainLine{std::move(step), std::move(detail)});
}

// An int (LIMIT, TTL) or bigint (TIMESTAMP) term as bound ("10"), or "?"
// when it has no value yet.
std::string NumberText(const PreparedTerm& term, const EvalContext& eval) {
  Result<Value> v = term->Evaluate(eval);
  if (!v.ok() || !v->is_set()) return "?";
  if (v->bytes.size() == 4) {
    return std::to_string(
        static_cast<int32_t>(DecodeFixed32BE(v->bytes.data())));
  }
  if (v->bytes.size() == 8) {
    return std::to_string(
        static_cast<int64_t>(DecodeFixed64BE(v->bytes.data())));
  }
  return "?";
}

// How the rows of each partition are ordered, e.g. "ordered by c DESC,
// read backwards"; empty without clustering columns.
std::string OrderText(const TableDef& table, bool reversed) {
  std::vector<const ColumnDef*> clustering = table.ClusteringColumns();
  if (clustering.empty()) return "";
  const ColumnDef& first = *clustering.front();
  bool desc = (first.order == SortOrder::kDesc) != reversed;
  std::string out =
      "ordered by " + CqlName(first.name) + (desc ? " DESC" : " ASC");
  if (reversed) out += ", read backwards";
  return out;
}

// The partitions the WHERE clause names: bound when the execution has the
// values, else as prepared.
int64_t PartitionCount(const Restrictions& r, int64_t prepared,
                       const EvalContext& eval) {
  if (prepared >= 0 || !r.HasPartitionKeys()) return prepared;
  Result<std::vector<std::vector<std::string>>> keys =
      r.BindPartitionKeys(eval);
  return keys.ok() ? static_cast<int64_t>(keys->size()) : -1;
}

std::string Plural(int64_t n, const char* what) {
  if (n < 0) return std::string("N ") + what + "s";
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

// The order a scan of the whole table or of a key range returns partitions
// in: a salted table's buckets are read side by side and merged.
std::string ScanOrderText(const SelectPlan& plan) {
  const TableOptions& o = plan.table->options;
  if (o.placement == PlacementKind::kHash) return "token order";
  if (o.salt_buckets == 0 || plan.restrictions->HasTokenRestriction()) {
    return "key order";
  }
  return "key order, merging its " + std::to_string(o.salt_buckets) +
         " salt buckets (a token range each)";
}

std::string AccessDetail(const SelectPlan& plan, const EvalContext& eval) {
  const Restrictions& r = *plan.restrictions;
  const AccessPath& a = plan.access;
  std::string out = TableText(*plan.table) + ": ";
  const std::string pk = r.PartitionKeyText();
  const std::string clustering = r.ClusteringText();
  const std::string order = OrderText(*plan.table, a.reversed);
  auto slices = [&] {
    return clustering.empty() ? std::string("every row")
                              : "clustering " + clustering;
  };
  switch (a.kind) {
    case AccessKind::kGet:
      out += "the row " + pk + (clustering.empty() ? "" : " AND " + clustering);
      break;
    case AccessKind::kMultiGet:
      out += Plural(a.rows_or_slices, "row") + " of partition " + pk + " by " +
             clustering;
      break;
    case AccessKind::kPartitionScan:
      out += "partition " + pk + ", " + slices();
      break;
    case AccessKind::kMultiPartition:
      out += Plural(PartitionCount(r, a.partitions, eval), "partition") + " " +
             pk + ", each " +
             (!a.by_key            ? "scanned for " + slices()
              : clustering.empty() ? std::string("by key")
                                   : "by " + clustering);
      break;
    case AccessKind::kIndex: {
      const ViewInfo& index = *plan.index->view;
      out += std::string(index.kind == ViewKind::kLocalIndex ? "local" : "global") +
             " index " + CqlName(index.index_name) + " for " +
             plan.index_relation + ", then each base row by key" +
             (index.kind == ViewKind::kLocalIndex
                  ? " in partition " + pk
                  : std::string(", in token order"));
      return out;
    }
    case AccessKind::kFullScan:
      out += r.HasTokenRestriction()
                 ? "the partitions with " + r.TokenText() + " in token order"
                 : "every partition of the table in " + ScanOrderText(plan);
      if (!clustering.empty()) out += ", clustering " + clustering;
      break;
    case AccessKind::kKeyRange:
      out += "the partitions with " + pk + " in " + ScanOrderText(plan);
      if (!clustering.empty()) out += ", clustering " + clustering;
      break;
  }
  if (a.kind != AccessKind::kGet && !order.empty()) out += ", " + order;
  if (a.kind != AccessKind::kFullScan && r.HasTokenRestriction()) {
    out += "; keys outside " + r.TokenText() + " skipped";
  }
  return out;
}

std::string PagingText(const SelectPlan& plan, int32_t page_size) {
  if (plan.aggregate_everything) return "none: one row computed over all rows";
  if (page_size <= 0) return "none: every row in one page";
  if (plan.post_order) {
    return "refused: ORDER BY with IN on the partition key cannot be paged";
  }
  return "pages of " + std::to_string(page_size) +
         (plan.grouped ? " groups" : " rows") +
         ", each resuming after the last row returned";
}

std::string ColumnsText(const std::vector<WriteOperationPtr>& ops) {
  std::string out;
  for (const WriteOperationPtr& op : ops) {
    if (!out.empty()) out += ", ";
    out += CqlName(op->column().name);
  }
  return out;
}

std::string WriteDetail(const WritePlan& plan) {
  const Restrictions& r = *plan.where;
  std::string out = TableText(*plan.table) + ": ";
  const std::string pk = r.PartitionKeyText();
  const std::string clustering = r.ClusteringText();
  const std::string key = clustering.empty() ? pk : pk + " AND " + clustering;
  const bool names = r.IsNamesQuery();
  switch (plan.target) {
    case WriteTarget::kPartition:
      return out + "the whole partition " + pk;
    case WriteTarget::kRanges:
      out += "the rows with " + clustering + " of partition " + pk;
      break;
    case WriteTarget::kStaticRow:
      out += "the static row of partition " + pk;
      break;
    case WriteTarget::kRows: {
      bool one = names && r.ClusteringCountBound() == 1 &&
                 r.PartitionKeyCountBound() == 1;
      out += (one ? "the row " : "the rows ") + key;
      break;
    }
  }
  if (plan.DeletesWholeRows()) return out;
  std::string regular = ColumnsText(plan.regular_ops);
  std::string statics = ColumnsText(plan.static_ops);
  const char* verb = plan.type == StatementType::kDelete ? "deletes" : "sets";
  if (!regular.empty()) out += "; " + std::string(verb) + " " + regular;
  if (!statics.empty()) out += "; " + std::string(verb) + " static " + statics;
  if (plan.type == StatementType::kInsert) out += "; writes the row marker";
  return out;
}

}  // namespace

std::string TableText(const TableDef& table) {
  return CqlName(table.keyspace) + "." + CqlName(table.name);
}

std::string PartitionsText(int64_t partitions) {
  if (partitions == 1) return "1";
  if (partitions < 0) return "N (decided by the bound IN list)";
  return "N = " + std::to_string(partitions);
}

void ExplainSelect(const SelectPlan& plan, const EvalContext& eval,
                   int32_t page_size, std::vector<ExplainLine>* out) {
  const AccessPath& a = plan.access;
  Add(out, AccessKindName(a.kind), AccessDetail(plan, eval));
  if (a.kind == AccessKind::kIndex) {
    Add(out, "RECHECK",
        "every restriction on each base row read (stale index entries "
        "dropped)");
  } else if (plan.filter() != nullptr) {
    // A key range of a range-placed table is filtered too, but only its
    // ends can hold keys outside it (keys sharing a key position).
    const bool key_ends_only = plan.restrictions->HasKeyOrderSlice() &&
                               plan.filter()->Text() ==
                                   plan.restrictions->PartitionKeyText();
    Add(out, "FILTER",
        plan.filter()->Text() +
            (key_ends_only ? " (checked on every row read; only keys at the "
                             "ends of the range can fail)"
                           : " (checked on every row read, ALLOW FILTERING)"));
  }
  if (plan.distinct) Add(out, "DISTINCT", "the first row of each partition");
  if (plan.grouped) {
    std::string detail = "partition key";
    if (plan.group_clustering_size > 0) {
      detail += " and the first " + std::to_string(plan.group_clustering_size) +
                " clustering column" +
                (plan.group_clustering_size > 1 ? "s" : "");
    }
    Add(out, "GROUP BY", detail);
  }
  if (plan.aggregate_everything) Add(out, "AGGREGATE", "every row read");
  if (plan.post_order) {
    std::string by;
    for (const ColumnDef* c : plan.ordering) {
      if (!by.empty()) by += ", ";
      bool desc = (c->order == SortOrder::kDesc) != plan.access.reversed;
      by += CqlName(c->name) + (desc ? " DESC" : " ASC");
    }
    Add(out, "ORDER",
        "rows of all partitions buffered and sorted by " + by +
            " (ORDER BY with IN on the partition key)");
  }
  if (plan.per_partition_limit != nullptr) {
    Add(out, "PER PARTITION LIMIT", NumberText(plan.per_partition_limit, eval));
  }
  if (plan.limit != nullptr) Add(out, "LIMIT", NumberText(plan.limit, eval));
  if (plan.versions != nullptr) {
    Add(out, "VERSIONS",
        "up to " + NumberText(plan.versions, eval) + " versions of each cell");
  }
  Add(out, "PAGING", PagingText(plan, page_size));
  std::string partitions;
  if (a.kind == AccessKind::kIndex) {
    partitions = "N (those the index names)";
  } else if (a.kind == AccessKind::kKeyRange) {
    partitions = "N (those in the key range)";
  } else if (a.kind == AccessKind::kFullScan) {
    partitions = plan.restrictions->HasTokenRestriction()
                     ? "N (those in the token range)"
                     : "all";
  } else {
    partitions =
        PartitionsText(PartitionCount(*plan.restrictions, a.partitions, eval));
  }
  Add(out, "PARTITIONS", partitions);
}

std::string ReadBeforeWriteText(size_t views, bool batch) {
  if (views == 0) {
    return batch ? "none: blind writes, merged with what is stored by "
                   "timestamp"
                 : "none: a blind write, merged with what is stored by "
                   "timestamp";
  }
  return "the rows written (the whole partition for a partition or range "
         "deletion), to keep " +
         std::to_string(views) + " view" + (views == 1 ? "" : "s") +
         " and indexes in step; written together with them";
}

int64_t ExplainWrite(const WritePlan& plan, const EvalContext& eval,
                     const std::string& prefix, std::vector<ExplainLine>* out,
                     size_t views) {
  Add(out, prefix + StatementTypeName(plan.type), WriteDetail(plan));
  std::string attrs;
  if (plan.attrs.has_ttl()) {
    attrs += "TTL " + NumberText(plan.attrs.ttl_term(), eval);
  }
  if (plan.attrs.has_timestamp()) {
    attrs += std::string(attrs.empty() ? "" : " AND ") + "TIMESTAMP " +
             NumberText(plan.attrs.timestamp_term(), eval);
  }
  if (!attrs.empty()) Add(out, prefix + "USING", attrs);
  int64_t partitions =
      PartitionCount(*plan.where, plan.where->PartitionKeyCountBound(), eval);
  if (prefix.empty()) {
    Add(out, "READ BEFORE WRITE", ReadBeforeWriteText(views, false));
    Add(out, "PARTITIONS", PartitionsText(partitions));
  }
  return partitions;
}

}  // namespace keywise::query
