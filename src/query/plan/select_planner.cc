// PlanSelect: Cassandra 4's SelectStatement.RawStatement.prepare, with its
// checks in its order (the selected names, restrictions, ordering columns,
// selection, DISTINCT, GROUP BY, ORDER BY, then the ALLOW FILTERING check),
// then the access path.
#include "query/plan/select_planner.h"

#include <algorithm>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include "query/expr/term_text.h"
#include "schema/cql_name.h"

namespace keywise::query {
namespace {

Status ValidateDistinct(const TableDef& table, const Selection& selection,
                        const Restrictions& r) {
  if (r.HasClusteringRestrictions() || (r.HasNonPrimaryKeyRestrictions() &&
                                        !r.HasStaticOnlyNonPkRestrictions())) {
    return Status::Invalid(
        "SELECT DISTINCT with WHERE clause only supports restriction by "
        "partition key and/or static columns.");
  }
  const std::vector<const ColumnDef*>& selected = selection.read_columns();
  for (const ColumnDef* c : selected) {
    if (c->kind != ColumnKind::kPartitionKey &&
        c->kind != ColumnKind::kStatic) {
      return Status::Invalid(
          "SELECT DISTINCT queries must only request partition key columns "
          "and/or static columns (not " +
          c->name + ")");
    }
  }
  if (!r.IsKeyRange()) return Status::OK();
  for (const ColumnDef* c : table.PartitionKeyColumns()) {
    if (std::find(selected.begin(), selected.end(), c) == selected.end()) {
      return Status::Invalid(
          "SELECT DISTINCT queries must request all the partition key columns "
          "(missing " +
          c->name + ")");
    }
  }
  return Status::OK();
}

Status PrepareGroupBy(const TableDef& table, const cql::SelectStatement& s,
                      const Restrictions& r, SelectPlan* out) {
  if (s.group_by.empty()) return Status::OK();
  const char* kOrder =
      "Group by currently only support groups of columns following their "
      "declared order in the PRIMARY KEY";
  std::vector<const ColumnDef*> pk = table.PartitionKeyColumns();
  for (const ColumnDef* c : table.ClusteringColumns()) pk.push_back(c);
  size_t next = 0;
  size_t clustering_prefix = 0;
  for (const std::string& name : s.group_by) {
    const ColumnDef* def = table.FindColumn(name);
    if (def == nullptr) {
      return Status::Invalid("Undefined column name " + CqlName(name));
    }
    if (!def->IsPrimaryKey()) {
      return Status::Invalid(
          "Group by is currently only supported on the columns of the PRIMARY "
          "KEY, got " +
          def->name);
    }
    while (true) {
      if (next >= pk.size()) return Status::Invalid(kOrder);
      const ColumnDef* column = pk[next++];
      if (column->kind == ColumnKind::kClustering) ++clustering_prefix;
      if (column == def) break;
      if (!r.IsRestrictedByEq(*column)) return Status::Invalid(kOrder);
    }
  }
  if (next < pk.size() && pk[next]->kind == ColumnKind::kPartitionKey) {
    return Status::Invalid(
        "Group by is not supported on only a part of the partition key");
  }
  if (clustering_prefix > 0 && s.distinct) {
    return Status::Invalid(
        "Grouping on clustering columns is not allowed for SELECT DISTINCT "
        "queries");
  }
  out->grouped = true;
  out->group_clustering_size = clustering_prefix;
  return Status::OK();
}

// Cassandra's isReversed: ordering columns must follow the clustering
// order, skipping only columns restricted by EQ, all in one direction.
Status PrepareOrdering(
    const TableDef& table, const Restrictions& r,
    const std::vector<std::pair<const ColumnDef*, cql::Order>>& orderings,
    SelectPlan* out) {
  if (orderings.empty()) return Status::OK();
  if (r.IsKeyRange()) {
    return Status::Invalid(
        "ORDER BY is only supported when the partition key is restricted by "
        "an EQ or an IN.");
  }
  std::vector<const ColumnDef*> clustering = table.ClusteringColumns();
  int next = 0;
  std::optional<bool> reversed;
  for (const auto& [def, order] : orderings) {
    if (def->kind != ColumnKind::kClustering) {
      return Status::Invalid(
          "Order by is currently only supported on the clustered columns of "
          "the PRIMARY KEY, got " +
          def->name);
    }
    while (next != def->position) {
      if (next > def->position ||
          !r.IsRestrictedByEq(*clustering[static_cast<size_t>(next++)])) {
        return Status::Invalid(
            "Order by currently only supports the ordering of columns "
            "following their declared order in the PRIMARY KEY");
      }
    }
    ++next;
    bool rev = (order == cql::Order::kDesc) != (def->order == SortOrder::kDesc);
    if (reversed && *reversed != rev) {
      return Status::Invalid("Unsupported order by relation");
    }
    reversed = rev;
    out->ordering.push_back(def);
  }
  out->access.reversed = reversed.value_or(false);
  out->post_order = r.KeyIsIn();
  return Status::OK();
}

// Adds the columns `selector` reads to the flags; Invalid "Undefined column
// name x" for a name the table lacks.
Status NoteColumns(const TableDef& table, const cql::Selector& selector,
                   bool* any_static, bool* any_other) {
  switch (selector.kind) {
    case cql::SelectorKind::kColumn:
    case cql::SelectorKind::kWriteTime:
    case cql::SelectorKind::kTtl: {
      const ColumnDef* c = table.FindColumn(selector.column);
      if (c == nullptr) {
        return Status::Invalid("Undefined column name " +
                               CqlName(selector.column));
      }
      if (c->kind == ColumnKind::kStatic) {
        *any_static = true;
      } else if (c->kind != ColumnKind::kPartitionKey) {
        *any_other = true;
      }
      return Status::OK();
    }
    case cql::SelectorKind::kCountRows:
    case cql::SelectorKind::kTerm:
      return Status::OK();
    default:
      for (const cql::Selector& arg : selector.args) {
        KW_RETURN_IF_ERROR(NoteColumns(table, arg, any_static, any_other));
      }
      return Status::OK();
  }
}

// Cassandra's RawSelector.toSelectables (the selected names are resolved
// before the WHERE clause) and selectOnlyStaticColumns: the SELECT names
// static columns and no column but those and the partition key.
Result<bool> SelectsOnlyStaticColumns(const TableDef& table,
                                      const cql::SelectStatement& s) {
  bool any_static = false;
  bool any_other = false;
  for (const cql::SelectItem& item : s.items) {
    KW_RETURN_IF_ERROR(
        NoteColumns(table, item.selector, &any_static, &any_other));
  }
  if (s.select_all || !table.HasStaticColumns()) return false;
  return any_static && !any_other;
}

// Whether the restrictions are answered by key ranges alone (nothing to
// filter, as without ALLOW FILTERING).
bool ServedByKey(const TableDef& table, const std::vector<cql::Relation>& where,
                 RestrictionContext context, std::string* error) {
  context.allow_filtering = false;
  BindSpecs scratch(1024);
  std::vector<int> pk_binds;
  Result<std::shared_ptr<const Restrictions>> r =
      PrepareRestrictions(table, where, context, &scratch, &pk_binds);
  if (!r.ok()) {
    if (error != nullptr) *error = r.status().message();
    return false;
  }
  if ((*r)->row_filter() != nullptr || (*r)->KeyRangeNeedsFiltering()) {
    if (error != nullptr) *error = kRequiresAllowFilteringMessage;
    return false;
  }
  return true;
}

struct IndexChoice {
  TableDefPtr index;
  const cql::Relation* relation = nullptr;
};

// The secondary index a SELECT reads (index null: none). None when the primary key
// answers the WHERE clause without filtering (as Cassandra, the key wins).
// Otherwise the first `column = value` relation, in WHERE order, on a
// column with an index; a local index only when the other relations name
// one partition, and then before a global one. Without ALLOW FILTERING the
// other relations must be answered by key ranges (Cassandra's rule: an
// index serves one restriction; every other one needs filtering); when
// that fails for every candidate, its message is returned.
Result<IndexChoice> ChooseIndex(
    const TableDef& table, const cql::SelectStatement& s,
    const RestrictionContext& context,
    const std::vector<TableDefPtr>& indexes) {
  if (indexes.empty() || ServedByKey(table, s.where, context, nullptr)) {
    return IndexChoice{};
  }
  std::string error;
  for (const cql::Relation& rel : s.where) {
    if (rel.kind != cql::RelationKind::kSingleColumn || rel.in_list) continue;
    const ColumnDef* column = table.FindColumn(rel.columns[0]);
    if (column == nullptr) continue;
    // What an index must index to serve the relation.
    std::optional<IndexTarget> wanted;
    const bool elements = column->type->IsMultiCell();
    if (rel.op == cql::RelationOp::kEq && !rel.map_key && !elements) {
      wanted = IndexTarget::kValues;  // or kFull: same rows
    } else if (rel.op == cql::RelationOp::kContains && elements) {
      wanted = IndexTarget::kValues;
    } else if (rel.op == cql::RelationOp::kContainsKey && elements) {
      wanted = IndexTarget::kKeys;
    } else if (rel.op == cql::RelationOp::kEq && rel.map_key && elements) {
      wanted = IndexTarget::kEntries;
    }
    if (!wanted) continue;
    std::vector<cql::Relation> others;
    for (const cql::Relation& o : s.where) {
      if (&o != &rel) others.push_back(o);
    }
    std::string why;
    const bool others_served = ServedByKey(table, others, context, &why);
    bool one_partition = false;
    if (others_served) {
      RestrictionContext relaxed = context;
      relaxed.allow_filtering = true;
      BindSpecs scratch(1024);
      std::vector<int> pk_binds;
      auto r = PrepareRestrictions(table, others, relaxed, &scratch, &pk_binds);
      one_partition = r.ok() && (*r)->HasPartitionKeys() && !(*r)->KeyIsIn();
    }
    for (bool local : {true, false}) {
      for (const TableDefPtr& index : indexes) {
        const IndexTarget target = index->view->target == IndexTarget::kFull
                                       ? IndexTarget::kValues
                                       : index->view->target;
        if (index->view->target_column != rel.columns[0] ||
            target != *wanted ||
            (index->view->kind == ViewKind::kLocalIndex) != local ||
            (local && !one_partition)) {
          continue;
        }
        if (!s.allow_filtering && !others_served) {
          if (error.empty()) error = why;
          continue;
        }
        return IndexChoice{index, &rel};
      }
    }
  }
  if (!error.empty()) return Status::Invalid(error);
  return IndexChoice{};
}

// The statement's shape (select_plan.h): its relations with every value
// as `?`, in primary-key order (partition key, token(), clustering, then
// the other columns by name), then ORDER BY and ALLOW FILTERING.
std::string ShapeText(const TableDef& table, const cql::SelectStatement& s) {
  std::vector<std::tuple<int, int, std::string>> relations;
  for (const cql::Relation& r : s.where) {
    const ColumnDef* c =
        r.columns.empty() ? nullptr : table.FindColumn(r.columns[0]);
    int rank = 3;
    if (r.kind == cql::RelationKind::kToken) {
      rank = 1;
    } else if (c != nullptr && c->kind == ColumnKind::kPartitionKey) {
      rank = 0;
    } else if (c != nullptr && c->kind == ColumnKind::kClustering) {
      rank = 2;
    }
    const int position = rank == 0 || rank == 2 ? c->position : 0;
    relations.emplace_back(rank, position, RelationShapeText(r));
  }
  std::sort(relations.begin(), relations.end());
  std::string out;
  for (const auto& [rank, position, text] : relations) {
    out += (out.empty() ? "WHERE " : " AND ") + text;
  }
  if (out.empty()) out = "no WHERE clause";
  for (size_t i = 0; i < s.order_by.size(); ++i) {
    out += (i == 0 ? " ORDER BY " : ", ") + CqlName(s.order_by[i].first) +
           (s.order_by[i].second == cql::Order::kDesc ? " DESC" : " ASC");
  }
  if (s.allow_filtering) out += " ALLOW FILTERING";
  return out;
}

}  // namespace

Result<std::shared_ptr<const SelectPlan>> PlanSelect(
    const TableDefPtr& table, const cql::SelectStatement& s, BindSpecs* binds,
    std::vector<int>* partition_key_binds,
    const std::vector<TableDefPtr>& indexes) {
  auto out = std::make_shared<SelectPlan>();
  out->table = table;
  out->shape = ShapeText(*table, s);
  RestrictionContext context;
  context.allow_filtering = s.allow_filtering;
  KW_ASSIGN_OR_RETURN(context.static_only, SelectsOnlyStaticColumns(*table, s));
  KW_ASSIGN_OR_RETURN(IndexChoice chosen,
                      ChooseIndex(*table, s, context, indexes));
  const IndexChoice* index = chosen.index != nullptr ? &chosen : nullptr;
  if (index) {
    // Every restriction is checked on the base rows the index names (the
    // key ranges and the row filter), the indexed one included.
    context.allow_filtering = true;
  }
  KW_ASSIGN_OR_RETURN(out->restrictions,
                      PrepareRestrictions(*table, s.where, context, binds,
                                          partition_key_binds));
  const Restrictions& r = *out->restrictions;
  if (index) {
    const ColumnDef* column = table->FindColumn(index->relation->columns[0]);
    // The value's type: the column's, or its elements', keys' or values'.
    const CqlType& type = *column->type;
    CqlTypePtr value_type = column->type;
    if (type.IsMultiCell()) {
      const bool map = type.kind() == TypeKind::kMap;
      value_type = index->index->view->target == IndexTarget::kKeys
                       ? type.params()[0]
                   : map ? type.params()[1]
                         : type.params()[0];
    }
    KW_ASSIGN_OR_RETURN(
        out->index_value,
        PrepareTerm(index->relation->value,
                    ColumnSpec{table->keyspace, table->name, column->name,
                               value_type},
                    binds));
    if (index->index->view->target == IndexTarget::kEntries) {
      KW_ASSIGN_OR_RETURN(
          out->index_key,
          PrepareTerm(*index->relation->map_key,
                      ColumnSpec{table->keyspace, table->name, column->name,
                                 type.params()[0]},
                      binds));
    }
    out->index = index->index;
    out->index_relation = RelationText(*index->relation);
    if (!s.order_by.empty()) {
      return Status::Invalid("ORDER BY with 2ndary indexes is not supported.");
    }
  }

  std::vector<std::pair<const ColumnDef*, cql::Order>> orderings;
  for (const auto& [name, order] : s.order_by) {
    const ColumnDef* def = table->FindColumn(name);
    if (def == nullptr) {
      return Status::Invalid("Undefined column name " + CqlName(name));
    }
    orderings.emplace_back(def, order);
  }

  KW_ASSIGN_OR_RETURN(out->selection, Selection::Prepare(*table, s, binds));

  if (s.distinct) {
    if (s.per_partition_limit) {
      return Status::Invalid(
          "PER PARTITION LIMIT is not allowed with SELECT DISTINCT queries");
    }
    KW_RETURN_IF_ERROR(ValidateDistinct(*table, *out->selection, r));
    out->distinct = true;
  }
  KW_RETURN_IF_ERROR(PrepareGroupBy(*table, s, r, out.get()));
  out->aggregate_everything = out->selection->IsAggregate() && !out->grouped;
  if (out->aggregate_everything && s.per_partition_limit) {
    return Status::Invalid(
        "PER PARTITION LIMIT is not allowed with aggregate queries.");
  }
  KW_RETURN_IF_ERROR(PrepareOrdering(*table, r, orderings, out.get()));
  if (!s.allow_filtering && !index && r.KeyRangeNeedsFiltering()) {
    return Status::Invalid(kRequiresAllowFilteringMessage);
  }

  auto int_spec = [&](const char* name) {
    return ColumnSpec{table->keyspace, table->name, name,
                      CqlType::Of(TypeKind::kInt)};
  };
  if (s.limit) {
    KW_ASSIGN_OR_RETURN(out->limit,
                        PrepareTerm(*s.limit, int_spec("[limit]"), binds));
  }
  if (s.per_partition_limit) {
    KW_ASSIGN_OR_RETURN(out->per_partition_limit,
                        PrepareTerm(*s.per_partition_limit,
                                    int_spec("[per_partition_limit]"), binds));
  }
  if (s.versions) {
    KW_ASSIGN_OR_RETURN(
        out->versions, PrepareTerm(*s.versions, int_spec("[versions]"), binds));
  }

  out->static_rows_for_empty_partitions =
      !r.HasClusteringRestrictions() && !r.HasRegularRestrictions();
  out->has_statics = table->HasStaticColumns();
  ChooseAccessPath(r, &out->access);
  out->direct_get = r.IsPointGet() && !out->post_order && !out->grouped;
  if (index) {
    out->access = AccessPath{AccessKind::kIndex, true, false, -1, -1};
    out->direct_get = false;
  }
  return std::shared_ptr<const SelectPlan>(std::move(out));
}

}  // namespace keywise::query
